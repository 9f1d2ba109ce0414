"""Graph preparation is done once per graph shape, not per sample: `schemes.build` returns the
graph it built before for the same builder and settings, and `check_graph` checks what does not
depend on the problem once per graph and task, so every later sample checks only its problem.
Each cached step must still refuse exactly what the full one refuses."""

from __future__ import annotations

from typing import Any

import pytest

from thoughtgraph import schemes, solve
from thoughtgraph.engine.graph import Graph
from thoughtgraph.errors import GraphError
from thoughtgraph.solving import solve as api
from thoughtgraph.solving.solve import check_graph, prepare
from thoughtgraph.tasks import SortingTask, get_task
from thoughtgraph.tasks.base import REQUIRED_METHODS
from thoughtgraph.testing import ScriptedModel


def test_the_same_settings_build_one_graph_and_other_settings_another() -> None:
    first = schemes.build("got_paper", "sorting", 64)
    assert schemes.build("got_paper", "sorting", 64) is first
    assert schemes.build("got_paper", SortingTask(), 64) is first  # the same settings
    other = schemes.build("got_paper", "sorting", 32)
    assert other is not first and len(other.ops) < len(first.ops)
    assert schemes.build("got", "sorting", 64, parts=4) is not schemes.build("got", "sorting", 64)
    # 1 and True are equal keys but not equal settings
    assert schemes.build("got", "sorting", 16, max_refines=1) is not schemes.build(
        "got", "sorting", 16, max_refines=True
    )


def test_a_big_graph_is_built_anew_each_time() -> None:
    big = schemes.build("got", "sorting", 20_000)  # 7,500 ops: above what is kept
    assert len(big.ops) > 5_000
    assert schemes.build("got", "sorting", 20_000) is not big


def test_samples_share_a_graph_and_check_their_own_problem() -> None:
    one = prepare("sorting", list(range(32, 0, -1)), scheme="got_paper")
    again = prepare("sorting", list(range(31, -1, -1)), scheme="got_paper")
    other = prepare("sorting", list(range(32, 0, -1)), scheme="got_paper", parts=4)
    assert again.graph is one.graph and other.graph is not one.graph
    # the graph of 32 numbers in 2 parts, checked once, then given a problem of 1 number
    with pytest.raises(GraphError, match=r"op 'split': .*cannot exceed"):
        check_graph(one.graph, SortingTask(), [1])


def test_the_checks_that_passed_once_are_not_run_again(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = schemes.build("got", "sorting", 24)
    check_graph(graph, SortingTask(), list(range(24)))
    calls = []
    monkeypatch.setattr(api, "template_for", lambda *args: calls.append(args))
    check_graph(graph, SortingTask(), list(range(24, 48)))  # a new object of the same task
    assert calls == []


class Duck:
    """A sorting task written from scratch: the required methods and no capability (no reader
    for a model's split, no reference solver)."""

    name = "duck"

    def __init__(self) -> None:
        self._sorting = SortingTask()

    def __getattr__(self, method: str) -> Any:
        if method in REQUIRED_METHODS:
            return getattr(self._sorting, method)
        raise AttributeError(method)


def test_a_graph_checked_for_one_task_is_checked_again_for_another() -> None:
    graph = schemes.build("got_paper", "sorting", 16)  # a model's split, then ground_truth
    check_graph(graph, SortingTask(), list(range(16)))
    with pytest.raises(GraphError, match="a reader for the model's split"):
        check_graph(graph, get_task(Duck()), list(range(16)))
    # a task object holding settings of its own is its own key, checked in full
    task = SortingTask()
    task.prompts = {}  # none of its own: no split prompt
    with pytest.raises(GraphError, match="has no prompt 'split'"):
        check_graph(graph, task, list(range(16)))


def test_a_graph_with_an_unknown_prompt_is_refused_every_time() -> None:
    graph = Graph.model_validate(
        {"ops": [{"id": "gen", "kind": "generate", "params": {"prompt": "haiku"}}]}
    )
    for _ in range(2):
        model = ScriptedModel()
        with pytest.raises(GraphError, match="op 'gen': task 'sorting' has no prompt 'haiku'"):
            solve("sorting", [3, 1, 2], model=model, graph=graph)
        assert model.prompts == []
