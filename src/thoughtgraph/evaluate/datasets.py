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
from typing import Any

from thoughtgraph.errors import InputError, UnknownNameError

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
    id: int
    input: Any
    reference: Any


def dataset_task(name: str) -> str:
    if name not in DATASETS:
        raise UnknownNameError(f"unknown dataset {name!r} (known: {', '.join(DATASETS)})")
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
