"""Model wrappers compose in any order: `WrapperModel` forwards what a wrapper does not change.

Cache and rate limits are tried in both orders; in each, the wrapped model keeps the inner
model's name, settings and capabilities, and cache hits cost neither budget nor rate limit.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import thoughtgraph
from thoughtgraph.models import (
    CachedModel,
    RateLimitedModel,
    WrapperModel,
    model_settings,
    requests_needed,
    would_answer,
)
from thoughtgraph.models import limits as limits_module
from thoughtgraph.models.base import Completion, LanguageModel
from thoughtgraph.modelspec import from_spec
from thoughtgraph.spend.usage import Usage

pytestmark = pytest.mark.anyio

NUMBERS = [5, 3, 8, 1, 9, 2, 7, 4, 6, 0, 3, 5, 1, 8, 2, 9]


class Counting(WrapperModel):
    """An accounting wrapper: counts the requests that reach the inner model."""

    def __init__(self, inner: LanguageModel) -> None:
        super().__init__(inner)
        self.requests = 0

    async def complete(self, prompt: str, n: int = 1) -> list[Completion]:
        self.requests += 1
        return await super().complete(prompt, n)


class IgnoresN:
    """An endpoint that sends one answer per request whatever `n` says (like many local servers)."""

    name = "ignores-n"
    simulated = False
    settings = {"max_tokens": 64}  # noqa: RUF012 - a test double's fixed settings

    def __init__(self) -> None:
        self.requests = 0

    def requests_needed(self, n: int) -> int:
        return n

    async def complete(self, prompt: str, n: int = 1) -> list[Completion]:
        self.requests += 1
        return [Completion(f"answer {self.requests}", Usage(5, 2))]


def cache_outside(inner: LanguageModel, path: Path, **limits: Any) -> LanguageModel:
    return CachedModel(RateLimitedModel(inner, **limits), path)


def cache_inside(inner: LanguageModel, path: Path, **limits: Any) -> LanguageModel:
    return RateLimitedModel(CachedModel(inner, path), **limits)


def cache_of(model: Any) -> CachedModel:
    """The cache inside a stack of wrappers (a wrapper forwards only what the protocols name)."""
    while not isinstance(model, CachedModel):
        model = model.inner
    return model


ORDERS = pytest.mark.parametrize("wrap", [cache_outside, cache_inside], ids=["cache-out", "in"])


@pytest.fixture
def limiter_uses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every time a rate limiter is taken, its kind ("rpm"/"tpm") is recorded here."""
    uses: list[str] = []
    real = limits_module.shared_limiter

    def counted(name: str, kind: str, limit: float, period: float) -> Any:
        uses.append(kind)
        return real(name, kind, limit, period)

    monkeypatch.setattr(limits_module, "shared_limiter", counted)
    return uses


@ORDERS
def test_either_order_keeps_the_inner_models_identity(wrap: Callable, tmp_path: Path) -> None:
    inner = IgnoresN()
    model = wrap(inner, tmp_path / "c.sqlite", rpm=100)
    assert model.name == "ignores-n" and model.simulated is False
    assert model_settings(model) == {"max_tokens": 64}
    assert requests_needed(model, 3) == 3
    assert cache_of(model).hits == 0
    # nothing the protocols do not name is forwarded: a rate limit has no hits of its own
    assert hasattr(model, "hits") == isinstance(model, CachedModel)
    cache_of(model).close()


def test_the_simulated_label_survives_every_wrapper(tmp_path: Path) -> None:
    model = cache_inside(Counting(from_spec("sim:error=0")), tmp_path / "c.sqlite", rpm=100)
    assert model.simulated is True and model.name.startswith("sim:")
    cache_of(model).close()


@ORDERS
async def test_an_endpoint_ignoring_n_is_split_into_single_requests_in_either_order(
    wrap: Callable, tmp_path: Path, limiter_uses: list[str]
) -> None:
    inner = IgnoresN()
    model = wrap(inner, tmp_path / "c.sqlite", rpm=1000, period=1.0)
    answers = await model.complete("p", 3)
    assert len(answers) == 3 and inner.requests == 3
    assert limiter_uses.count("rpm") == 3  # every single request was rate limited
    cache_of(model).close()


@ORDERS
async def test_cache_hits_cost_neither_budget_nor_rate_limit_in_either_order(
    wrap: Callable, tmp_path: Path, limiter_uses: list[str]
) -> None:
    path = tmp_path / "answers.sqlite"
    first = Counting(from_spec("sim:error=0,latency=0"))
    model = wrap(first, path, rpm=100_000, tpm=10_000_000)
    done = await thoughtgraph.asolve("sorting", NUMBERS, model=model)
    cache_of(model).close()
    assert first.requests == done.calls > 0 and limiter_uses  # misses were paid and limited

    limiter_uses.clear()
    again = Counting(from_spec("sim:error=0,latency=0"))
    model = wrap(again, path, rpm=100_000, tpm=10_000_000)
    rerun = await thoughtgraph.asolve("sorting", NUMBERS, model=model, max_requests=0)
    cache_of(model).close()
    assert rerun.clean and rerun.output == sorted(NUMBERS)  # max_requests=0 refused nothing
    assert rerun.cached_calls == rerun.calls == done.calls
    assert again.requests == 0 and limiter_uses == []


@ORDERS
async def test_would_answer_sees_the_cache_through_the_limits(
    wrap: Callable, tmp_path: Path
) -> None:
    model = wrap(IgnoresN(), tmp_path / "c.sqlite", rpm=1000, period=1.0)
    assert not would_answer(model, "p")
    await model.complete("p")
    cache_of(model).close()
    rerun = wrap(IgnoresN(), tmp_path / "c.sqlite", rpm=1000, period=1.0)
    assert would_answer(rerun, "p") and not would_answer(rerun, "p", 2)
    cache_of(rerun).close()


def test_a_wrapper_overrides_only_what_it_changes() -> None:
    class Renamed(WrapperModel):
        @property
        def name(self) -> str:
            return "renamed:" + self.inner.name

    inner = IgnoresN()
    model = Renamed(inner)
    assert model.name == "renamed:ignores-n"
    assert model_settings(model) == {"max_tokens": 64} and requests_needed(model, 4) == 4
    with pytest.raises(AttributeError):
        model.no_such_attribute  # noqa: B018 - a missing attribute stays missing
