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

import math
import re
from collections.abc import Collection, Mapping
from typing import Any, cast

from thoughtgraph.conforms import conforms
from thoughtgraph.errors import InputError, UnknownNameError, shown
from thoughtgraph.models import secrets
from thoughtgraph.models.base import FunctionModel, LanguageModel, PromptFunction, parse_options
from thoughtgraph.sim.model import SimulatedModel
from thoughtgraph.spend.accounting import MODEL_CALL_KINDS
from thoughtgraph.spend.pricing import Price

ModelLike = LanguageModel | PromptFunction | str
"""What a `model=` argument accepts: a model, a function `prompt -> str`, or a spec string."""


def as_model(model: ModelLike | None) -> LanguageModel:
    """Turn a spec string, a model object or a plain function into a `LanguageModel`."""
    if model is None or isinstance(model, str):
        return from_spec(model or "sim")
    if conforms(model, LanguageModel):
        return cast(LanguageModel, model)
    if callable(getattr(model, "complete", None)) and not isinstance(model, type):
        from thoughtgraph.models.imported import ImportedObject

        return ImportedObject.given(model)  # `complete(prompt, n)` and a name, as py: takes
    if callable(model):
        return FunctionModel(model)
    raise InputError(
        f"not a model: {type(model).__name__} (give a spec string such as 'sim', a "
        "LanguageModel, an object with a method complete(prompt, n), or a function prompt -> str)"
    )


def model_from_flags(spec: str, flags: dict[str, object]) -> LanguageModel:
    """The model of `--model`, with the openai flags given (None: not given) over the spec's."""
    return from_spec(spec, **model_options(spec, flags))


ModelsFor = Mapping[str, ModelLike]
"""What `models=` (and `--model-for KIND=SPEC`) accepts: a call kind -> the model for it."""


def models_from_flags(
    spec: str,
    flags: dict[str, object],
    model_for: list[str] | tuple[str, ...] = (),
    own: Collection[str] = (),
) -> tuple[LanguageModel, dict[str, LanguageModel]]:
    """The model of `--model` and those of `--model-for KIND=SPEC` (kind -> model), the openai
    flags over `--model`'s spec and filling in what each `--model-for` spec leaves out; `own`:
    the graph's own kinds of call (its prompts' names), routable beside the built-in ones."""
    routed = parse_model_for(model_for, own)
    overrides = model_options(spec, flags, others=tuple(routed.values()))
    main = from_spec(spec, **(overrides if _is_openai(spec) else {}))
    return main, models_for(
        routed, main, default_spec=spec, overrides=overrides, label="--model-for", own=own
    )


def parse_model_for(
    values: list[str] | tuple[str, ...], own: Collection[str] | None = ()
) -> dict[str, str]:
    """`--model-for KIND=SPEC`, repeated: kind -> spec, each kind once and a known one (a
    built-in kind or one of `own`, the graph's own; None: the graphs are not read yet, so any
    prompt name passes here and `models_for` checks it once they are)."""
    routed: dict[str, str] = {}
    for value in values:
        kind, eq, spec = value.partition("=")
        if not eq or not kind.strip() or not spec.strip():
            raise InputError(
                f"--model-for takes KIND=SPEC (e.g. merge=openai:NAME@http://127.0.0.1:8001/v1), "
                f"got {shown(value)}"
            )
        kind = check_kind(kind.strip(), "--model-for", own)
        if kind in routed:
            raise InputError(f"--model-for {kind} is given twice: give each kind one model")
        routed[kind] = spec.strip()
    return routed


