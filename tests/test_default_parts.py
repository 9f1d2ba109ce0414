"""One default, one graph: `solve --scheme got` and eval's `got` row split a problem into the
same parts, a task file's `split.parts` included (eval once ignored it and took `part_size`'s
parts, so the two commands ran different graphs under one name)."""

from __future__ import annotations

from pathlib import Path

import pytest

from thoughtgraph.engine.graph import Graph
from thoughtgraph.schemes import variants
from thoughtgraph.solving.solve import prepare
from thoughtgraph.tasks import get_task

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
