"""Budget caps (calls, tokens, cost) through the public API, and the rule that enforces them."""

from __future__ import annotations

from pathlib import Path

import pytest

import thoughtgraph
from thoughtgraph.errors import BudgetExhausted, InputError
from thoughtgraph.spend.budget import Budget, Meter, dollars, usd
from thoughtgraph.spend.pricing import Price
from thoughtgraph.spend.usage import Usage, estimate_tokens
from thoughtgraph.testing import ScriptedModel

from .conftest import INPUT_32


def paid_tokens_before_last(result: thoughtgraph.Result) -> int:
    calls = sorted(result.state.calls.values(), key=lambda c: c.started)
    return sum(c.usage.total_tokens for c in calls[:-1])


def test_max_tokens_stops_once_paid_tokens_reach_the_cap():
    result = thoughtgraph.solve(
        "sorting", INPUT_32, model=ScriptedModel(), concurrency=1, max_tokens=500
    )
    assert result.stop_reason == "budget exhausted" and result.status == "not clean"
    assert "max_tokens=500 reached" in result.stop_detail
    # one call at a time: every call started while fewer than 500 tokens were paid
    assert paid_tokens_before_last(result) < 500 <= result.tokens
    assert result.output is not None  # the best thought so far comes back


def test_max_cost_stops_once_paid_cost_reaches_the_cap():
    result = thoughtgraph.solve(
        "sorting",
        INPUT_32,
        model=ScriptedModel(),
        concurrency=1,
        max_cost=0.0004,
        price_in=1.0,
        price_out=2.0,
    )
    assert result.stop_reason == "budget exhausted" and "max_cost=$0.0004" in result.stop_detail
    calls = sorted(result.state.calls.values(), key=lambda c: c.started)
    assert sum(c.cost for c in calls[:-1]) < 0.0004 <= result.cost
    assert result.cost == pytest.approx(
        (result.spend.prompt_tokens * 1.0 + result.spend.completion_tokens * 2.0) / 1e6
    )


def test_calls_in_flight_count_against_the_cap_by_their_estimate():
    """Four parts are ready at once; a cap just above one part's estimate admits two calls:
    the second starts while only the first is in flight (expected < cap), a third would not."""
    model = ScriptedModel(delay=0.01)
    first = thoughtgraph.solve("sorting", INPUT_32, model=ScriptedModel(), max_requests=1)
    estimate = estimate_tokens(next(iter(first.state.calls.values())).prompt, 1, None)
    result = thoughtgraph.solve(
        "sorting", INPUT_32, model=model, max_tokens=estimate.total_tokens + 1
    )
    assert result.calls == 2 and len(model.prompts) == 2
    assert result.stop_reason == "budget exhausted"


def test_every_cap_at_zero_makes_no_call():
    for caps in (
        {"max_requests": 0},
        {"max_tokens": 0},
        {"max_cost": 0.0, "price_in": 1.0, "price_out": 1.0},
    ):
        model = ScriptedModel()
        result = thoughtgraph.solve("sorting", [3, 1, 2], model=model, **caps)
        assert model.prompts == [] and result.calls == 0, caps
        assert result.stop_reason == "budget exhausted" and result.output == [3, 1, 2]


def test_a_cost_cap_needs_a_price():
    with pytest.raises(InputError, match="max_cost needs a price: scripted"):
        thoughtgraph.solve("sorting", [3, 1, 2], model=ScriptedModel(), max_cost=1.0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_tokens": -1}, "max_tokens must be 0 or more"),
        ({"max_cost": -0.5, "price_in": 1, "price_out": 1}, "max_cost must be 0 or more"),
        ({"price_in": 1.0}, "give both price_in and price_out"),
        ({"price_in": -1.0, "price_out": 1.0}, "prices must be 0 or more"),
    ],
)
def test_bad_budget_options_are_refused_before_any_call(options, message):
    model = ScriptedModel()
    with pytest.raises(InputError, match=message):
        thoughtgraph.solve("sorting", [3, 1, 2], model=model, **options)
    assert model.prompts == []


def test_cached_answers_are_free_for_every_budget(tmp_path: Path):
    """A rerun on a full cache makes no paid call, so even a zero budget does not stop it."""
    cache = tmp_path / "answers.sqlite"
    first = thoughtgraph.solve("sorting", INPUT_32, model="sim", cache=cache)
    assert first.paid_calls == first.calls and first.cached_calls == 0
    rerun = thoughtgraph.solve(
        "sorting",
        INPUT_32,
        model="sim",
        cache=cache,
        max_requests=0,
        max_tokens=0,
        max_cost=0.0,
        price_in=1.0,
        price_out=1.0,
    )
    assert rerun.stop_reason is None and rerun.output == first.output
    assert (rerun.calls, rerun.paid_calls, rerun.cached_calls) == (first.calls, 0, first.calls)
    assert rerun.tokens == 0 and rerun.cost == 0
    assert rerun.spend.saved_tokens == first.tokens
    assert rerun.spend.saved_cost == pytest.approx(
        (first.spend.prompt_tokens + first.spend.completion_tokens) / 1e6
    )


def test_a_budget_counts_only_the_calls_the_cache_could_not_answer(tmp_path: Path):
    cache = tmp_path / "answers.sqlite"
    partial = thoughtgraph.solve(
        "sorting", INPUT_32, model="sim:error=0", cache=cache, max_requests=4, concurrency=1
    )  # the four parts
    assert partial.stop_reason == "budget exhausted"
    # same name: same cache keys
    model = ScriptedModel(name="sim:profile=gpt-3.5-paper,latency=0,error=0,seed=0")
    rerun = thoughtgraph.solve(
        "sorting", INPUT_32, model=model, cache=cache, max_requests=2, concurrency=1
    )
    assert rerun.cached_calls == 4 and rerun.paid_calls == 2 and len(model.prompts) == 2
    assert rerun.stop_reason == "budget exhausted"


def test_meter_messages_say_what_was_paid_and_what_is_in_flight():
    meter = Meter(Budget(max_requests=2), None)
    ticket = meter.reserve(Usage(10, 0))
    meter.reserve(Usage(10, 0))
    with pytest.raises(
        BudgetExhausted, match=r"max_requests=2 reached \(0 requests sent, 2 in flight\)"
    ):
        meter.reserve(Usage(10, 0))
    meter.settle(ticket, Usage(0, 0), 0.0, paid=False)  # it was a cache hit after all
    meter.reserve(Usage(10, 0))
    cost_meter = Meter(Budget(max_cost=0.01), Price(1000.0, 1000.0))
    cost_meter.settle(cost_meter.reserve(Usage(5, 0)), Usage(6, 4), 0.01)
    with pytest.raises(BudgetExhausted, match=r"max_cost=\$0.01 reached \(\$0.01 paid\)"):
        cost_meter.reserve(Usage(1, 0))


@pytest.mark.parametrize(
    ("amount", "shown", "cell", "cap"),
    [
        (0.0, "$0.0000", "0.0000", "$0"),
        (0.0123456, "$0.0123", "0.0123", "$0.012346"),
        (0.000012, "$0.000012", "0.000012", "$0.000012"),
        (0.0000999, "$0.0001", "0.0001", "$0.0001"),
        (3.1e-9, "$0.0000000031", "0.0000000031", "<$0.000001"),
        (1234.5, "$1,234.5000", "1,234.5000", "$1,234.5"),
    ],
)
def test_a_cost_that_is_not_zero_is_never_shown_as_zero(amount, shown, cell, cap):
    assert (dollars(amount), dollars(amount, sign=""), usd(amount)) == (shown, cell, cap)
