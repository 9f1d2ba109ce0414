"""One default, one graph: `solve --scheme got` and eval's `got` row split a problem into the
same parts, a task file's `split.parts` included (eval once ignored it and took `part_size`'s
parts, so the two commands ran different graphs under one name)."""

from __future__ import annotations

from pathlib import Path

import pytest

from thoughtgraph.engine.graph import Graph
from thoughtgraph.evaluation.datasets import load_data
from thoughtgraph.evaluation.fingerprint import of_graph
from thoughtgraph.evaluation.runner import judged, pair_fingerprints, plan
from thoughtgraph.schemes import variants
from thoughtgraph.sim.model import SimulatedModel
from thoughtgraph.solving.solve import prepare
from thoughtgraph.tasks import SortingTask, get_task

TASK = """
name: listed
description: List the numbers given, in the order given.
answer:
  type: integers
split:
  by: items
{split}
join: concatenate
score:
  by: reference
"""


def parts_of(graph: Graph) -> int:
    """The parts the graph's split cuts the problem into."""
    [split] = [op for op in graph.ops if op.kind == "split"]
    parts: int = split.params.parts  # type: ignore[union-attr]
    return parts


@pytest.mark.parametrize(
    ("split", "size", "expected"),
    [
        ("  parts: 2", 16, 2),  # split.parts: the file's count
        ("  parts: 6", 4, 4),  # never more parts than items
        ("  part_size: 8", 20, 3),  # no count: parts of part_size
        ("", 9, 3),  # the file's default part size (4)
    ],
)
def test_solve_and_evals_got_run_the_same_parts(tmp_path: Path, split, size, expected):
    path = tmp_path / "task.yaml"
    path.write_text(TASK.format(split=split))
    task = get_task(str(path))
    numbers = list(range(size))
    solved = prepare(task, numbers, scheme="got", reference=numbers).graph
    evaluated = variants.parse("got", task.name).build(task, size)
    assert parts_of(solved) == parts_of(evaluated) == expected
    assert solved.model_copy(update={"name": None}).to_json(None) == evaluated.model_copy(
        update={"name": None}
    ).to_json(None)


@pytest.mark.parametrize(("task", "size"), [("sorting", 32), ("set-intersection", 64)])
def test_built_in_tasks_take_their_part_size_in_both(task, size):
    the_task = get_task(task)
    problem = the_task.parse_input(_input(task, size))
    solved = prepare(task, _input(task, size), scheme="got").graph
    evaluated = variants.parse("got", task).build(the_task, size)
    assert parts_of(solved) == parts_of(evaluated) == the_task.default_parts(problem)


def _input(task: str, size: int) -> object:
    if task == "sorting":
        return [i % 10 for i in range(size)]
    return {"set1": list(range(size)), "set2": list(range(0, 2 * size, 2))}


class Halves(SortingTask):
    """A user's task that counts its parts its own way (a duck-typed task must define
    `default_parts`): always two, whatever the part size says."""

    name = "halves"

    def default_parts(self, problem: list[int]) -> int:
        return 2


@pytest.mark.parametrize("row", ["got", "got_adaptive", "got:arity=2"])
def test_a_tasks_own_default_parts_are_evals_as_solves(row):
    """eval and tune's default candidate build a row's graph with the task's own
    `default_parts` for the sample, as solve does: before, eval took the part size's parts
    (4 of 8 items here) where solve ran 2, and the fingerprint said so too."""
    numbers = [i % 10 for i in range(32)]
    data = load_data([{"input": str(numbers), "reference": str(sorted(numbers))}], Halves())
    the_plan = plan(Halves(), 32, [row], 1, data=data)
    [sample] = the_plan.samples
    solved = prepare(Halves(), numbers, scheme=row).graph
    evaluated = the_plan.sample_graph(row, sample)
    assert parts_of(solved) == parts_of(evaluated) == 2
    prints = pair_fingerprints(the_plan, SimulatedModel())
    assert prints[row, sample.id]["graph"] == of_graph(judged(evaluated, the_plan.task))
