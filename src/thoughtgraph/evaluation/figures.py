"""The paper's evaluation figures (Figures 5-8) from an evaluation's results.

One figure per task, one panel per problem size side by side; in each panel one box per scheme
(coloured per scheme, a thick black median line) with its solved count above it, the 95%
bootstrap CI of its median as a whisker beside the box (with scipy), and the scheme's total cost
(what it consumed, answers from the cache included) as a bar on a second axis. A box is of the
runs the model answered: when it left some unanswered, "N of M answered" is written under the box
(a scheme it never answered has its place, that line and no box). Document merging plots the
model's score (0-10, higher is better) and has no solved count. Every artist a reader (or a test)
looks for carries an SVG id: `box-SCHEME-SIZE`, `solved-SCHEME-SIZE`, `ci-SCHEME-SIZE`,
`cost-SCHEME-SIZE`, `answered-SCHEME-SIZE`.

Needs matplotlib (`pip install 'thoughtgraph[plot]'`); without it `FigureMissing` is raised.
"""

from __future__ import annotations

import hashlib
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from thoughtgraph.errors import InputError
from thoughtgraph.evaluation.measures import (
    label,
    measured,
    plotted,
    rating_text,
    solved,
    unanswered,
    used,
)
from thoughtgraph.evaluation.record import Built
from thoughtgraph.evaluation.runner import PairResult, model_scored
from thoughtgraph.evaluation.statistics import available as stats_available
from thoughtgraph.evaluation.statistics import scheme_stats
from thoughtgraph.schemes import SCHEMES

if TYPE_CHECKING:
    from matplotlib.axes import Axes

INSTALL_HINT = "pip install 'thoughtgraph[plot]'; from a clone: pip install -e '.[plot]'"
PALETTE = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#17becf",
    "#bcbd22",
)  # the built-in schemes in their order (schemes.SCHEMES): each keeps its colour
OTHERS = ("#8c8c8c", "#ccb974", "#64b5cd", "#2f4b7c", "#a05195", "#f95d6a")  # variants, graphs
COST_COLOUR = "#9e9e9e"
CI_LEGEND = "95% CI of the median (bootstrap)"
GOT_LEGEND = "GoT: ours, adaptive (the spec's pattern); GoT (paper): the paper's fixed graph"
GROWN_LEGEND = "GoT (growing): the spec's pattern, its failing parts split again at run time"


class FigureMissing(ImportError):
    """matplotlib is not installed: no figure can be drawn."""


@dataclass
class Panel:
    """One problem size: its results (any schemes; those asked for are drawn)."""

    size: int
    results: list[PairResult] = field(default_factory=list)
    name: str = ""  # the panel's title; default "P = SIZE"
    unclipped: bool = False  # errors are not clipped at the size (a user's --data rows)
    built: Mapping[str, Built] | None = None  # what the run recorded of its rows (labels)


LEGEND_INCHES = 4.2  # the width one legend entry takes at font size 8 (the longest ones)


def available() -> bool:
    """Whether matplotlib is installed, found without importing it (most of a second): it is
    imported when a figure is drawn."""
    from importlib.util import find_spec

    return find_spec("matplotlib") is not None


def stem(task: str | None) -> str:
    """The figure's file name: what it plots."""
    return "scores" if task and model_scored(task) else "errors"


def colour(scheme: str) -> str:
    """A scheme's colour, the same in every panel and every figure; a variant or a graph file
    gets one of the other colours, picked by its name (the same name, the same colour)."""
    order = list(SCHEMES)
    if scheme in order:
        return PALETTE[order.index(scheme) % len(PALETTE)]
    digest = int(hashlib.sha256(scheme.encode()).hexdigest()[:8], 16)
    return OTHERS[digest % len(OTHERS)]


