"""Your problems, one a row: `--data FILE` as JSON Lines, CSV or a JSON list.

Each row is one problem: its `input` (or the column `input_column` names), an optional `id`
(default: the row number) and an optional `reference` (the expected answer; empty or null: none).
The format is the file's extension (.jsonl/.ndjson, .csv, .json). The whole file is read and
checked before anything runs, bounded by `io.bounds`; every bad row is one `InputError` line
naming the file and the row (`data.jsonl row 7: no "input"`). Rows count from 1: a JSON Lines
row is its line, a CSV row is its data row (the header is not one), a JSON list row its item.
What the input and the reference mean is the task's to say (`evaluate.datasets.load_data`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from thoughtgraph.errors import InputError
from thoughtgraph.io.bounds import MAX_DATA_FILE_BYTES, MAX_DATA_ROWS, read_file
from thoughtgraph.io.strictload import RefusedDocument, read_json

FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".json": "json"}
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")  # an id names trace files: kept plain
MAX_ID = 10**12
# "7" is the id 7 (a CSV cell and a JSON number name one row); "007" or "02139" stays as written
_WHOLE = re.compile(r"^(?:0|[1-9][0-9]*)$")


@dataclass(frozen=True)
class DataRow:
    """One problem of a data file, as written (`reference` None: the row has none)."""

    row: int
    id: int | str
    input: Any
    reference: Any


@dataclass(frozen=True)
class DataFile:
    path: Path
    rows: tuple[DataRow, ...]
    sha256: str  # of the file's text: a resumed evaluation refuses a changed file
    columns: tuple[str, ...] = ()  # every column (key) the rows have, in order of appearance

    @property
    def name(self) -> str:
        return self.path.name


def read_data(path: str | Path, input_column: str = "input") -> DataFile:
    """Every row of a data file, checked; one error line for the first bad one."""
    path = Path(path)
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise InputError(
            f"data file {path}: unknown format {path.suffix or '(no extension)'!r} "
            "(use .jsonl, .csv or .json)"
        )
    if not input_column or input_column in ("id", "reference"):
        raise InputError(f"--input-column must name the input's column, got {input_column!r}")
    text = read_file(path, MAX_DATA_FILE_BYTES, "data file")
    raw = {"jsonl": _jsonl, "csv": _csv, "json": _json_list}[kind](text, path.name)
    if not raw:
        raise InputError(f"data file {path} holds no rows")
    rows = _checked(raw, path.name, input_column)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return DataFile(path, rows, digest, _columns(raw))


def read_records(records: object, name: str = "rows", input_column: str = "input") -> DataFile:
    """Rows given in memory (a list of mappings, as `thoughtgraph.evaluate` takes them), checked
    as a file's rows are; `name` stands for the file's name in errors and summaries."""
    if isinstance(records, str | bytes | dict) or not hasattr(records, "__iter__"):
        raise InputError(
            "data must be a data file, a built-in dataset name or a list of rows, got "
            f"{type(records).__name__}"
        )
    raw = []
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict):
            raise InputError(f'{name} row {number}: not a mapping (give {{"input": ...}})')
        raw.append((number, record))
    if not raw:
        raise InputError(f"{name} holds no rows")
    rows = _checked(raw, name, input_column)
    try:
        text = json.dumps([r for _n, r in raw], sort_keys=True, default=repr)
    except (TypeError, ValueError):
        text = repr([r for _n, r in raw])
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return DataFile(Path(name), rows, digest, _columns(raw))


def _columns(raw: list[tuple[int, dict[str, Any]]]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(str(key) for _number, record in raw for key in record))


def _checked(
    raw: list[tuple[int, dict[str, Any]]], name: str, input_column: str
) -> tuple[DataRow, ...]:
    """Each raw row as a `DataRow`: its input there, its id its own, its reference or None."""
    if len(raw) > MAX_DATA_ROWS:
        raise InputError(f"{name} has {len(raw):,} rows; the most is {MAX_DATA_ROWS:,}")
    rows: list[DataRow] = []
    seen: dict[int | str, int] = {}
    for number, record in raw:
        where = f"{name} row {number}"
        value = record.get(input_column)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise InputError(f'{where}: no "{input_column}"')
        row_id = _row_id(record.get("id"), number, where)
        if row_id in seen:
            raise InputError(f"{where}: id {row_id!r} is also row {seen[row_id]}'s")
        seen[row_id] = number
        reference = record.get("reference")
        if isinstance(reference, str) and not reference.strip():
            reference = None
        rows.append(DataRow(number, row_id, value, reference))
    return tuple(rows)


def _row_id(value: object, number: int, where: str) -> int | str:
    """The row's id: a whole number or a plain name (letters, digits, . _ -); default its row."""
    if value is None or value == "":
        return number
    if isinstance(value, bool | float | dict | list):
        raise InputError(f'{where}: "id" must be a whole number or a name, got {value!r}'[:200])
    if isinstance(value, int) or (isinstance(value, str) and _WHOLE.match(value.strip())):
        whole = int(value)
        if not 0 <= whole < MAX_ID:
            raise InputError(f'{where}: "id" must be from 0 to {MAX_ID - 1}, got {whole}')
        return whole
    text = str(value).strip()
    if not _ID.match(text):
        raise InputError(
            f'{where}: "id" {text[:80]!r} must be letters, digits, ".", "_" or "-" '
            "(at most 64, starting with a letter or digit)"
        )
    return text


