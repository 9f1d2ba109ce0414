"""Explicit shared limits: a `ConcurrencyLimiter` is shared only when callers share it (an
evaluation's pairs do), and the BFS order is its own option, not a side effect of
`concurrency=1`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import thoughtgraph
from thoughtgraph.engine.executor import execute
from thoughtgraph.engine.options import RunOptions
from thoughtgraph.errors import InputError
from thoughtgraph.evaluation.runner import plan, run_pairs
from thoughtgraph.events import Event, OpFinished, OpStarted
from thoughtgraph.models.limits import ConcurrencyLimiter
from thoughtgraph.schemes import got
from thoughtgraph.tasks import SortingTask
from thoughtgraph.testing import ScriptedModel

from .conftest import INPUT_32

PROBLEM = list(range(64, 0, -1))


def peak_of_two_runs(limiters: list[ConcurrencyLimiter]) -> int:
    model = ScriptedModel(delay=0.02)

    async def both() -> None:
        await asyncio.gather(
            *(thoughtgraph.asolve("sorting", PROBLEM, model=model, parts=8, limiter=limiter)
              for limiter in limiters)
        )  # fmt: skip

    asyncio.run(both())
    return model.max_in_flight


def test_runs_handed_one_limiter_keep_one_cap_together() -> None:
    shared = ConcurrencyLimiter(3)
    assert peak_of_two_runs([shared, shared]) == 3


def test_runs_with_their_own_limiters_do_not_share_a_cap() -> None:
    """No hidden registry by model name: two runs of the same model, each with its own cap."""
    assert peak_of_two_runs([ConcurrencyLimiter(3), ConcurrencyLimiter(3)]) == 6


def test_an_evaluation_shares_one_limiter_across_its_pairs(tmp_path: Path) -> None:
    model = ScriptedModel(delay=0.02)
    the_plan = plan("sorting", 32, ["io", "got"], 2)
    asyncio.run(run_pairs(the_plan, model, tmp_path, RunOptions(concurrency=2), parallel=4))
    assert model.max_in_flight == 2


def test_a_limiter_refuses_a_bad_limit() -> None:
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="whole number >= 1"):
            ConcurrencyLimiter(bad)  # type: ignore[arg-type]


def most_ops_running(concurrency: int, order: str) -> tuple[int, list[str]]:
    running: set[str] = set()
    most = 0
    started: list[str] = []

    def on_event(event: Event) -> None:
        nonlocal most
        match event:
            case OpStarted(op_id=op_id):
                running.add(op_id)
                started.append(op_id)
                most = max(most, len(running))
            case OpFinished(op_id=op_id):
                running.discard(op_id)

    graph = got(parts=4)
    model = ScriptedModel(delay=0.01)
    asyncio.run(
        execute(graph, SortingTask(), INPUT_32, model, concurrency=concurrency,
                on_event=on_event, order=order)
    )  # fmt: skip
    return most, started


def test_bfs_is_its_own_order_at_any_concurrency() -> None:
    most, started = most_ops_running(16, "bfs")
    assert most == 1 and started == got(parts=4).bfs_order()


def test_eager_at_concurrency_one_still_overlaps_ops() -> None:
    """`concurrency=1` caps the calls in flight; with order "eager" the ops still start as soon
    as their inputs are done (they wait for the one slot, not for each other)."""
    most, _started = most_ops_running(1, "eager")
    assert most > 1


def test_auto_is_bfs_at_concurrency_one_and_eager_above() -> None:
    assert most_ops_running(1, "auto")[0] == 1
    assert most_ops_running(16, "auto")[0] > 1


def test_a_bad_order_is_one_error_line() -> None:
    with pytest.raises(InputError, match=r"^order must be one of auto, eager, bfs, got 'dfs'$"):
        thoughtgraph.solve("sorting", [2, 1], order="dfs")


def test_an_endpoint_object_owns_its_in_flight_limit_and_n_memory() -> None:
    """One `Endpoint` per base URL holds what was learned about it; no module-level tables."""
    from thoughtgraph.models import inflight
    from thoughtgraph.models.openai import OpenAIModel

    inflight.forget_endpoints()
    a = OpenAIModel("m", base_url="http://127.0.0.1:9/v1", max_in_flight=2)
    b = OpenAIModel("other", base_url="http://127.0.0.1:9/v1")
    elsewhere = OpenAIModel("m", base_url="http://127.0.0.1:10/v1")
    assert a.endpoint is b.endpoint and a.endpoint is not elsewhere.endpoint
    assert (b.endpoint.limit, elsewhere.endpoint.limit) == (2, None)
    a.endpoint.forget_n("m")
    assert not a.n_honoured and b.n_honoured and elsewhere.n_honoured  # per model, per URL
    inflight.forget_endpoints()
    assert a.n_honoured and a.endpoint.limit is None
