"""Drawings of a graph of operations: SVG (Jupyter, the result page), Mermaid and DOT.

Above the engine: the graph is plain data and draws nothing itself. Pure string building, no
dependency and no network: the SVG layout is layered (an op one rank below its deepest input),
which is how the paper draws its graphs of operations.
"""

from __future__ import annotations

from html import escape

from thoughtgraph.engine.graph import Graph, Op

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


def svg(graph: Graph) -> str:
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


def _describe(op: Op) -> str:
    params = ", ".join(f"{k}={v}" for k, v in op.params.model_dump().items())
    return f"{op.id}: {op.kind}({params})"


def inline_svg(graph: Graph) -> str | None:
    """The SVG to show inline, or None for a graph too large to draw as a wall of boxes."""
    return svg(graph) if len(graph.ops) <= MAX_DRAWN_OPS else None


def dot(graph: Graph) -> str:
    """The graph in Graphviz's DOT language, each op labelled with its kind and params."""
    lines = ["digraph graph_of_operations {", "    rankdir=TB;", "    node [shape=box];"]
    for op in graph.ops:
        lines.append(f'    "{op.id}" [label="{op.id}\\n{op.kind}{_detail(op, ", ")}"];')
    for op in graph.ops:
        lines.extend(f'    "{source}" -> "{op.id}";' for source in op.inputs)
    return "\n".join([*lines, "}"]) + "\n"


def mermaid(graph: Graph) -> str:
    """The graph as a Mermaid flowchart, each op labelled with its kind and params."""
    lines = ["flowchart TD"]
    for op in graph.ops:
        label = f"{op.id}<br/><i>{op.kind}</i>" + _detail(op, "<br/>")
        lines.append(f'    {_mermaid_id(op.id)}["{label}"]')
    for op in graph.ops:
        for source in op.inputs:
            lines.append(f"    {_mermaid_id(source)} --> {_mermaid_id(op.id)}")
    return "\n".join(lines) + "\n"


def _detail(op: Op, prefix: str) -> str:
    """The params that differ from their defaults, for drawings."""
    defaults = type(op.params).model_fields
    shown = [
        f"{key}={value}"
        for key, value in op.params.model_dump().items()
        if (key == "prompt" and op.prompt)
        or (key != "prompt" and (defaults[key].is_required() or defaults[key].default != value))
    ]
    return prefix + ", ".join(shown) if shown else ""


def _mermaid_id(op_id: str) -> str:
    return "op_" + op_id.replace(".", "_").replace("-", "_")
