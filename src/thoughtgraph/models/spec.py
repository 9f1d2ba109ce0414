"""Which model a user means: a spec string (`sim`, `openai:gpt-4o-mini`), a model object or a
plain function, turned into a `LanguageModel`.

Why apart from `base.py`: building a model from its spec imports the adapters (`openai.py`,
`sim.py`), which import the interface from `base.py`; kept there, the interface and its adapters
would import each other.
"""

from __future__ import annotations

from typing import Any

from thoughtgraph.errors import InputError, UnknownNameError, shown
from thoughtgraph.models.base import FunctionModel, LanguageModel, PromptFunction, parse_options

ModelLike = LanguageModel | PromptFunction | str
"""What a `model=` argument accepts: a model, a function `prompt -> str`, or a spec string."""


def as_model(model: ModelLike | None) -> LanguageModel:
    """Turn a spec string, a model object or a plain function into a `LanguageModel`."""
    if model is None or isinstance(model, str):
        return from_spec(model or "sim")
    if isinstance(model, LanguageModel):
        return model
    if callable(model):
        return FunctionModel(model)
    raise InputError(
        f"not a model: {type(model).__name__} (give a spec string such as 'sim', a "
        "LanguageModel, or a function prompt -> str)"
    )


def from_spec(spec: str, **overrides: Any) -> LanguageModel:
    """Build a model from a spec string such as `sim`, `sim:latency=0.05,error=0,seed=1` or
    `openai:gpt-4o-mini` (base URL and key from OPENAI_BASE_URL / OPENAI_API_KEY).

    `overrides` are openai options (base_url, api_key_env, temperature, max_tokens, timeout,
    max_retries) that win over the spec's own; None values are ignored.
    """
    given, spec = spec, normalize_spec(spec)
    scheme, _, rest = spec.partition(":")
    scheme = scheme.strip().lower()
    overrides = {k: v for k, v in overrides.items() if v is not None}
    if scheme == "openai":
        from thoughtgraph.models.openai import OpenAIModel

        return OpenAIModel.from_spec(rest, given, **overrides)  # errors quote what was typed
    if overrides:
        raise UnknownNameError(
            f"{', '.join(overrides)}: only openai:MODEL models take "
            f"{'this option' if len(overrides) == 1 else 'these options'}"
        )
    if scheme in PYTHON_SCHEMES:
        from thoughtgraph.models.imported import ImportedModel

        return ImportedModel.from_spec(rest, given)
    if scheme == "sim":
        from thoughtgraph.models.sim import SimulatedModel

        return SimulatedModel.from_options(parse_options(rest, spec))
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
