"""Summaries say what happened: improvements are not merges, hops are not seconds, the live
view counts the ops the summary counts, the simulated model refuses tasks it cannot play."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

import thoughtgraph as tg
from thoughtgraph.cli.main import _retries, _summary
from thoughtgraph.cli.progress import LiveView
from thoughtgraph.engine.result import calls_by_op
from thoughtgraph.evaluation.datasets import load_sample
from thoughtgraph.schemes import build
from thoughtgraph.tasks import SortingTask


def test_validate_and_improve_calls_are_improvements_not_merges():
    sample = load_sample("countries", 2)
    result = tg.solve("keyword-counting", sample.input, model="sim", scheme="got_paper")
    improving = {
        op: n
        for op, n in calls_by_op(result.state).items()
        if result.graph.op(op).kind == "validate_and_improve"
    }
    assert improving  # this sample's merges need improving
    notes = _retries(result)
    for op, n in improving.items():
        assert f"{op}: {n} improvement" in notes
        assert f"{op} merged again" not in notes


def test_the_final_line_says_hops_not_latency():
    result = tg.solve("sorting", [3, 1, 2, 5, 4], model="sim:error=0")
    final = next(line for line in _summary(result, "t", None).splitlines() if "final" in line)
    assert f"{result.latency} hops from the input" in final and "latency" not in final


def test_the_live_view_counts_every_op_as_the_summary_does():
    graph = build("got", "sorting", 32)
    view = LiveView(graph, "t", console=Console(file=io.StringIO(), width=200))
    tg.solve("sorting", list(range(32, 0, -1)), model="sim", graph=graph, on_event=view)
    rendered = io.StringIO()
    Console(file=rendered, width=200).print(view._render())
    total = len(graph.ops)
    assert any(op.kind == "select" for op in graph.ops)  # the case that used to disagree
    assert f"{total}/{total} ops done" in rendered.getvalue()


def test_a_big_graphs_live_view_shows_its_first_running_ops_and_counts_without_a_scan():
    """A graph of more than MAX_ROWS ops shows the first running ones in graph order; the done
    count follows the events (a refresh, ten a second beside the run, scanned every op)."""
    from thoughtgraph.cli.progress import MAX_ROWS
    from thoughtgraph.events import OpFinished, OpStarted, OpStatus

    graph = build("got", "sorting", 512)
    view = LiveView(graph, "t", console=Console(file=io.StringIO(), width=200))
    ops = [op for op in graph.ops if op.kind != "select"]
    assert len(ops) > 2 * MAX_ROWS
    started = ops[::-1][: 3 * MAX_ROWS]  # started from the end of the graph
    for op in started:
        view(OpStarted(0.0, op.id, op.kind))
    for op in started[:MAX_ROWS]:  # the first third started finishes (one stopped)
        status = OpStatus.STOPPED if op is started[0] else OpStatus.DONE
        view(OpFinished(0.0, op.id, op.kind, status))
    shown = Console(file=io.StringIO(), width=200)
    shown.print(view._render())
    lines = shown.file.getvalue().splitlines()  # type: ignore[attr-defined]
    running = [op.id for op in ops if op in started[MAX_ROWS:]][:MAX_ROWS]
    assert [line.split()[0] for line in lines[2 : 2 + MAX_ROWS]] == running
    assert f"{MAX_ROWS - 1}/{len(graph.ops)} ops done" in lines[-1]


class ReverseTask(SortingTask):
    """A user's own task: its prompts ask for no built-in job."""

    name = "reverse"

    def describe(self, problem: list[int]) -> str:
        return f"Reverse the order of the following list of {len(problem)} numbers."


def test_the_simulated_model_refuses_a_users_own_task_in_one_line():
    with pytest.raises(tg.InputError) as raised:
        tg.solve(ReverseTask(), [1, 2, 3, 4], model="sim")
    message = str(raised.value)
    assert "simulated model only plays the built-in tasks" in message and "\n" not in message
    assert "'reverse'" in message
    assert tg.solve(ReverseTask(), [1, 2], model=lambda _p: "[2, 1]").text == "[2, 1]"


def test_a_users_task_that_is_sorting_underneath_is_still_played():
    """A task written from scratch whose prompts ask to sort (tests/test_task_contract.py)."""

    class MySort(SortingTask):
        name = "my-sort"

    assert tg.solve(MySort(), [3, 1, 2], model="sim:error=0").output == [1, 2, 3]
