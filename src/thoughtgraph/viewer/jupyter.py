"""Rich displays for Jupyter: a `Graph` draws itself as SVG, a `Result` shows its summary table
with its graph drawn below it (as LangGraph graphs do).

The engine's objects carry no display methods (the engine never imports the viewer): the
displays are registered with IPython's formatters for their types (`install`). The package
facade installs them on first use when IPython is running; `%load_ext thoughtgraph.viewer.jupyter`
does it by hand.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from html import escape
from typing import Any, Protocol

from thoughtgraph.engine.graph import Graph
from thoughtgraph.engine.result import Result
from thoughtgraph.spend.budget import dollars
from thoughtgraph.viewer.drawing import MAX_DRAWN_OPS, inline_svg, svg


class _Formatter(Protocol):
    def for_type(self, typ: type, func: Callable[[Any], str | None]) -> object: ...


class _DisplayFormatter(Protocol):
    formatters: dict[str, _Formatter]


class Shell(Protocol):
    """What `install` uses of an IPython shell."""

    display_formatter: _DisplayFormatter


def install(shell: Shell | None = None) -> bool:
    """Register the displays with `shell` (default: the running IPython); False without one."""
    if shell is None:
        shell = _running_shell()
        if shell is None:
            return False
    formatters = shell.display_formatter.formatters
    formatters["image/svg+xml"].for_type(Graph, inline_svg)
    formatters["text/html"].for_type(Result, result_html)
    formatters["text/markdown"].for_type(Result, result_markdown)
    return True


def load_ipython_extension(shell: Shell) -> None:
    """`%load_ext thoughtgraph.viewer.jupyter`."""
    install(shell)


def _running_shell() -> Shell | None:
    ipython = sys.modules.get("IPython")  # never imported here: only a running one counts
    get = getattr(ipython, "get_ipython", None)
    shell: Shell | None = get() if callable(get) else None
    return shell


def result_rows(result: Result) -> list[tuple[str, str]]:
    """The summary `solve` prints, as (field, value) rows."""
    model = result.model + (" (SIMULATED: not a real LLM)" if result.simulated else "")
    stop = ": ".join(filter(None, (result.stop_reason, result.stop_detail)))
    cost = "unknown (no price)" if not result.priced else dollars(result.cost)
    rows = [
        ("task", result.task),
        ("status", result.status + (f" ({stop})" if stop else "")),
        ("errors", f"{result.error_count:g}"),
        ("output", _short(result.output if result.output is not None else result.text)),
        ("model", model),
        ("calls", f"{result.calls} requests, {result.completions} answers"),
        ("tokens", f"{result.tokens:,}"),
        ("cost", cost),
        ("graph", f"{result.graph.summary()} ({len(result.graph.ops)} ops)"),
        (
            "final thought",
            f"{result.final.id} · volume {result.volume} · {result.latency} hops · "
            f"depth {result.depth} rounds",
        ),
        ("wall time", f"{result.wall_seconds:.2f} s"),
    ]
    if result.model_for:  # kinds routed to other models: one row per model, after "model"
        at = [name for name, _v in rows].index("model") + 1
        rows[at:at] = [
            (
                f"model {label}",
                f"{spent.calls} calls, {spent.tokens:,} tokens, {dollars(spent.cost)}",
            )
            for label, spent in result.spend_by_model.items()
        ]
    if result.rating_scale is not None:  # the model rates answers: its rating, or none read
        rating, scale = result.rating, result.rating_scale
        shown = "unrated" if rating is None else f"{rating:g} of {scale}"
        rows.insert(3, ("model rating", shown))
    if result.errors:
        rows.insert(3, ("what is wrong", "; ".join(result.errors[:5])))
    return rows


def _short(value: object, limit: int = 120) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def result_html(result: Result) -> str:
    cells = "".join(
        f'<tr><th style="text-align:left">{escape(k)}</th>'
        f'<td style="text-align:left">{escape(v)}</td></tr>'
        for k, v in result_rows(result)
    )
    ops = len(result.graph.ops)
    drawing = (
        svg(result.graph)
        if ops <= MAX_DRAWN_OPS
        else f"<p>{ops} ops: too many to draw inline (`graph --format mermaid` or `trace view`)</p>"
    )
    return (
        f'<div class="thoughtgraph-result"><table>{cells}</table>'
        f"<details open><summary>graph of operations</summary>{drawing}</details></div>"
    )


def result_markdown(result: Result) -> str:
    lines = ["| | |", "|---|---|"]
    bar = "\\|"  # a literal | inside a cell
    # a line break would end the row: an answer's lines become spaces here
    lines += [f"| {k} | {' '.join(v.split()).replace('|', bar)} |" for k, v in result_rows(result)]
    return "\n".join(lines) + "\n"