def check_kind(kind: object, label: str = "models", own: Collection[str] | None = ()) -> str:
    """A call kind a model may be routed to: a built-in one (`MODEL_CALL_KINDS`) or one of
    `own`, the graph's own prompt names (None: any prompt name, the graphs not read yet); else
    one line listing them."""
    if isinstance(kind, str) and (kind in MODEL_CALL_KINDS or kind in (own or ())):
        return kind
    if own is None and isinstance(kind, str) and _PROMPT_NAME.fullmatch(kind):
        return kind
    mine = sorted(set(own or ()) - set(MODEL_CALL_KINDS))
    graphs = f"; the graph's own: {', '.join(mine)}" if mine else ""
    raise InputError(
        f"{label}: unknown call kind {shown(kind)} (known: {', '.join(MODEL_CALL_KINDS)}{graphs})"
    )


_PROMPT_NAME = re.compile(r"[A-Za-z0-9_]+")  # a graph file's prompt names (engine/graph.py)


def models_for(
    models: ModelsFor | None,
    default: LanguageModel,
    *,
    default_spec: str | None = None,
    overrides: Mapping[str, object] | None = None,
    label: str = "models",
    own: Collection[str] | None = (),
) -> dict[str, LanguageModel]:
    """Each routed kind's model, built once per spec: a spec given for two kinds (or the same
    as `default_spec`, the default model's) is one model, so its answers, cache numbering,
    rate limits and endpoint are shared. A kind given the default model itself (its spec, in
    any spelling, or its object) is no route and is left out: the output, the fingerprints
    and a resumed eval see the plain model. `overrides` (the openai flags) fill in the options
    an openai spec leaves out; `own`: the graph's own kinds of call (its prompts' names),
    routable beside the built-in ones (None: any prompt name, the kinds checked already)."""
    if models is None:
        return {}
    if not isinstance(models, Mapping):
        raise InputError(
            f"{label} must map call kinds to models, e.g. {{'merge': 'openai:NAME'}}, "
            f"got {type(models).__name__}"
        )
    built: dict[str, LanguageModel] = {}  # by what decides a model's answers and price
    if default_spec is not None:
        built[identity(default)] = default
    objects = _given_objects(default)  # a function or model object given twice is one model
    routed: dict[str, LanguageModel] = {}
    for kind, given in models.items():
        kind = check_kind(kind, label, own)
        if given is None:
            raise InputError(f"{label}: no model given for {kind}")
        if not isinstance(given, str):
            if id(given) not in objects:
                objects[id(given)] = as_model(given)
            routed[kind] = objects[id(given)]
            continue
        try:
            made = from_spec(given, **filled_in(given, overrides or {}))
        except (InputError, UnknownNameError) as exc:
            raise type(exc)(f"{label} {kind}: {exc}") from None
        routed[kind] = built.setdefault(identity(made), made)
    return {kind: lm for kind, lm in routed.items() if lm is not default}


def _given_objects(default: LanguageModel) -> dict[int, LanguageModel]:
    """The default model by the id of what was given for it: the model object, and the
    function a `FunctionModel` wraps or the object an `ImportedObject` given from Python does
    (`model=f, models={"merge": f}` is one model)."""
    from thoughtgraph.models.imported import ImportedObject

    objects: dict[int, LanguageModel] = {id(default): default}
    if isinstance(default, FunctionModel):
        objects[id(default.fn)] = default
    if isinstance(default, ImportedObject) and default.target is None:
        objects[id(default.inner)] = default
    return objects


def identity(model: LanguageModel) -> str:
    """One model, whatever the spelling of its spec: its name (which holds an openai model's
    host), settings and price. Two specs of one identity are one model object."""
    from thoughtgraph.models.base import model_price, model_settings

    price = model_price(model)
    return repr((model.name, sorted(model_settings(model).items()), price))


def _is_openai(spec: str) -> bool:
    return normalize_spec(spec).partition(":")[0].strip().lower() == "openai"


def filled_in(spec: str, overrides: Mapping[str, object]) -> dict[str, object]:
    """The overrides an openai spec does not set itself (its own options win); none for
    another kind of spec."""
    if not overrides or not _is_openai(spec):
        return {}
    from thoughtgraph.models.openai import parse_spec

    text, _ = _spec_price(normalize_spec(spec), spec)
    _, own = parse_spec(text.partition(":")[2], spec)
    return {key: value for key, value in overrides.items() if key not in own}


