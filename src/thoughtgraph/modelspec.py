"""Which model a user means: a spec string (`sim`, `openai:gpt-4o-mini`, `py:pkg.mod:fn`), the
command line's model flags, a model object or a plain function, turned into a `LanguageModel`.

One module for every way a model is named: the spec grammar, the openai flags of `solve`, `eval`
and `tune` (`model_flags` gathers them, `model_options` checks them, with their `--flag` names in
the errors, so a flag means the same in each command) and the one error for a spec nobody knows.
Why above `models/` and `sim/`: the default model and the `sim:...` form are the simulated model
(`sim/`), which reads the built-in tasks, and the other forms are the adapters of `models/`; so
neither package imports the other or this module. The typer declarations of the flags are the
CLI's (`cli/options.py`).
"""

from __future__ import annotations

from typing import Any

from thoughtgraph.errors import InputError, UnknownNameError, shown
from thoughtgraph.models import secrets
from thoughtgraph.models.base import FunctionModel, LanguageModel, PromptFunction, parse_options
from thoughtgraph.sim.model import SimulatedModel

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


def model_from_flags(spec: str, flags: dict[str, object]) -> LanguageModel:
    """The model of `--model`, with the openai flags given (None: not given) over the spec's."""
    return from_spec(spec, **model_options(spec, flags))


def from_spec(spec: str, **overrides: object) -> LanguageModel:
    """Build a model from a spec string such as `sim`, `sim:latency=0.05,error=0,seed=1`,
    `py:pkg.mod:function` or `openai:gpt-4o-mini` (base URL and key from OPENAI_BASE_URL /
    OPENAI_API_KEY).

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
    if scheme == "sim":
        return SimulatedModel.from_options(parse_options(rest, spec))
    raise UnknownNameError(f"unknown model {shown(spec)}{_suggestion(spec)}")


KNOWN_SPECS = "sim, sim:profile=P,latency=S,error=E,seed=N, openai:MODEL, py:MODULE:FUNCTION"
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


OPENAI_FLAGS = {
    "--base-url": "base_url",
    "--api-key-env": "api_key_env",
    "--temperature": "temperature",
    "--max-completion-tokens": "max_tokens",
    "--timeout": "timeout",
    "--max-retries": "max_retries",
    "--max-response-bytes": "max_response_bytes",
    "--reasoning": "reasoning",
    "--reasoning-effort": "reasoning_effort",
}
"""Each openai flag and the `from_spec` override it sets."""


def model_options(spec: str, flags: dict[str, Any]) -> dict[str, Any]:
    """The openai flags given (None: not given), checked with their `--flag` names in the
    errors, as the `from_spec` overrides they set (what `thoughtgraph.evaluate` takes as
    `model_options`)."""
    given = {flag: value for flag, value in flags.items() if value is not None}
    base_url = given.get("--base-url")
    if base_url is not None and not str(base_url).lower().startswith(("http://", "https://")):
        shown_url = shown(secrets.mask_urls(str(base_url)))  # an ftp:// URL's password too
        raise InputError(f"--base-url must start with http:// or https://, got {shown_url}")
    size = given.get("--max-response-bytes")
    if size is not None and size < 1:
        raise InputError(f"--max-response-bytes must be at least 1, got {size}")
    temperature = given.get("--temperature")
    if temperature is not None and not (0 <= temperature <= 2):
        raise InputError(f"--temperature must be between 0 and 2, got {temperature}")
    effort = given.get("--reasoning-effort")
    if effort is not None:
        from thoughtgraph.models.openai import REASONING_EFFORTS

        if str(effort).lower() not in REASONING_EFFORTS:
            raise InputError(
                f"--reasoning-effort must be one of {', '.join(REASONING_EFFORTS)}, "
                f"got {shown(effort)}"
            )
    tokens = given.get("--max-completion-tokens")
    if tokens is not None and tokens < 0:
        raise InputError(f"--max-completion-tokens must be 0 (no cap) or more, got {tokens}")
    if given and normalize_spec(spec).partition(":")[0].strip().lower() != "openai":
        raise InputError(f"{', '.join(given)}: only for openai:MODEL models, not {shown(spec)}")
    return {OPENAI_FLAGS[flag]: value for flag, value in given.items()}


def model_flags(
    base_url: str | None,
    api_key_env: str | None,
    temperature: float | None,
    max_completion_tokens: int | None,
    timeout: float | None,
    max_retries: int | None,
    max_response_bytes: int | None = None,
    reasoning: bool | None = None,
    reasoning_effort: str | None = None,
) -> dict[str, Any]:
    """The openai flags as `model_from_flags` takes them (None: not given)."""
    return {
        "--base-url": base_url,
        "--api-key-env": api_key_env,
        "--temperature": temperature,
        "--max-completion-tokens": max_completion_tokens,
        "--timeout": timeout,
        "--max-retries": max_retries,
        "--max-response-bytes": max_response_bytes,
        "--reasoning": reasoning,
        "--reasoning-effort": reasoning_effort,
    }
