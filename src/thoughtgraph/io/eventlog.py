"""Run events as JSON lines: one line per event, written and flushed the moment it happens.

Why a line per event and a flush each time: `tail -f run.jsonl` then follows a run live, and a
run that crashes (or is killed) still leaves its history up to the last event on disk.

    with EventLog.open("run.jsonl") as log:
        thoughtgraph.solve("sorting", numbers, on_event=combine(log, my_handler))

Each line is `{"event": NAME, "time": SECONDS_SINCE_START, "op_id": ..., **the event's other
fields}` (the typed records of `events.py`; `event_record` writes one).

A log that cannot be written (a full disk, `/dev/full`, a closed pipe) never stops the run: the
first failure is kept in `EventLog.error`, later events are dropped, and the caller reports it
once the result is safe (the CLI prints the result, then one `error:` line naming the file).
"""

from __future__ import annotations

import json
import math
import sys
import threading
from collections.abc import Iterator
from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self, TextIO

from thoughtgraph.errors import InputError
from thoughtgraph.events import EVENT_TYPES, Event, EventHandler, RunStarted
from thoughtgraph.io.strictload import read_json

# The fields each event type writes after `event`, `time` and `op_id`, in declaration order.
_FIELDS: dict[type, tuple[str, ...]] = {
    t: tuple(f.name for f in fields(t) if f.name not in ("time", "op_id")) for t in EVENT_TYPES
}


def event_record(event: Event) -> dict[str, Any]:
    """The flat JSON-ready record of one event: its name, time, op (when it has one), then its
    fields in the order its type declares them."""
    record: dict[str, Any] = {"event": event.name, "time": round(event.time, 6)}
    if event.op_id is not None:
        record["op_id"] = event.op_id
    for key in _FIELDS[type(event)]:
        record[key] = getattr(event, key)
    return record


def to_json_line(record: dict[str, Any]) -> str:
    """Strict JSON on one line: NaN and infinities become strings, unknown objects `str()`."""
    try:
        return json.dumps(record, default=str, allow_nan=False, separators=(",", ":"))
    except ValueError:
        return json.dumps(_finite(record), default=str, separators=(",", ":"))


def _finite(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


class EventLog:
    """An event handler (`on_event=`) that writes each event as one flushed JSON line."""

    def __init__(
        self, stream: TextIO, *, owns_stream: bool = False, name: str | None = None
    ) -> None:
        self.stream = stream
        self.owns_stream = owns_stream
        self.name: str = name or str(getattr(stream, "name", "the event log"))
        self.lines = 0
        self.error: str | None = None  # why writing stopped (the run went on without the log)
        self._lock = threading.Lock()  # solve() may run the loop in a helper thread

    @classmethod
    def open(cls, target: str | Path) -> EventLog:
        """`-` is stderr; anything else is a file, created or truncated (one log per run)."""
        if str(target) == "-":
            return cls(sys.stderr, name="standard error")
        try:
            stream = Path(target).open("w", encoding="utf-8")  # noqa: SIM115  (closed by close())
            return cls(stream, owns_stream=True, name=str(target))
        except OSError as exc:
            raise InputError(f"cannot write events to {target}: {exc.strerror or exc}") from None

    def __call__(self, event: Event) -> None:
        record = event_record(event)
        if isinstance(event, RunStarted):
            record.setdefault("started_at", datetime.now(UTC).isoformat(timespec="milliseconds"))
        line = to_json_line(record) + "\n"
        with self._lock:
            if self.error is not None:
                return  # one failure is enough: the run itself must go on
            try:
                self.stream.write(line)
                self.stream.flush()
            except (OSError, ValueError) as exc:  # ValueError: the stream was closed under us
                self._failed(exc)
                return
            self.lines += 1

    def _failed(self, exc: BaseException) -> None:
        why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        self.error = (
            f"cannot write events to {self.name}: {why} "
            f"(stopped after {self.lines} event{'s' if self.lines != 1 else ''})"
        )

    def close(self) -> None:
        """Close the file; a failure to flush its last bytes is kept in `error`, not raised."""
        if self.owns_stream and not self.stream.closed:
            try:
                self.stream.close()
            except OSError as exc:
                if self.error is None:
                    self._failed(exc)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def combine(*handlers: EventHandler | None) -> EventHandler | None:
    """One handler that calls each given handler in order (None ones are left out).

    Returns None when none is given, so `on_event=combine(...)` stays off by default.
    """
    chosen = [h for h in handlers if h is not None]
    if not chosen:
        return None
    if len(chosen) == 1:
        return chosen[0]

    def fan_out(event: Event) -> None:
        for handler in chosen:
            handler(event)

    return fan_out


def read_events(path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of an event log; a half-written last line (a crash mid-write) is skipped."""
    with Path(path).open(encoding="utf-8") as stream:
        for line in stream:
            if not line.endswith("\n"):
                return
            if line.strip():
                yield read_json(line)