def figure(panels: Sequence[Panel], schemes: Sequence[str], task: str | None, title: str) -> Any:
    """The matplotlib Figure (not saved): one axes per panel plus its twin cost axis."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
    except ImportError as exc:
        raise FigureMissing(f"no figure: matplotlib is not installed ({INSTALL_HINT})") from exc
    scored = bool(task) and model_scored(str(task))
    tokens_instead = not any(used(r)[2] for p in panels for r in p.results)
    widest = max(len([s for s in schemes if _mine(p, s)]) for p in panels)
    width = max(4.0, 0.95 * widest + 1.6) * len(panels)
    fig, axes = plt.subplots(1, len(panels), figsize=(width, 4.8), squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        _panel(ax, panel, schemes, task, scored, tokens_instead)
    cost_name = (
        "total tokens consumed (thousands; no price known)"
        if tokens_instead
        else "total cost consumed (USD)"
    )
    handles: list[Any] = [
        Patch(facecolor=COST_COLOUR, alpha=0.35, label=cost_name + ", right axis")
    ]
    if stats_available():
        handles.append(Line2D([], [], color="black", linewidth=1.4, label=CI_LEGEND))
    if {"got", "got_paper"} <= set(schemes):  # two GoTs side by side: say which is which
        handles.append(Patch(facecolor="none", edgecolor="none", label=GOT_LEGEND))
    if "got_adaptive" in {s.partition(":")[0] for s in schemes}:
        handles.append(Patch(facecolor="none", edgecolor="none", label=GROWN_LEGEND))
    # one legend row when the figure is wide enough for every entry, else one entry a row
    ncol = len(handles) if width >= LEGEND_INCHES * len(handles) else 1
    rows = -(-len(handles) // ncol)
    fig.legend(handles=handles, loc="lower center", ncol=ncol, fontsize=8, frameon=False)
    fig.suptitle(textwrap.fill(title, width=int(width * 11)), fontsize=10)  # fits the figure
    lay_out(fig, (0, 0.05 * rows, 1, 1))
    return fig


def lay_out(fig: Any, rect: tuple[float, float, float, float] | None = None) -> None:
    """`tight_layout` once, then no layout engine: the placeholder one it leaves makes every
    `savefig` (the PNG, then the SVG) draw the whole figure once more before drawing it to
    save it, two draws of four."""
    fig.tight_layout(rect=rect)
    fig.set_layout_engine(None)


def _mine(panel: Panel, scheme: str) -> list[PairResult]:
    return [r for r in panel.results if r.scheme == scheme]


def _panel(
    ax: Axes,
    panel: Panel,
    schemes: Sequence[str],
    task: str | None,
    scored: bool,
    tokens_instead: bool,
) -> None:
    # a scheme whose runs are all unrated has no place; one the model never answered has its
    # place, without a box, and says so under it
    present = [
        s for s in schemes if measured(_mine(panel, s), scored) or unanswered(_mine(panel, s))
    ]
    values = [[plotted(r, scored) for r in measured(_mine(panel, s), scored)] for s in present]
    if not present:  # every run of the panel is unrated: nothing to draw a box of
        ax.text(0.5, 0.5, "no rated runs", ha="center", va="center", transform=ax.transAxes)
        ax.set_title(panel.name or f"P = {panel.size}", fontsize=10)
        return
    positions = list(range(1, len(present) + 1))
    drawn = [i for i, v in enumerate(values) if v]
    if drawn:  # (boxplot reads no data at all as one empty box)
        boxes = ax.boxplot(
            [values[i] for i in drawn],
            positions=[positions[i] for i in drawn],
            widths=0.55,
            patch_artist=True,
            medianprops={"color": "black", "linewidth": 2.2},
            flierprops={"markersize": 3},
        )
        for i, box in zip(drawn, boxes["boxes"], strict=True):
            box.set_facecolor(colour(present[i]))
            box.set_alpha(0.85)
            box.set_gid(f"box-{present[i]}-{panel.size}")
    ax.set_xticks(positions)
    ax.set_xticklabels(
        [label(s, task, panel.size, (panel.built or {}).get(s)) for s in present],
        rotation=30,
        ha="right",
    )
    ax.tick_params(axis="x", labelsize=8)
    if scored:
        top = float(rating_text(task).scale)
        ax.set_ylabel(f"score (0-{top:g}); higher is better")
    elif panel.unclipped:
        top = max([1.0, *(v for vs in values for v in vs)])
        ax.set_ylabel("#errors; lower is better")
    else:
        top = float(panel.size)
        ax.set_ylabel(f"#errors (clipped at {panel.size}); lower is better")
    missing = any(unanswered(_mine(panel, s)) for s in present)
    ax.set_ylim(-(0.12 if missing else 0.02) * top, top * 1.12)
    ax.set_title(panel.name or f"P = {panel.size}", fontsize=10)
    if not scored:
        _solved_counts(ax, panel, present, values, top)
    if stats_available():
        _intervals(ax, panel, present, scored, top)
    if missing:
        _answered_counts(ax, panel, present, top)
    cost_axis = ax.twinx()
    for x, scheme in zip(positions, present, strict=True):
        mine = _mine(panel, scheme)
        cost = sum(used(r)[1 if tokens_instead else 2] for r in mine)
        cost = cost / 1000 if tokens_instead else cost
        (bar,) = cost_axis.bar([x], [cost], width=0.7, color=COST_COLOUR, alpha=0.35)
        bar.set_gid(f"cost-{scheme}-{panel.size}")
    cost_axis.set_ylabel("total tokens (k)" if tokens_instead else "total cost (USD)")
    cost_axis.set_ylim(bottom=0)
    ax.set_zorder(cost_axis.get_zorder() + 1)  # boxes in front of the cost bars
    ax.patch.set_visible(False)


def _intervals(ax: Axes, panel: Panel, present: list[str], scored: bool, top: float) -> None:
    """The 95% bootstrap CI of each scheme's median, a black whisker right of its box (clipped
    at the size, as the boxes are); none beside a scheme without a box."""
    for x, scheme in enumerate(present, start=1):
        if not measured(_mine(panel, scheme), scored):
            continue
        ci = scheme_stats(_mine(panel, scheme), scored).median
        low, high = (ci.low, ci.high) if scored else (min(ci.low, top), min(ci.high, top))
        line = ax.vlines(x + 0.36, low, high, colors="black", linewidth=1.4)
        line.set_gid(f"ci-{scheme}-{panel.size}")
        ax.hlines([low, high], x + 0.31, x + 0.41, colors="black", linewidth=1.0)


def _answered_counts(ax: Axes, panel: Panel, present: list[str], top: float) -> None:
    """Under each box of a scheme the model left runs of unanswered: how many it answered
    (the box is of those only)."""
    for x, scheme in enumerate(present, start=1):
        mine = _mine(panel, scheme)
        missing = len(unanswered(mine))
        if not missing:
            continue
        text = ax.text(
            x,
            -0.07 * top,
            f"{len(mine) - missing} of {len(mine)}\nanswered",
            ha="center",
            va="center",
            fontsize=6.5,
            color="#c44e52",
        )
        text.set_gid(f"answered-{scheme}-{panel.size}")


def _solved_counts(
    ax: Axes, panel: Panel, present: list[str], values: list[list[float]], top: float
) -> None:
    """The number of runs that equal the reference, above each box (the paper's labels); a run
    the model never answered is not solved."""
    for x, (scheme, data) in enumerate(zip(present, values, strict=True), start=1):
        known = [s for s in map(solved, _mine(panel, scheme)) if s is not None]
        if not known:
            continue
        y = min(max(data, default=0.0) + 0.03 * top, top * 1.05)
        text = ax.text(x, y, str(sum(known)), ha="center", va="bottom", fontsize=8)
        text.set_gid(f"solved-{scheme}-{panel.size}")
    ax.text(
        0.01,
        0.99,
        "above each box: solved",
        transform=ax.transAxes,
        ha="left",
        va="top",
        fontsize=7,
        color="#555555",
    )


def remove_figure(task: str | None, out: Path) -> None:
    """Remove the figure of an earlier run from `out`: a run that writes none (`--no-figure`,
    no matplotlib, nothing ran) leaves no older one to contradict its summary."""
    for suffix in ("png", "svg"):
        (out / f"{stem(task)}.{suffix}").unlink(missing_ok=True)


def write_figure(
    panels: Sequence[Panel],
    schemes: Sequence[str],
    task: str | None,
    title: str,
    out: Path,
) -> list[Path]:
    """STEM.png and STEM.svg in `out`; none (and no stale ones) when nothing ran."""
    name = stem(task)
    if not any(r.scheme in schemes for p in panels for r in p.results):
        remove_figure(task, out)
        return []
    fig = figure(panels, schemes, task, title)
    import matplotlib.pyplot as plt

    written = []
    try:
        for suffix in ("png", "svg"):
            path = out / f"{name}.{suffix}"
            fig.savefig(path, dpi=90)
            written.append(path)
    except OSError as exc:  # a full disk, a read-only folder: the results are already written
        path.unlink(missing_ok=True)  # no half-written figure left behind
        raise InputError(
            f"cannot write the figure {path}: {exc.strerror or exc} (the results and the "
            f"summary in {out} are kept; free some space and rerun the same command to "
            "write it)"
        ) from None
    finally:
        plt.close(fig)
    return written
