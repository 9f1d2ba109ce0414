"""The Task contract: required methods checked once; optional capabilities checked per graph.

A user's task is refused with one line before any model call when it lacks a method every run
needs, or a capability its graph needs (a reference for `ground_truth`, a split reader for a
model split, a score reader for a model scorer). Without the optional ones it runs the rest.
"""

from __future__ import annotations

from typing import Any

import pytest

import thoughtgraph
from thoughtgraph import Graph, Op
from thoughtgraph.errors import GraphError, UnknownNameError
from thoughtgraph.tasks import SortingTask, check_task, get_task
from thoughtgraph.tasks.base import REQUIRED_METHODS, Task

NUMBERS = [5, 3, 8, 1, 9, 2, 7, 4, 6, 0, 3, 5, 1, 8, 2, 9]


class FiveMethods:
    """What the old check let through: it crashed mid-run on `default_parts`."""

    name = "five"

    def parse_input(self, raw: Any) -> Any:
        return raw

    def describe(self, problem: Any) -> str:
        return "sort"

    def format(self) -> str:
        return "a list"

    def parse(self, text: str) -> Any:
        return text

    def score(self, problem: Any, content: Any) -> Any:
        return None


class Duck:
    """A task written from scratch, not a BaseTask: the required methods and nothing else."""

    name = "duck"

    def __init__(self) -> None:
        self._sorting = SortingTask()

    def __getattr__(self, method: str) -> Any:
        if method in REQUIRED_METHODS:
            return getattr(self._sorting, method)
        raise AttributeError(method)


class Counted:
    """A model that must not be called (it counts, and answers with a sorted list)."""

    name = "counted"
    simulated = False

    def __init__(self) -> None:
        self.prompts: list[str] = []

    async def complete(self, prompt: str, n: int = 1) -> list[Any]:
        from thoughtgraph.models.base import Completion

        self.prompts.append(prompt)
        return [Completion(str(sorted(NUMBERS)))] * n


def test_a_task_lacking_required_methods_is_refused_in_one_line_before_any_call() -> None:
    model = Counted()
    with pytest.raises(UnknownNameError) as caught:
        thoughtgraph.solve(FiveMethods(), NUMBERS, model=model)
    message = str(caught.value)
    assert "\n" not in message and model.prompts == []
    assert message.startswith("not a task: FiveMethods lacks default_parts, split, join, render")
    assert "score_unparsed" in message and "BaseTask" in message


def test_a_task_without_a_name_is_refused() -> None:
    class Nameless(Duck):
        name = None  # type: ignore[assignment]

    with pytest.raises(UnknownNameError, match="lacks name"):
        get_task(Nameless())


def test_every_required_method_is_in_the_protocol() -> None:
    assert all(callable(getattr(Task, method, None)) for method in REQUIRED_METHODS)
    assert check_task(Duck()).name == "duck"


def test_a_task_from_scratch_keeps_its_own_hooks_and_gets_the_defaults_for_the_rest() -> None:
    from thoughtgraph.tasks.base import OPTIONAL_HOOKS, HasReference, ModelSplit

    class Solver(Duck):
        score_name = "misplaced numbers"

        def reference(self, problem: Any) -> Any:
            return sorted(problem)

    task = check_task(Solver())
    assert task.score_name == "misplaced numbers" and task.part_size == 8
    assert task.unchecked([2, 1]) is None and task.brief([2, 1]) == "[2, 1]"
    assert isinstance(task, HasReference) and task.reference([2, 1]) == [1, 2]
    assert not isinstance(task, ModelSplit)  # a capability only when the object has it
    assert check_task(task) is task  # checked once: a checked task is itself
    assert {"score_name", "parse_reply", "reference", "matches_reference"} <= set(OPTIONAL_HOOKS)


def test_a_task_with_only_the_required_methods_runs_the_spec_pattern() -> None:
    result = thoughtgraph.solve(Duck(), NUMBERS, model="sim:error=0,latency=0")
    assert result.clean and result.output == sorted(NUMBERS)


def graph(*ops: dict[str, Any]) -> Graph:
    return Graph(ops=tuple(Op(**op) for op in ops))


