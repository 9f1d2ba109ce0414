"""Live view of a run on stderr (rich), fed by the executor's events. Off when not a terminal."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Self

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from thoughtgraph.engine import kinds
from thoughtgraph.engine.graph import Graph
from thoughtgraph.events import (
    CallFinished,
    CallStarted,
    Event,
    OpFinished,
    OpStarted,
    OpStatus,
    ThoughtMade,
)

MAX_ROWS = 24
SHOWN = {OpStatus.PENDING: "waiting"}  # the live view's word for an op not started
STYLES = {
    OpStatus.RUNNING: "yellow",
    OpStatus.DONE: "green",
    OpStatus.STOPPED: "red",
    OpStatus.FAILED: "red",
}


@dataclass
class _OpView:
    kind: str
    status: OpStatus = OpStatus.PENDING
    calls: int = 0
    in_flight: int = 0
    best: float | None = None


class LiveView:
    """Shows every op (or the busy ones, for big graphs) with its calls and best error so far."""

    def __init__(self, graph: Graph, title: str, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self.title = title
        self.ops = {op.id: _OpView(op.kind) for op in graph.ops}  # all: the summary counts all
        self.calls = 0
        self.in_flight = 0
        self.started = time.perf_counter()
        self._live = Live(
            console=self.console,
            refresh_per_second=10,
            transient=False,
            get_renderable=self._render,
        )

    def __enter__(self) -> Self:
        self._live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._live.__exit__(*exc)

    def __call__(self, event: Event) -> None:
        view = self.ops.get(event.op_id or "")
        if view is None:
            return
        match event:
            case OpStarted():
                view.status = OpStatus.RUNNING
            case OpFinished(status=status):
                view.status = status
            case CallStarted():
                view.in_flight += 1
                self.in_flight += 1
            case CallFinished():
                view.in_flight -= 1
                view.calls += 1
                self.in_flight -= 1
                self.calls += 1
            case ThoughtMade(score=score) if score is not None:
                if view.best is None or score < view.best:
                    view.best = score

    def _render(self) -> Group:
        table = Table(box=None, pad_edge=False, header_style="bold")
        for column in ("op", "kind", "status", "calls", "best error"):
            table.add_column(
                column, justify="right" if column in ("calls", "best error") else "left"
            )
        # plumbing (select) is counted, as the summary counts it, but has no work to show
        rows = [r for r in self.ops.items() if not kinds.get(r[1].kind).plumbing]
        if len(rows) > MAX_ROWS:
            rows = [r for r in rows if r[1].status == OpStatus.RUNNING][:MAX_ROWS]
        for op_id, view in rows:
            shown = SHOWN.get(view.status, view.status)
            status = shown + (f" ({view.in_flight} in flight)" if view.in_flight else "")
            best = "" if view.best is None else f"{view.best:g}"
            table.add_row(
                op_id,
                view.kind,
                Text(status, style=STYLES.get(view.status, "dim")),
                str(view.calls),
                best,
            )
        done = sum(v.status == OpStatus.DONE for v in self.ops.values())
        footer = Text(
            f"{done}/{len(self.ops)} ops done · {self.calls} calls · {self.in_flight} in flight · "
            f"{time.perf_counter() - self.started:.1f} s",
            style="dim",
        )
        return Group(Text(self.title, style="bold"), table, footer)
