"""The spend package's contracts: the one request-reporting interface (`RequestRecorder`) a
model adapter reports to, through any stack of wrappers; what a model that does not report is
counted as."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import thoughtgraph
from thoughtgraph.errors import BudgetExhausted, InputError
from thoughtgraph.models.base import Completion
from thoughtgraph.models.cache import CachedModel
from thoughtgraph.models.limits import RateLimitedModel
from thoughtgraph.sim.model import SimulatedModel
from thoughtgraph.spend.budget import NOTHING, Amounts, Budget, Meter, share
from thoughtgraph.spend.ledger import UNMETERED, Attempt, CallLedger, RequestRecorder
from thoughtgraph.spend.usage import Usage

from .conftest import INPUT_32, run_cli


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
        "sorting", INPUT_32, model=ThreeRequestsModel(), scheme="io", max_requests=2
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
    meter = Meter(Budget(max_requests=1))
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


# --- one remaining-share rule, in requests ------------------------------------------------------
def test_share_splits_what_is_left_after_spent_and_held_among_the_slots() -> None:
    budget = Budget(max_requests=100, max_tokens=10_000, max_cost=1.0)
    spent = Amounts(requests=40, tokens=4_000, cost=0.4)
    held = Amounts(requests=20, tokens=1_000, cost=0.2)
    four = share(budget, spent, held, slots=4)
    assert (four.max_requests, four.max_tokens) == (10, 1_250)
    assert four.max_cost == pytest.approx(0.1)
    one = share(budget, spent, slots=1)
    assert (one.max_requests, one.max_tokens) == (60, 6_000)
    assert one.max_cost == pytest.approx(0.6)
    assert share(Budget(max_requests=5), spent).empty  # overspent: 0, never negative
    assert share(Budget(max_requests=5), spent).max_requests == 0
    assert share(Budget(), spent, held, 3) == Budget()  # no caps: no limits in the share
    assert not share(budget, NOTHING, slots=100).empty  # 1 request each still admits one


def test_eval_tune_and_ray_use_the_one_share_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray's pair allowances and the tune ledger both come from `spend.budget.share`."""
    from thoughtgraph.scale import ray_backend
    from thoughtgraph.tuning import study

    calls: list[tuple[Any, ...]] = []

    def spy(*args: Any, **kwargs: Any) -> Budget:
        calls.append(args)
        return share(*args, **kwargs)

    monkeypatch.setattr(ray_backend, "share", spy)
    monkeypatch.setattr(study, "share", spy)
    meter = Meter(Budget(max_requests=30))
    meter.carry(10, 0, 0.0)
    shares = ray_backend._Shares(parallel=2)
    _key, first = shares.take(meter)
    _key, second = shares.take(meter)
    assert (first.max_requests, second.max_requests) == (10, 10)  # 20 left, two slots

    class Study:
        def __init__(self) -> None:
            self.user_attrs = {"report_runs": [{"paid": {"requests": 7, "tokens": 0}}]}

        def get_trials(self, deepcopy: bool = False) -> list[Any]:
            return []

    allowance = study.Ledger(Study(), Budget(max_requests=20)).share(pairs=3)
    assert allowance is not None and allowance.max_requests == 4  # (20 - 7) // 3
    assert len(calls) == 3


def test_an_old_study_that_recorded_calls_is_read_as_requests() -> None:
    from thoughtgraph.tuning.study import _spent_of

    assert _spent_of({"paid": {"calls": 5, "tokens": 9, "cost": 0.5}}) == Amounts(5, 9, 0.5)
    assert _spent_of({"allowance": {"requests": 8, "tokens": None, "cost": None}}).requests == 8


# --- max_requests, and max_calls its older name -------------------------------------------------
def test_max_calls_is_an_alias_of_max_requests() -> None:
    new = thoughtgraph.solve("sorting", INPUT_32, model="sim", max_requests=3)
    old = thoughtgraph.solve("sorting", INPUT_32, model="sim", max_calls=3)
    assert new.spend.requests == old.spend.requests == 3
    assert new.stop_detail == old.stop_detail and "max_requests=3 reached" in new.stop_detail
    same = thoughtgraph.solve("sorting", INPUT_32, model="sim", max_requests=3, max_calls=3)
    assert same.spend.requests == 3
    with pytest.raises(InputError, match="max_calls is the older name of max_requests"):
        thoughtgraph.solve("sorting", INPUT_32, model="sim", max_requests=3, max_calls=4)


@pytest.mark.parametrize("flag", ["--max-requests", "--max-calls"])
def test_the_cli_takes_max_requests_and_its_alias(capsys: Any, flag: str) -> None:
    args = ("solve", "sorting", "--input", str(INPUT_32), "--no-progress", flag, "2", "--json")
    code, out, _err = run_cli(capsys, *args)
    data = json.loads(out)
    assert code == 1 and data["requests"] == 2 and data["budget"]["max_requests"] == 2


def test_caps_are_checked_once_with_the_option_named_as_typed_by_the_user() -> None:
    with pytest.raises(InputError, match=r"^max_requests must be 0 or more, got -1$"):
        Budget(max_requests=-1)
    with pytest.raises(InputError, match=r"^--max-tokens must be a whole number, got 1.5$"):
        Budget(max_tokens=1.5, flags=True)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^max_cost must be a finite number, got nan$"):
        Budget(max_cost=math.nan)
    with pytest.raises(InputError, match="max_cost needs a price"):
        Meter(Budget(max_cost=1.0))
