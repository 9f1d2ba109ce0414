"""The paper's evaluation sets, shipped with the package (see data/NOTICE.md for their licence).

Each dataset belongs to one task; `load_dataset` reads its CSV into `Sample(id, input,
reference)`, where `input` is already the task's problem (so `len(sample.input)` is the size the
schemes are built for) and `reference` the dataset's answer (None where there is none).
"""

from __future__ import annotations

import ast
import csv
import io
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from thoughtgraph.errors import InputError, UnknownNameError, shown

if TYPE_CHECKING:
    from thoughtgraph.tasks.base import BaseTask, Task

DATASETS = {
    "sorting_008": "sorting",  # the first 8 numbers of each sorting_032 sample
    "sorting_016": "sorting",  # the first 16
    "sorting_032": "sorting",
    "sorting_064": "sorting",
    "sorting_128": "sorting",
    "set_intersection_032": "set-intersection",
    "set_intersection_064": "set-intersection",
    "set_intersection_128": "set-intersection",
    "countries": "keyword-counting",
    "documents": "doc-merge",
}


@dataclass(frozen=True)
class Sample:
    id: int | str  # a built-in dataset's ids are whole numbers; a data file's may be names
    input: Any
    reference: Any
    row: int | None = None  # the row of a data file it came from (for error lines)
    raw: Any = None  # a data row's input as written: what a run parses (`given`)

    @property
    def given(self) -> Any:
        """What a run takes as its input: a data row's input as written (the task parses it
        again), or a built-in dataset's problem."""
        return self.input if self.raw is None else self.raw


@dataclass(frozen=True)
class Data:
    """A data file's problems, read for one task: `--data FILE`."""

    name: str  # the file's name, as summaries show it
    path: str
    sha256: str
    samples: tuple[Sample, ...]


def dataset_task(name: str) -> str:
    if name not in DATASETS:
        raise UnknownNameError(f"unknown dataset {shown(name)} (known: {', '.join(DATASETS)})")
    return DATASETS[name]


def _sorting(row: dict[str, str]) -> Sample:
    return Sample(
        int(row["ID"]), ast.literal_eval(row["Unsorted"]), ast.literal_eval(row["Sorted"])
    )


def _sets(row: dict[str, str]) -> Sample:
    from thoughtgraph.tasks.sets import SetProblem

    problem = SetProblem(tuple(ast.literal_eval(row["SET1"])), tuple(ast.literal_eval(row["SET2"])))
    return Sample(int(row["ID"]), problem, sorted(ast.literal_eval(row["INTERSECTION"])))


def _countries(row: dict[str, str]) -> Sample:
    """`Countries` is the list of mentions in order, written without quotes: `[Peru, Chile]`."""
    from thoughtgraph.tasks.keywords import split_sentences

    mentions = [c.strip() for c in row["Countries"].strip()[1:-1].split(",") if c.strip()]
    return Sample(int(row["ID"]), split_sentences(row["Text"]), dict(Counter(mentions)))


def _documents(row: dict[str, str]) -> Sample:
    documents = tuple(row[f"document{i}"].strip() for i in range(1, 5))
    return Sample(int(row["id"]), documents, None)


_READERS: dict[str, Callable[[dict[str, str]], Sample]] = {
    "sorting": _sorting,
    "set-intersection": _sets,
    "keyword-counting": _countries,
    "doc-merge": _documents,
}


@cache
def load_dataset(name: str) -> tuple[Sample, ...]:
    """All samples of a built-in dataset, in file order."""
    read = _READERS[dataset_task(name)]
    text = (
        resources.files("thoughtgraph").joinpath("data", f"{name}.csv").read_text(encoding="utf-8")
    )
    return tuple(read(row) for row in csv.DictReader(io.StringIO(text, newline="")))


def load_sample(name: str, sample: int) -> Sample:
    samples = load_dataset(name)
    for item in samples:
        if item.id == sample:
            return item
    raise InputError(
        f"dataset {name} has no sample {sample} (ids {samples[0].id}-{samples[-1].id})"
    )


