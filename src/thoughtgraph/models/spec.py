"""Model spec strings (`openai:gpt-4o-mini`, `py:pkg.mod:fn`, `sim:error=0`): their grammar, the
adapters' forms built here, and the one error for a spec nobody knows.

Why apart from `base.py`: building a model from its spec imports the adapters (`openai.py`,
`imported.py`), which import the interface from `base.py`; kept there, the interface and its
adapters would import each other. The forms of the layers above (the simulated model's `sim`)
are handed in by the caller (`thoughtgraph/modelspec.py`), so this layer imports none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from thoughtgraph.errors import UnknownNameError, shown
from thoughtgraph.models.base import LanguageModel

SpecForm = Callable[[str, str], LanguageModel]
"""Builds the model of one spec prefix from the text after `prefix:` and the whole spec (errors
quote it)."""


def build_model(
    spec: str, overrides: Mapping[str, object], forms: Mapping[str, SpecForm]
) -> LanguageModel:
    """The model a spec string names: `openai:MODEL`, `py:MODULE:FUNCTION`, or one of `forms`
    (prefix -> builder, from the layers above: `sim`).

    `overrides` are openai options (base_url, api_key_env, temperature, max_tokens, timeout,
    max_retries) that win over the spec's own; None values are ignored.
    """
    given, spec = spec, normalize_spec(spec)
    scheme, _, rest = spec.partition(":")
    scheme = scheme.strip().lower()
    options = {k: v for k, v in overrides.items() if v is not None}
    if scheme == "openai":
        from thoughtgraph.models.openai import OpenAIModel

        return OpenAIModel.from_spec(rest, given, **options)  # errors quote what was typed
    if options:
        raise UnknownNameError(
            f"{', '.join(options)}: only openai:MODEL models take "
            f"{'this option' if len(options) == 1 else 'these options'}"
        )
    if scheme in PYTHON_SCHEMES:
        from thoughtgraph.models.imported import ImportedModel

        return ImportedModel.from_spec(rest, given)
    if scheme in forms:
        return forms[scheme](rest, spec)
    raise UnknownNameError(f"unknown model {shown(spec)}{_suggestion(spec)}")


KNOWN_SPECS = "sim, sim:latency=S,error=E,seed=N, openai:MODEL, py:MODULE:FUNCTION"
PYTHON_SCHEMES = ("py", "python")  # `py:package.module:function`: your own prompt -> text


def normalize_spec(spec: str) -> str:
    """`openai/MODEL` (the LiteLLM and DSPy form) -> `openai:MODEL`; other specs unchanged."""
    head, slash, tail = spec.partition("/")
    if slash and ":" not in head and head.strip().lower() == "openai":
        return "openai:" + tail
    return spec


def _suggestion(spec: str) -> str:
    """What the user probably meant by a spec we do not know."""
    text = spec.strip()
    from thoughtgraph.io.imports import is_import_string

    if is_import_string(text):
        return f": did you mean --model py:{text}? (known: {KNOWN_SPECS})"
    if not text or ":" in text:
        return f" (known: {KNOWN_SPECS})"
    provider, slash, name = text.partition("/")
    if slash:
        return (
            f": thoughtgraph speaks the OpenAI API; for an OpenAI-compatible {provider} "
            f"endpoint use --model openai:{name} --base-url URL (known: {KNOWN_SPECS})"
        )
    return f": did you mean --model openai:{text}? (known: {KNOWN_SPECS})"
