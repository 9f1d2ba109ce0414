"""The models of one run, each wrapped as a run wraps its model: the default answer cap, the
rate limits, the answer cache (or the sample numbering), at its own price.

A run has one model unless some kinds of call are routed to others (`models={"merge": ...}`,
`--model-for merge=SPEC`). Each distinct model is wrapped once, so a model routed to two kinds
(or the default model named again) keeps one cache numbering and one rate limit; every model
shares the one cache file, its answers under its own key (the key holds the model's name and
settings). What comes out is the engine's `Routes`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from thoughtgraph.engine.answer_cap import with_default_cap
from thoughtgraph.engine.options import RunOptions
from thoughtgraph.engine.routes import Route, Routes
from thoughtgraph.errors import InputError
from thoughtgraph.models.base import LanguageModel, completion_cap, display_name
from thoughtgraph.models.cache import CachedModel
from thoughtgraph.models.limits import RateLimitedModel
from thoughtgraph.models.samples import numbered
from thoughtgraph.tasks.base import BaseTask


@dataclass
class RunModels:
    """The run's routes and what the result reports of its models."""

    routes: Routes
    capped: LanguageModel  # the default model after its answer cap (the result's name)
    cap: int | None  # the default answer cap applied (None: the user's own, or none)
    caches: list[CachedModel]  # one per model, all on the run's cache file

    @property
    def cached_answers(self) -> int | None:
        """The answers of the run the cache holds (found there, or stored as they arrived)."""
        if not self.caches:
            return None
        return sum(cache.hits + cache.stored for cache in self.caches)

    @property
    def sent_cap(self) -> int | None:
        """The cap the default model's requests go with now, when a default cap was applied:
        above `cap`, room for a model that reasons to think; None, no cap at all (the server
        refused that room)."""
        return None if self.cap is None else completion_cap(self.capped)

    def close(self) -> None:
        for cache in self.caches:
            cache.close()


def run_models(
    model: LanguageModel,
    models: Mapping[str, LanguageModel] | None,
    options: RunOptions,
    task: BaseTask[Any, Any],
    problem: object,
    reference: object = None,
    *,
    check: Callable[[LanguageModel], None] | None = None,
) -> RunModels:
    """Wrap the default `model` and each routed one (kind -> model) once each. `check` is
    called on each capped model before anything is opened (the simulated model's refusal of
    a task it cannot play)."""
    wrapped: dict[int, Route] = {}
    caches: list[CachedModel] = []
    caps: list[int | None] = []
    capped_models: list[LanguageModel] = []
    labels: set[str] = set()

    def route_of(lm: LanguageModel) -> Route:
        if id(lm) in wrapped:
            return wrapped[id(lm)]
        capped, cap = with_default_cap(lm, task, problem, reference)
        if check is not None:
            check(capped)
        price = options.price_of(capped)
        label = _unique(display_name(capped), labels)
        inner: LanguageModel = capped
        if options.rate_limited:
            inner = _rate_limited(inner, options.rpm, options.tpm)
        if options.cache is not None:
            cached = CachedModel(inner, options.cache)
            caches.append(cached)
            inner = cached
        else:
            inner = numbered(inner)
        route = Route(label, inner, price)
        wrapped[id(lm)] = route
        caps.append(cap)
        capped_models.append(capped)
        return route

    try:
        default = route_of(model)
        by_kind = {kind: route_of(lm) for kind, lm in (models or {}).items()}
    except BaseException:
        for cache in caches:
            cache.close()
        raise
    return RunModels(Routes(default, by_kind), capped_models[0], caps[0], caches)


def _unique(label: str, taken: set[str]) -> str:
    """Two different models of one name (two functions, one model at two temperatures) are
    told apart in the reports: `name`, `name #2`, ..."""
    chosen, count = label, 1
    while chosen in taken:
        count += 1
        chosen = f"{label} #{count}"
    taken.add(chosen)
    return chosen


def _rate_limited(model: LanguageModel, rpm: float | None, tpm: float | None) -> LanguageModel:
    try:
        return RateLimitedModel(model, rpm, tpm)
    except ValueError as exc:
        raise InputError(str(exc)) from None
