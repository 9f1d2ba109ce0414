"""Which model a user means: a spec string (`sim`, `openai:gpt-4o-mini`), a model object or a
plain function, turned into a `LanguageModel`.

Why above `models/` and `sim/`: the default model and the `sim:...` form are the simulated model
(`sim/`), which reads the built-in tasks; `models/spec.py` builds the adapters' forms (openai,
py) and is handed the `sim` form from here, so `models/` imports neither `sim/` nor `tasks/`.
"""

from __future__ import annotations

from thoughtgraph.errors import InputError
from thoughtgraph.models.base import FunctionModel, LanguageModel, PromptFunction, parse_options
from thoughtgraph.models.flags import model_options
from thoughtgraph.models.spec import SpecForm, build_model
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


def from_spec(spec: str, **overrides: object) -> LanguageModel:
    """Build a model from a spec string such as `sim`, `sim:latency=0.05,error=0,seed=1` or
    `openai:gpt-4o-mini` (base URL and key from OPENAI_BASE_URL / OPENAI_API_KEY).

    `overrides` are openai options (base_url, api_key_env, temperature, max_tokens, timeout,
    max_retries) that win over the spec's own; None values are ignored.
    """
    return build_model(spec, overrides, FORMS)


def model_from_flags(spec: str, flags: dict[str, object]) -> LanguageModel:
    """The model of `--model`, with the openai flags given (None: not given) over the spec's."""
    return from_spec(spec, **model_options(spec, flags))


def _simulated(rest: str, spec: str) -> LanguageModel:
    return SimulatedModel.from_options(parse_options(rest, spec))


FORMS: dict[str, SpecForm] = {"sim": _simulated}
"""The spec forms of the layers above `models/` (`models/spec.py` builds the others)."""
