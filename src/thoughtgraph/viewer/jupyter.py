"""Rich displays for Jupyter: a `Graph` draws itself as SVG, a `Result` shows its summary table
with its graph drawn below it (as LangGraph graphs do).

Pure string building, no dependency and no network: the layout is layered (an op one rank below
its deepest input), which is how the paper draws its graphs of operations.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from thoughtgraph.engine.graph import Graph
    from thoughtgraph.engine.result import Result

BOX_W, BOX_H, GAP_X, GAP_Y, PAD = 132, 38, 18, 34, 10
MAX_DRAWN_OPS = 400  # beyond this an inline drawing is a wall of boxes: say so instead
KIND_COLOURS = {
    "generate": "#dbe8f6",
    "aggregate": "#fde2c8",
    "refine": "#e1f0d8",
    "validate_and_improve": "#e1f0d8",
    "score": "#eeeeee",
    "keep_best": "#f3e0ef",
    "keep_valid": "#f3e0ef",
    "split": "#fff3bf",
    "select": "#fff9db",
    "ground_truth": "#eeeeee",
}


def ranks(graph: Graph) -> dict[str, int]:
    """Each op's layer: 0 for an op without inputs, else one below its deepest input."""
    rank: dict[str, int] = {}
    for op_id in graph.bfs_order():
        inputs = graph.op(op_id).inputs
        rank[op_id] = 1 + max((rank[i] for i in inputs), default=-1)
    return rank


def graph_svg(graph: Graph) -> str:
    """The graph of operations as a standalone SVG: one box per op (id and kind), top to
    bottom, an arrow per input."""
    rank = ranks(graph)
    layers: dict[int, list[str]] = {}
    for op in graph.ops:
        layers.setdefault(rank[op.id], []).append(op.id)
    widest = max(len(ids) for ids in layers.values())
    width = PAD * 2 + widest * BOX_W + (widest - 1) * GAP_X
    height = PAD * 2 + len(layers) * BOX_H + (len(layers) - 1) * GAP_Y
    where: dict[str, tuple[float, float]] = {}
    for level, ids in layers.items():
        row = len(ids) * BOX_W + (len(ids) - 1) * GAP_X
        left = (width - row) / 2
        for i, op_id in enumerate(ids):
            where[op_id] = (left + i * (BOX_W + GAP_X), PAD + level * (BOX_H + GAP_Y))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="11">',
        '<defs><marker id="tg-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="#666"/></marker></defs>',
    ]
    for op in graph.ops:
        x, y = where[op.id]
        for source in dict.fromkeys(op.inputs):
            sx, sy = where[source]
            parts.append(
                f'<line x1="{sx + BOX_W / 2:.1f}" y1="{sy + BOX_H:.1f}" x2="{x + BOX_W / 2:.1f}" '
                f'y2="{y:.1f}" stroke="#666" marker-end="url(#tg-arrow)"/>'
            )
    for op in graph.ops:
        x, y = where[op.id]
        fill = KIND_COLOURS.get(op.kind, "#ffffff")
        parts += [
            f'<g class="op" id="op-{escape(op.id)}"><title>{escape(_describe(op))}</title>',
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{BOX_W}" height="{BOX_H}" rx="5" '
            f'fill="{fill}" stroke="#555"/>',
            f'<text x="{x + BOX_W / 2:.1f}" y="{y + 15:.1f}" text-anchor="middle" '
            f'font-weight="bold">{escape(_fit(op.id))}</text>',
            f'<text x="{x + BOX_W / 2:.1f}" y="{y + 30:.1f}" text-anchor="middle" '
            f'fill="#444">{escape(_fit(op.kind))}</text>',
            "</g>",
        ]
    parts.append("</svg>")
    return "\n".join(parts)


def _fit(text: str, limit: int = 20) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe(op: Any) -> str:
    params = ", ".join(f"{k}={v}" for k, v in op.params.model_dump().items())
    return f"{op.id}: {op.kind}({params})"


def result_rows(result: Result) -> list[tuple[str, str]]:
    """The summary `solve` prints, as (field, value) rows."""
    model = result.model + (" (SIMULATED: not a real LLM)" if result.simulated else "")
    stop = ": ".join(filter(None, (result.stop_reason, result.stop_detail)))
    cost = "unknown (no price)" if result.price is None else f"${result.cost:.4f}"
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
    if result.rating_scale is not None:  # the model rates answers: its rating, or none read
        rating, scale = result.rating, result.rating_scale
        shown = "unrated" if rating is None else f"{rating:g} of {scale}"
        rows.insert(3, ("model rating", shown))
    if result.errors:
        rows.insert(3, ("what is wrong", "; ".join(result.errors[:5])))
    return rows


def _short(value: Any, limit: int = 120) -> str:
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
        graph_svg(result.graph)
        if ops <= MAX_DRAWN_OPS
        else f"<p>{ops} ops: too many to draw inline (graph.to_mermaid() or `trace view`)</p>"
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
