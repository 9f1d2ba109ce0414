"""Live view of a run on stderr (rich), fed by the executor's events. Off when not a terminal."""

from __future__ import annotations

import heapq
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
        self.done = 0  # ops done, kept as events arrive: a refresh never scans every op
        # plumbing (select) is counted, as the summary counts it, but has no work to show
        self._rows = [op.id for op in graph.ops if not kinds.get(op.kind).plumbing]
        self._row_of = {op_id: i for i, op_id in enumerate(self._rows)}
        self._running: set[str] = set()  # the rows of running ops
        self.started = time.perf_counter()
        self._live = Live(
            console=self.console,
            # rich's default: each refresh lays the table out in rich's thread (about 10 ms),
            # which a run on one thread pays for; ten a second took a tenth of its CPU
            refresh_per_second=4,
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
            self._grown(event)
            return
        match event:
            case OpStarted():
                self._set_status(event.op_id, view, OpStatus.RUNNING)
            case OpFinished(status=status):
                self._set_status(event.op_id, view, status)
            case CallStarted() | CallFinished():
                self._count_call(view, event)
            case ThoughtMade(score=score) if score is not None:
                if view.best is None or score < view.best:
                    view.best = score

    def _set_status(self, op_id: str, view: _OpView, status: OpStatus) -> None:
        self.done += (status == OpStatus.DONE) - (view.status == OpStatus.DONE)
        view.status = status
        if status == OpStatus.RUNNING and op_id in self._row_of:
            self._running.add(op_id)
        else:
            self._running.discard(op_id)

    def _grown(self, event: Event) -> None:
        """An op grown at run time (`part_2.g0.part_1`) is in no row: its calls count in the
        row of the graph's op it grew from (the longest id before a dot that is one), its
        status and scores do not (a piece's score is not its part's)."""
        owner = event.op_id or ""
        while "." in owner and owner not in self.ops:
            owner = owner.rsplit(".", 1)[0]
        view = self.ops.get(owner)
        if view is None:
            return
        self._count_call(view, event)

    def _count_call(self, view: _OpView, event: Event) -> None:
        """A call started or finished, in its op's row and in the run's totals."""
        match event:
            case CallStarted():
                view.in_flight += 1
                self.in_flight += 1
            case CallFinished():
                view.in_flight -= 1
                view.calls += 1
                self.in_flight -= 1
                self.calls += 1

    def _render(self) -> Group:
        table = Table(box=None, pad_edge=False, header_style="bold")
        for column in ("op", "kind", "status", "calls", "best error"):
            table.add_column(
                column, justify="right" if column in ("calls", "best error") else "left"
            )
        # a big graph shows its first running ops in graph order, found among the running ones
        # (the refresh runs beside the run, in rich's thread: a scan of 12,000 ops ten times a
        # second took a tenth of the run's CPU); list() copies the set in one step
        ids = self._rows
        if len(ids) > MAX_ROWS:
            ids = heapq.nsmallest(MAX_ROWS, list(self._running), key=self._row_of.__getitem__)
        for op_id in ids:
            view = self.ops[op_id]
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
        footer = Text(
            f"{self.done}/{len(self.ops)} ops done · {self.calls} calls · "
            f"{self.in_flight} in flight · {time.perf_counter() - self.started:.1f} s",
            style="dim",
        )
        return Group(Text(self.title, style="bold"), table, footer)
