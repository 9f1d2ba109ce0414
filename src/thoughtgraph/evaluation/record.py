"""What an eval folder records of how its rows were built, so that tables, figures and `compare`
label each row with what the run itself ran, not with what the task's built-in configuration
would say (a task file's ToT runs k = 5, the defaults say k = 20).

`eval.json` holds it: `rows` maps each row to its builder and the builder's keywords (a graph
file's row: `{"graph": true}`), and `problem_sizes` is `[least, most]` of the sizes of the
problems it ran (a data file's rows differ in length). A keyword whose value differs between
those sizes is recorded as `[least, most]`. A folder written before this record holds neither:
its labels fall back to the task's configuration (`measures.settings`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from thoughtgraph.errors import InputError
from thoughtgraph.schemes import TaskRef, keywords, variants

ROWS = "rows"
PROBLEM_SIZES = "problem_sizes"


@dataclass(frozen=True)
class Built:
    """How one row's graphs were built: `scheme` (the builder) and its keywords, or, for a graph
    file's row, no scheme and no keywords."""

    scheme: str | None
    settings: Mapping[str, object]


GRAPH_FILE = Built(None, {})


def built(row: str, name: str, task: TaskRef, sizes: Iterable[int]) -> Built:
    """The builder and keywords of a scheme's row (a variant's settings included) at `sizes`,
    for the task of that `name` (`task`: the name, or the object the rows are built for)."""
    variant = variants.parse(row, name)
    at_each = [keywords(variant.scheme, variant.settings_for(task, size)) for size in sizes]
    return Built(variant.scheme, _merged(at_each))


def _merged(at_each: Sequence[dict[str, Any]]) -> dict[str, object]:
    """One value per keyword: the value, or `[least, most]` where the sizes gave several (the
    distinct values, sorted, for a keyword that is not a number)."""
    merged: dict[str, object] = {}
    for key in at_each[0] if at_each else ():
        values = list(dict.fromkeys(settings[key] for settings in at_each))
        if len(values) == 1:
            merged[key] = values[0]
        elif all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            merged[key] = [min(values), max(values)]
        else:
            merged[key] = sorted(str(v) for v in values)
    return merged


def rows_built(
    schemes: Sequence[str],
    graph_rows: Iterable[str],
    name: str,
    task: TaskRef,
    sizes: Iterable[int],
) -> dict[str, Built]:
    """Every row of an evaluation: the schemes' builders and keywords at the problem sizes, the
    graph files' rows as such."""
    files = set(graph_rows)
    wanted = sorted(set(sizes))
    return {row: GRAPH_FILE if row in files else built(row, name, task, wanted) for row in schemes}


def to_json(rows: Mapping[str, Built]) -> dict[str, dict[str, object]]:
    """The `rows` of eval.json."""
    return {row: _row_json(b) for row, b in rows.items()}


def _row_json(b: Built) -> dict[str, object]:
    if b.scheme is None:
        return {"graph": True}
    return {"scheme": b.scheme, "settings": dict(b.settings)}


def rows_read(manifest: Mapping[str, Any], where: str) -> dict[str, Built] | None:
    """The rows a manifest records (None: a folder from before the record); one line for a
    record that is not one."""
    found = manifest.get(ROWS)
    if found is None:
        return None
    if not isinstance(found, dict):
        raise InputError(f"{where}: {ROWS!r} is not a mapping of rows")
    rows: dict[str, Built] = {}
    for row, entry in found.items():
        if isinstance(entry, dict) and entry.get("graph") is True:
            rows[row] = GRAPH_FILE
        elif (
            isinstance(entry, dict)
            and isinstance(entry.get("scheme"), str)
            and isinstance(entry.get("settings"), dict)
        ):
            rows[row] = Built(entry["scheme"], entry["settings"])
        else:
            raise InputError(f"{where}: row {row!r} is not a recorded row")
    return rows


def sizes_read(manifest: Mapping[str, Any]) -> tuple[int, int] | None:
    """The least and most problem size a manifest records (None: not recorded)."""
    found = manifest.get(PROBLEM_SIZES)
    if (
        isinstance(found, list)
        and len(found) == 2
        and all(type(v) is int for v in found)
        and found[0] <= found[1]
    ):
        return found[0], found[1]
    return None
