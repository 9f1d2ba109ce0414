"""The trace file: one run as versioned JSON, written in one shape and read by one reader.

The writer is `engine/trace.py` (`state_dict`: the run state; `trace_dict` / `write_trace`: the
state plus the result summary, what `solve --trace` writes and the viewer draws). Every trace
starts with `"trace_version"`.

Reader: `read_trace(path)` (a file) and `upgrade(data)` (parsed JSON). `RunState.load`,
`RunState.from_dict`, `thoughtgraph trace view` and `viewer.load_trace` all go through them, so
every reader accepts and refuses the same files, each refusal one `InputError` line.

Versions:
- 0: traces written before the version field (no `trace_version`). The layout is version 1's
  minus fields added since, which read with their defaults, so they are read as version 1.
- 1: `trace_version: 1`.
A trace from a newer thoughtgraph (a higher version) is refused: its fields may mean other
things, and guessing would show a wrong run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from thoughtgraph.errors import InputError, shown
from thoughtgraph.io.bounds import MAX_TRACE_BYTES, read_file
from thoughtgraph.io.strictload import TooDeepError, read_json

TRACE_VERSION = 1
VERSION_KEY = "trace_version"


def read_trace(path: str | Path) -> dict[str, Any]:
    """Read a trace file (any version this thoughtgraph reads), as the current version."""
    text = read_file(path, MAX_TRACE_BYTES, "trace")  # refuses a FIFO, a device, a huge file
    try:
        data = read_json(text)
    except TooDeepError:
        raise InputError(f"{path} is not a thoughtgraph trace (nested too deeply)") from None
    except ValueError as exc:  # not JSON, a number too long
        raise InputError(f"trace {path} is not valid JSON: {exc}") from None
    return upgrade(data, str(path))


def upgrade(data: object, where: str = "the trace") -> dict[str, Any]:
    """Parsed trace JSON -> a trace of the current version, or one `InputError` line saying why
    it cannot be read."""
    if not isinstance(data, dict) or not isinstance(data.get("thoughts"), list):
        raise InputError(f"{where} is not a thoughtgraph trace (no 'thoughts' list)")
    version = data.get(VERSION_KEY, 0)
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise InputError(f"{where} has an unknown trace version {shown(version)}")
    if version > TRACE_VERSION:
        raise InputError(
            f"{where} is a version {version} trace, written by a newer thoughtgraph; this one "
            f"reads versions up to {TRACE_VERSION}: upgrade thoughtgraph to read it"
        )
    problem = _shape_problem(data)
    if problem:
        raise InputError(f"{where} is not a thoughtgraph trace ({problem})")
    # version 0 -> 1: only the version field is new; fields added since read with defaults
    return {VERSION_KEY: TRACE_VERSION, **data} if version < TRACE_VERSION else data


def _shape_problem(data: dict[str, Any]) -> str | None:
    """What makes a parsed trace unusable (a file of the wrong shape would draw nothing)."""
    for key in ("thoughts", "calls", "ops"):
        items = data.get(key, [])
        if not isinstance(items, list):
            return f"'{key}' is not a list"
        for number, item in enumerate(items, start=1):
            if not isinstance(item, dict) or "id" not in item:
                return f"'{key}' item {number} is not an object with an 'id'"
            if not isinstance(item["id"], str):  # ids are keys and labels: text only
                return f"'{key}' item {number} has an 'id' that is not text"
    for key in ("result", "graph"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            return f"'{key}' is not an object"
    return None