@pytest.mark.parametrize(
    ("ops", "needs"),
    [
        (
            [
                {"id": "answer", "kind": "generate"},
                {"id": "truth", "kind": "ground_truth", "inputs": ("answer",)},
            ],
            "op 'truth': a ground_truth op here needs a reference solver (reference)",
        ),
        (
            [
                {"id": "cut", "kind": "split", "params": {"parts": 2, "by": "model"}},
                {"id": "answer", "kind": "generate", "inputs": ("cut",)},
            ],
            "op 'cut': a split op here needs a reader for the model's split (parse_split)",
        ),
        (
            [
                {"id": "answer", "kind": "generate"},
                {
                    "id": "rate",
                    "kind": "score",
                    "inputs": ("answer",),
                    "params": {"scorer": "model"},
                },
            ],
            "op 'rate': a score op here needs a reader for the model's score (parse_score)",
        ),
    ],
    ids=["reference", "model-split", "model-score"],
)
def test_a_capability_the_graph_needs_and_the_task_lacks_is_refused_before_any_call(
    ops: list[dict[str, Any]], needs: str
) -> None:
    model = Counted()
    with pytest.raises(GraphError) as caught:
        thoughtgraph.solve(Duck(), NUMBERS, model=model, graph=graph(*ops))
    assert str(caught.value) == f"{needs}, which task 'duck' lacks"
    assert model.prompts == []


def test_the_same_graphs_run_for_a_task_that_has_the_capabilities() -> None:
    ops = [
        {"id": "answer", "kind": "generate"},
        {"id": "truth", "kind": "ground_truth", "inputs": ("answer",)},
    ]
    result = thoughtgraph.solve("sorting", NUMBERS, model=Counted(), graph=graph(*ops))
    assert result.clean and result.final.solved is True


def test_validation_without_a_validate_method_accepts_a_perfect_score() -> None:
    answers = iter(["[1, 0]", str(sorted(NUMBERS))])

    def model(prompt: str) -> str:
        return next(answers)

    ops = [
        {"id": "answer", "kind": "generate"},
        {"id": "check", "kind": "validate_and_improve", "inputs": ("answer",)},
    ]
    result = thoughtgraph.solve(Duck(), NUMBERS, model=model, graph=graph(*ops))
    assert result.clean and result.output == sorted(NUMBERS)
    first = result.state.thoughts["answer:0.1"]
    assert first.validated and not first.valid and first.score is not None
    assert result.final.validated and result.final.valid and result.final.score.perfect


class Words(thoughtgraph.BaseTask):
    """A user's task on `BaseTask` that defines no optional capability."""

    name = "words"

    def describe(self, problem: Any) -> str:
        return "sort these words"

    def format(self) -> str:
        return "a list"

    def parse(self, text: str) -> Any:
        return text.split()

    def score(self, problem: Any, content: Any) -> thoughtgraph.Score:
        return thoughtgraph.Score(float(content != sorted(problem)))


@pytest.mark.parametrize(
    ("capability", "params"),
    [
        ("parse_split", {"id": "cut", "kind": "split", "params": {"parts": 2, "by": "model"}}),
        ("parse_score", {"id": "cut", "kind": "score", "params": {"scorer": "model"}}),
    ],
)
def test_a_base_task_without_the_capability_is_refused_before_any_request(
    capability: str, params: dict[str, Any]
) -> None:
    from thoughtgraph.testing import ScriptedModel

    model = ScriptedModel(lambda prompt, n: "b a")
    ops = [{"id": "answer", "kind": "generate"}, {**params, "inputs": ("answer",)}]
    if params["kind"] == "split":
        ops = [params, {"id": "answer", "kind": "generate", "inputs": ("cut",)}]
    assert not hasattr(Words(), capability)
    with pytest.raises(GraphError, match=rf"\({capability}\), which task 'words' lacks"):
        thoughtgraph.solve(Words(), ["b", "a", "c"], model=model, graph=graph(*ops))
    assert model.prompts == []  # not one request paid


def test_a_base_task_has_only_the_capabilities_its_class_defines() -> None:
    from thoughtgraph.tasks.base import (
        FewShotPrompts,
        FirstNumberScore,
        ModelScore,
        ModelSplit,
        Validates,
    )

    for capability in (FewShotPrompts, ModelSplit, ModelScore, Validates):
        assert not isinstance(Words(), capability)

    class Scored(FirstNumberScore, Words):
        pass

    assert isinstance(Scored(), ModelScore) and Scored().parse_score("about 7.5 of 10") == 7.5