def load_data(path: object, task: str | Task[Any, Any], input_column: str = "input") -> Data:
    """A data file (`io.datafile`) read as problems of `task`: each row's input parsed by the
    task, its reference read as an answer and checked, before anything runs. One `InputError`
    line names the file and row of the first bad one. `path` may also be a list of rows (dicts)
    held in memory."""
    from pathlib import Path

    from thoughtgraph.io.datafile import read_data, read_records
    from thoughtgraph.tasks import get_task

    the_task = get_task(task)
    if isinstance(path, str | Path):
        data = read_data(path, input_column)
    else:
        data = read_records(path, "rows", input_column)
    samples = []
    for row in data.rows:
        where = f"{data.name} row {row.row}"
        problem = read_problem(the_task, row.input, where)
        reference = read_reference(the_task, problem, row.reference, where)
        samples.append(Sample(row.id, problem, reference, row.row, row.input))
    _check_references(the_task, samples, data.name, data.columns)
    return Data(data.name, str(data.path), data.sha256, tuple(samples))


def _check_references(
    task: BaseTask[Any, Any], samples: list[Sample], name: str, columns: tuple[str, ...]
) -> None:
    """A task that scores against each row's reference (a task file `score.by: reference`:
    `unchecked` says what goes unchecked without one) needs it on every row: without it an
    answer is checked only as far as code can, so a wrong one scores clean. No reference at all
    is most often a column under another name (`expected`, `answer`); one row without it, a
    row forgotten. Refused before any request, naming the columns or the row."""
    missing = [s for s in samples if s.reference is None]
    if not missing or task.unchecked(missing[0].input) is None:
        return
    if len(missing) == len(samples):
        others = [c for c in columns if c not in ("id", "input", "reference")]
        raise InputError(
            f'{name}: no row has a "reference", and task {shown(task.name)} is scored against '
            "the row's reference"
            + (
                f" (its columns: {', '.join(columns)}; the reference's column must be "
                'named "reference")'
                if others
                else ""
            )
        )
    raise InputError(
        f'{name} row {missing[0].row}: no "reference", and task {shown(task.name)} is scored '
        "against the row's reference (the other rows have one)"
    )


def read_problem(task: BaseTask[Any, Any], raw: object, where: str) -> Any:
    """A row's input as the task's problem, or one line saying why it cannot be."""
    from thoughtgraph.errors import ThoughtgraphError
    from thoughtgraph.io.bounds import check_items
    from thoughtgraph.io.imports import first_line

    try:
        problem = task.parse_input(raw)
        check_items(len(problem), "the input")
        task.render(problem)
    except ThoughtgraphError as exc:
        raise InputError(f"{where}: {exc}") from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise InputError(f"{where}: the input could not be read: {first_line(exc)}") from None
    return problem


def read_reference(task: BaseTask[Any, Any], problem: object, value: object, where: str) -> Any:
    """A row's reference as an answer of the task (None: the row has none).

    A task that reads references itself (`with_reference(problem, reference)`) checks it;
    otherwise it is read as a model answer is read (`parse`; a JSON value as its JSON text) and
    must score as an answer to the row's problem; on a built-in task whose check is exact (its
    own solver says what is right), it must score perfectly, so a wrong reference is caught here
    rather than counted as a failure of every scheme.
    """
    if value is None:
        return None
    import json

    from thoughtgraph.errors import ThoughtgraphError
    from thoughtgraph.io.imports import first_line
    from thoughtgraph.tasks.base import TakesReference
    from thoughtgraph.tasks.scorer import raised_at

    if isinstance(task, TakesReference):  # the task reads it into the problem (a task file)
        try:
            task.with_reference(problem, value)
        except ThoughtgraphError as exc:
            raise InputError(f'{where}: "reference": {exc}') from None
        return value
    try:
        reference = task.parse(value if isinstance(value, str) else json.dumps(value))
        score = task.score(problem, reference)
    except Exception as exc:
        raise InputError(
            f'{where}: "reference" cannot be read as an answer of {task.name} ({first_line(exc)} '
            f"at {raised_at(exc)})"
        ) from None
    if exact_check(task) and not score.perfect:
        first = f": {score.errors[0]}" if score.errors else ""
        raise InputError(
            f'{where}: "reference" is not a right answer to its input by the task\'s own '
            f"check ({score.value:g} errors{first})"
        )
    return reference


def exact_check(task: BaseTask[Any, Any]) -> bool:
    """Does the task's code score say exactly what is right (the built-in tasks but document
    merging, whose quality the model scores)?"""
    from thoughtgraph.schemes import paper_options
    from thoughtgraph.tasks import TASKS

    scored = bool(paper_options("io", task.name, 1).get("score_samples"))
    return task.name in TASKS and not scored
