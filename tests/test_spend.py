"""The spend package's contracts: the one request-reporting interface (`RequestRecorder`) a
model adapter reports to, through any stack of wrappers; what a model that does not report is
counted as."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import thoughtgraph
from thoughtgraph.errors import BudgetExhausted
from thoughtgraph.models.base import Completion
from thoughtgraph.models.cache import CachedModel
from thoughtgraph.models.limits import RateLimitedModel
from thoughtgraph.models.sim import SimulatedModel
from thoughtgraph.spend.budget import Budget, Meter
from thoughtgraph.spend.ledger import UNMETERED, Attempt, CallLedger, RequestRecorder
from thoughtgraph.spend.usage import Usage

from .conftest import INPUT_32


class ThreeRequestsModel:
    """A model adapter that sends its own requests: two that fail, then one that answers, each
    reserved with and reported to the recorder it is handed."""

    name = "three-requests"
    simulated = False
    reports_requests = True

    def __init__(self) -> None:
        self.inner = SimulatedModel(error=0)
        self.recorders: list[RequestRecorder | None] = []

    async def complete(
        self, prompt: str, n: int = 1, *, recorder: RequestRecorder | None = None
    ) -> list[Completion]:
        self.recorders.append(recorder)
        meter = recorder or UNMETERED
        for _ in range(2):
            ticket = meter.reserve(n)
            meter.record(ticket, Attempt("HTTP 500", error="simulated"))
        ticket = meter.reserve(n)
        answers = await self.inner.complete(prompt, n)
        usage = Usage(sum(a.usage.prompt_tokens for a in answers), 0)
        meter.record(ticket, Attempt("ok", len(answers), usage.prompt_tokens, 0))
        return answers


@pytest.mark.parametrize("wrap", ["plain", "cache", "limits", "both"])
def test_requests_reported_through_any_wrapper_are_counted(tmp_path: Path, wrap: str) -> None:
    """The recorder reaches the adapter under the cache and the rate limits: each call counts
    the three requests its model reported, never one per call."""
    inner = ThreeRequestsModel()
    model: Any = inner
    if wrap in ("limits", "both"):
        model = RateLimitedModel(model, rpm=1e9)
    if wrap in ("cache", "both"):
        model = CachedModel(model, tmp_path / "cache.db")
    result = thoughtgraph.solve("sorting", INPUT_32, model=model, scheme="io")
    assert result.spend.calls == 1
    assert result.spend.requests == 3
    call = next(iter(result.state.calls.values()))
    assert [a["outcome"] for a in call.attempts] == ["HTTP 500", "HTTP 500", "ok"]
    assert all(isinstance(r, CallLedger) for r in inner.recorders)


def test_a_cap_refuses_the_request_the_adapter_reserves(tmp_path: Path) -> None:
    """`max_requests=2`: the adapter's third reservation is refused, so the server would see
    two requests, and the run stops on the budget."""
    result = thoughtgraph.solve(
        "sorting", INPUT_32, model=ThreeRequestsModel(), scheme="io", max_calls=2
    )
    assert result.spend.requests == 2
    assert result.stop_reason == "budget exhausted"


def test_a_model_that_does_not_report_is_never_handed_a_recorder() -> None:
    """A user's model with the plain `complete(prompt, n)` signature works as before and
    counts one request per call."""

    class Plain:
        name = "plain"
        simulated = False

        async def complete(self, prompt: str, n: int = 1) -> list[Completion]:
            return [Completion("[1, 2]", Usage(3, 4)) for _ in range(n)]

    result = thoughtgraph.solve("sorting", "[2, 1]", model=Plain(), scheme="io")
    assert result.spend.requests == result.spend.calls == 1
    assert result.spend.tokens == 7


def test_a_ledger_is_a_request_recorder_that_refuses_past_the_cap() -> None:
    meter = Meter(Budget(max_calls=1))
    ledger = CallLedger(meter, lambda n: Usage(10 * n, 0))
    recorder: RequestRecorder = ledger
    ticket = recorder.reserve(1)
    with pytest.raises(BudgetExhausted):
        recorder.reserve(1)  # one in flight already fills the cap
    recorder.record(ticket, Attempt("ok", 1, 10, 5))
    assert (meter.requests, meter.tokens) == (1, 15)
    unsent = CallLedger(Meter(), lambda n: Usage())
    unsent.unsent(unsent.reserve(1))
    assert unsent.meter.requests == 0 and not unsent.attempts
