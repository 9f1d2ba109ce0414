"""Run events: what the executor reports as it goes (progress displays, logs and tests listen)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    """`kind` is one of: run_started, op_started, call_started, call_finished, thought,
    op_finished, run_finished. `time` is seconds since the run started."""

    kind: str
    time: float
    op_id: str | None = None
    data: dict[str, Any] = field(default_factory=dict)


EventHandler = Callable[[Event], None]
