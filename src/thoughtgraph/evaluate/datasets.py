"""The paper's evaluation sets, shipped with the package (see data/NOTICE.md for their licence)."""

from __future__ import annotations

import ast
import csv
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ..errors import InputError, UnknownNameError

DATASETS = {
    "sorting_032": "sorting",
    "sorting_064": "sorting",
    "sorting_128": "sorting",
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


@cache
def load_dataset(name: str) -> tuple[Sample, ...]:
    """All samples of a built-in dataset, in file order."""
    dataset_task(name)
    text = resources.files("thoughtgraph").joinpath("data", f"{name}.csv").read_text()
    rows = csv.DictReader(text.splitlines())
    return tuple(
        Sample(int(row["ID"]), ast.literal_eval(row["Unsorted"]), ast.literal_eval(row["Sorted"]))
        for row in rows
    )


def load_sample(name: str, sample: int) -> Sample:
    samples = load_dataset(name)
    for item in samples:
        if item.id == sample:
            return item
    raise InputError(f"dataset {name} has no sample {sample} (ids {samples[0].id}-{samples[-1].id})")
