"""The documented limits on what thoughtgraph reads, and bounded readers that enforce them.

Why: a problem file, a graph file or a trace is read whole before any model call. Without a
bound, `--input-file /dev/zero` reads until memory runs out, a FIFO with no writer blocks
forever, and a 10^7-item problem builds a graph for minutes. Each limit is refused with one
`error:` line naming it (README "Limits").
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TextIO

from thoughtgraph.errors import InputError

MIB = 1024 * 1024
MAX_INPUT_BYTES = 8 * MIB  # --input, --input-file, stdin
MAX_GRAPH_FILE_BYTES = 4 * MIB  # --graph
MAX_TASK_FILE_BYTES = 1 * MIB  # a task file (.yaml, .yml, .toml)
MAX_DATA_FILE_BYTES = 64 * MIB  # --data
MAX_DATA_ROWS = 100_000  # problems of one --data file
MAX_TRACE_BYTES = 256 * MIB  # trace view
MAX_RUN_FILE_BYTES = 256 * MIB  # an eval folder's results.jsonl, manifest, unrecorded spend
MAX_ITEMS = 100_000  # items of one problem, and `graph --size`: the graph is built in seconds
MAX_SIM_LATENCY = 600.0  # seconds per simulated call (`sim:latency=`)
# Characters of one answer a trace keeps (the answer cache keeps the whole answer): a run's
# trace stays well under MAX_TRACE_BYTES, so `trace view` opens every trace we write.
MAX_TRACE_TEXT = 64 * 1024


def clip_text(text: str, limit: int = MAX_TRACE_TEXT) -> str:
    """`text`, or its first `limit` characters and a note of how many more there were."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit:,} more characters not kept in the trace]"


def check_length(text: str, limit: int, what: str) -> None:
    """Refuse a text already in memory (e.g. `--input`) past `limit`."""
    if len(text) > limit:
        raise InputError(f"{what} is larger than {_size(limit)}, the most thoughtgraph reads")


def read_bounded(stream: TextIO, limit: int, what: str) -> str:
    """At most `limit` bytes' worth of characters from an open text stream, else one error.

    Reads in chunks, so an endless source (/dev/zero, `yes |`) is refused after `limit`."""
    chunks: list[str] = []
    total = 0
    while True:
        chunk = stream.read(64 * 1024)
        if not chunk:
            return "".join(chunks)
        total += len(chunk)
        if total > limit:
            raise InputError(f"{what} is larger than {_size(limit)}, the most thoughtgraph reads")
        chunks.append(chunk)


def read_file(path: str | Path, limit: int, what: str, *, regular_only: bool = True) -> str:
    """The UTF-8 text of a file of at most `limit` bytes; one `InputError` for anything else.
    A leading byte-order mark (Excel, Notepad) is dropped: it is no part of the text, and left
    in it renamed a CSV's first column and made JSON and TOML unreadable.

    `regular_only` refuses FIFOs, devices and sockets before opening them (opening a FIFO with no
    writer blocks for ever)."""
    path = Path(path)
    try:
        info = os.stat(path)
        if regular_only and not stat.S_ISREG(info.st_mode):
            raise InputError(f"cannot read {what} {path}: not a regular file")
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            raise InputError(
                f"{what} {path} is larger than {_size(limit)}, the most thoughtgraph reads"
            )
        with path.open(encoding="utf-8-sig") as stream:
            return read_bounded(stream, limit, f"{what} {path}")
    except UnicodeDecodeError:
        raise InputError(f"cannot read {what} {path}: not UTF-8 text") from None
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None


def check_items(count: int, what: str = "the input") -> None:
    """Refuse a problem (or `graph --size`) past MAX_ITEMS before a graph is built for it."""
    if count > MAX_ITEMS:
        raise InputError(f"{what} has {count:,} items; the most is {MAX_ITEMS:,}")


def _size(limit: int) -> str:
    if limit % MIB == 0:
        return f"{limit // MIB} MB"
    return f"{limit:,} byte{'s' if limit != 1 else ''}"
