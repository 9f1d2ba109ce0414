"""Tune measures a --data row as eval does: its errors are not clipped at the row's count of
units, and "solved" compares the answer by the task's own rules (a task file's case and order),
not by Python equality."""

from __future__ import annotations

import json
from pathlib import Path

from thoughtgraph import solve
from thoughtgraph.tasks import get_task
from thoughtgraph.tuning.jobs import Setup, _measure

TASK = str(Path(__file__).resolve().parent.parent / "examples" / "people" / "task.yaml")
ROW = json.loads((Path(TASK).parent / "data.jsonl").read_text().splitlines()[0])


def measured(answer: list[str], **setup: object) -> dict:
    get_task(TASK)
    result = solve(TASK, ROW["input"], lambda prompt: json.dumps(answer), scheme="io",
                   reference=ROW["reference"])  # fmt: skip
    return _measure(Setup(task="people", size=4, model_spec="py", task_spec=TASK, **setup),
                    result, ROW["reference"])  # fmt: skip


def test_a_data_rows_errors_are_not_clipped_at_its_units():
    invented = [f"Person Number{i}" for i in range(12)]
    assert measured(invented, from_data=True)["error"] >= 12  # 12 invented + the names missed
    assert measured(invented)["error"] == 4  # a built-in dataset: clipped at the size


def test_solved_follows_the_tasks_rules_not_python_equality():
    reordered = [name.upper() for name in reversed(ROW["reference"])]
    assert reordered != ROW["reference"]
    assert measured(reordered, from_data=True)["solved"] is True
    assert measured(reordered[1:], from_data=True)["solved"] is False