def _loads(text: str, where: str, *, at_line: bool = False) -> Any:
    """The JSON value of `text`; one `InputError` naming `where` when it is none."""
    try:
        return read_json(text)
    except json.JSONDecodeError as exc:
        line = f" at line {exc.lineno}" if at_line else ""
        raise InputError(f"{where}: not valid JSON ({exc.msg}{line})") from None
    except RefusedDocument as exc:  # nested too deeply, a number too long
        raise InputError(f"{where}: {exc}") from None


def _jsonl(text: str, name: str) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        record = _loads(line, f"{name} row {number}")
        if not isinstance(record, dict):
            raise InputError(f'{name} row {number}: not a JSON object (give {{"input": ...}})')
        rows.append((number, record))
    return rows


def _json_list(text: str, name: str) -> list[tuple[int, dict[str, Any]]]:
    data = _loads(text, name, at_line=True)
    if not isinstance(data, list):
        raise InputError(f'{name}: not a JSON list of rows (give [{{"input": ...}}, ...])')
    rows = []
    for number, record in enumerate(data, start=1):
        if not isinstance(record, dict):
            raise InputError(f'{name} row {number}: not a JSON object (give {{"input": ...}})')
        rows.append((number, record))
    return rows


def _csv(text: str, name: str) -> list[tuple[int, dict[str, Any]]]:
    # a cell may be a whole document: the csv module's default limit (128 KiB a cell) refused
    # one as "not valid CSV"; the file's own bound is the limit (the setting is per process)
    csv.field_size_limit(max(csv.field_size_limit(), MAX_DATA_FILE_BYTES))
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            return []
        header = [h.strip() for h in header]
        if len(header) == 1 and (sep := next((c for c in ";\t|" if c in header[0]), None)):
            raise InputError(
                f"{name}: the header is one column, {header[0][:60]!r}: separate the columns "
                f"with commas, not {'tabs' if sep == chr(9) else repr(sep)}"
            )
        duplicated = sorted({h for h in header if header.count(h) > 1 and h})
        if duplicated:
            raise InputError(f"{name}: column {duplicated[0]!r} appears twice in the header")
        rows = []
        for number, cells in enumerate(reader, start=1):
            if not any(c.strip() for c in cells):
                continue
            if len(cells) > len(header):
                raise InputError(
                    f"{name} row {number}: {len(cells)} cells, but the header has {len(header)}"
                )
            rows.append((number, {h: c for h, c in zip(header, cells, strict=False) if h}))
    except csv.Error as exc:
        raise InputError(f"{name}: not valid CSV ({exc})") from None
    return rows