def from_spec(spec: str, **overrides: object) -> LanguageModel:
    """Build a model from a spec string such as `sim`, `sim:latency=0.05,error=0,seed=1`,
    `py:pkg.mod:function` or `openai:gpt-4o-mini` (base URL and key from OPENAI_BASE_URL /
    OPENAI_API_KEY; `openai:NAME@http://host:port/v1` names its endpoint). Any spec may end
    with `,price_in=X,price_out=Y` (USD per million tokens): that model's own price.

    `overrides` are openai options (base_url, api_key_env, temperature, max_tokens, timeout,
    max_retries) that win over the spec's own; None values are ignored.
    """
    given = spec
    spec, price = _spec_price(normalize_spec(spec), given)
    model = _model_of(spec, given, overrides)
    if price is not None:
        model.price = price  # type: ignore[attr-defined]  # every spec-built model has one
    return model


def _model_of(spec: str, given: str, overrides: Mapping[str, object]) -> LanguageModel:
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


KNOWN_SPECS = (
    "sim, sim:profile=P,latency=S,error=E,seed=N,KIND_error=E, openai:MODEL, openai:MODEL@URL, "
    "py:MODULE:FUNCTION; any of them with price_in=USD,price_out=USD (per million tokens)"
)
PRICE_OPTIONS = ("price_in", "price_out")  # any spec's own price, USD per million tokens


def _spec_price(spec: str, given: str) -> tuple[str, Price | None]:
    """The spec without its `price_in=`/`price_out=` options, and the price they give (both
    or neither; None: the spec names none)."""
    scheme, colon, rest = spec.partition(":")
    kept: list[str] = []
    found: dict[str, float] = {}
    for item in rest.split(",") if colon else []:
        key, eq, value = item.partition("=")
        _check_price_spelling(key.strip(), given)
        if not (eq and key.strip() in PRICE_OPTIONS):
            kept.append(item)
        elif key.strip() in found:
            raise UnknownNameError(f"model option {key.strip()} is given twice in {shown(given)}")
        else:
            found[key.strip()] = _price_number(key.strip(), value, given)
    if not found:
        return spec, None
    if len(found) == 1:
        raise UnknownNameError(
            f"{shown(given)}: give both price_in and price_out (USD per million tokens), or neither"
        )
    return scheme + colon + ",".join(kept), Price(found["price_in"], found["price_out"], "spec")


def _check_price_spelling(key: str, given: str) -> None:
    """`PRICE_IN`, `Price-In`, `price-in`: a price option spelled otherwise than `price_in`
    is told so, not called unknown to the model's kind (whose list of options has no price)
    nor taken for a price given alone."""
    meant = key.lower().replace("-", "_")
    if meant in PRICE_OPTIONS and key != meant:
        raise UnknownNameError(
            f"model option {shown(key)} in {shown(given)}: write it {meant} (lower case, "
            "with an underscore)"
        )


def _price_number(key: str, text: str, given: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise UnknownNameError(
            f"model option {key}={shown(text.strip())} in {shown(given)} must be a number "
            "0 or more (USD per million tokens)"
        )
    return value


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
    head, comma, options = text.partition(",")
    if comma and head.strip().lower() in ("sim", "openai", *PYTHON_SCHEMES):
        return f": a spec's options follow a colon: did you mean {head.strip()}:{options}?"
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


def model_options(spec: str, flags: dict[str, Any], others: tuple[str, ...] = ()) -> dict[str, Any]:
    """The openai flags given (None: not given), checked with their `--flag` names in the
    errors, as the `from_spec` overrides they set (what `thoughtgraph.evaluate` takes as
    `model_options`). `others` are the `--model-for` specs: the flags are for openai models,
    so one of `spec` and them must be one."""
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
    if given and not any(_is_openai(one) for one in (spec, *others)):
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
