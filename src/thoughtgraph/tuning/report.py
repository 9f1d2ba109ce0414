"""What a tune hands back: the Pareto front, its held-out figures, graph files, a table, a plot.

The front is computed on the tuning split only, over the trials and the default `got` (what
`eval` runs under that name, built for each row's size): the default is a candidate like any
trial. Each graph on the front, and the two baselines (the default and the paper's
`got_paper`), then run on the held-out split: the table's held-out columns are figures the tuner
never saw. `best.yaml` is the pick (`choose`): the cheapest candidate whose tuning error is at
most the target (by default the default's own tuning error, so the default is picked unless a
trial beats it; a tie goes to the default), and a pick worse than the default on the held-out
split gives way to the default. The header of front.md says which happened.

On a model-scored task the tune minimises the model rating shortfall (`scale - rating`); the
table, the CSV, the graph files' headers and the plot show the rating itself (higher is
better) and how many answers got no readable rating (`Objective`).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import TypeVar

from thoughtgraph.engine.graph import Graph
from thoughtgraph.models import secrets

T = TypeVar("T")

DEFAULT = "got (default)"
"""The default candidate's row: `got`, what `solve` and `eval` run when given no scheme."""
PAPER = "got_paper (paper)"
"""The paper's configuration of `got_paper`, a baseline only."""
BASELINES = {DEFAULT: "got", PAPER: "got_paper"}
"""Each baseline's row name in the report -> the row `eval` runs it as."""


@dataclass(frozen=True)
class Objective:
    """What a tune minimises per sample, and how the report shows it: the code's error count
    (`scale` None), or the model rating shortfall, shown as the rating `scale - shortfall`."""

    scale: int | None = None

    @property
    def rated(self) -> bool:
        return self.scale is not None

    @property
    def name(self) -> str:
        """The objective as the study and the progress lines name it."""
        return "error" if self.scale is None else f"model rating shortfall (0-{self.scale})"

    def shown(self, value: float | None) -> float | None:
        """The figure a reader sees for a minimised value: the error, or the rating."""
        if value is None or self.scale is None or math.isinf(value):
            return value
        return self.scale - value

    def goal(self, target: float | None) -> float | None:
        """The minimised value a `--target` means: an error, or the rating to reach."""
        if target is None or self.scale is None:
            return target
        return self.scale - target

    def cell(self, value: float | None, unrated: int | None = 0) -> str:
        """A table cell: `0.67`, or a rating with its unrated answers, `7.33 (1 unrated)`."""
        text = fmt(self.shown(value))
        return f"{text} ({unrated} unrated)" if unrated else text

    def columns(self) -> tuple[str, ...]:
        if self.scale is None:
            return TABLE_COLUMNS
        return RATED_COLUMNS


ERRORS = Objective()

TABLE_COLUMNS = (
    "name",
    "graph",
    "tune_error",
    "tune_cost",
    "holdout_error",
    "holdout_cost",
    "holdout_solved",
    "file",
    "mark",
)
RATED_COLUMNS = (
    "name",
    "graph",
    "tune_rating",
    "tune_cost",
    "tune_unrated",
    "holdout_rating",
    "holdout_cost",
    "holdout_unrated",
    "file",
    "mark",
)


@dataclass
class Row:
    """One graph of the report: a front trial or a baseline."""

    name: str  # "trial 7", "got (default)", "got_paper (paper)"
    label: str  # its settings in one line
    graph: Graph  # what its graph file holds (a scheme's: as built for the trials' size)
    tune_error: float
    tune_cost: float
    holdout_error: float | None = None
    holdout_cost: float | None = None
    holdout_solved: float | None = None
    file: str = ""
    mark: str = ""  # "pick", "front", "baseline"
    stopped: bool = False  # its held-out run was cut short by the budget
    tune_stopped: bool = False  # a baseline's tuning-split run was cut short by the budget: its
    # figures are of a partial run (not plotted, never the pick's target)
    tune_unrated: int = 0  # a model-scored task: answers with no readable rating (tuning split)
    holdout_unrated: int | None = None  # ... and on the held-out split
    scheme: str | None = None  # a scheme eval runs under this name (the baselines): its runs
    # build it for each row's size as eval does (`EvalPlan.sample_graph`); None: `graph` runs
    # on every row (a trial)
    on_front: bool = False  # on the Pareto front of the tuning split (a front-NN.yaml file)
    routes: tuple[tuple[str, str], ...] = ()  # a trial's model per kind of call (kind ->
    # candidate name, `tune --models`); (): every call to `--model`

    @property
    def measured(self) -> bool:
        """Did its tuning run finish? Not when the budget cut it short (its figures are of a
        partial run), nor when it failed (an infinite error) or never ran (no cost)."""
        return bool(self.tune_cost) and not self.tune_stopped and not math.isinf(self.tune_error)


def pareto(points: Sequence[tuple[float, float, T]]) -> list[tuple[float, float, T]]:
    """The non-dominated points (lower error, lower cost), cheapest first; ties keep the first."""
    ordered = sorted(points, key=lambda p: (p[1], p[0]))
    front: list[tuple[float, float, T]] = []
    best_error = math.inf
    for error, cost, item in ordered:
        if error < best_error:
            front.append((error, cost, item))
            best_error = error
    return front


def spread(front: Sequence[T], most: int) -> list[T]:
    """At most `most` points of a front, evenly spread from cheapest to most accurate."""
    if len(front) <= most:
        return list(front)
    if most == 1:
        return [front[0]]
    step = (len(front) - 1) / (most - 1)
    return [front[round(i * step)] for i in range(most)]


def pick(front: Sequence[Row], target: float) -> Row:
    """The cheapest front graph at or below the target error, else the most accurate one; a
    tie goes to the default."""
    meeting = [r for r in front if r.tune_error <= target]
    if meeting:
        return min(meeting, key=lambda r: (r.tune_cost, r.tune_error, r.name != DEFAULT))
    return min(front, key=lambda r: (r.tune_error, r.tune_cost, r.name != DEFAULT))


def fmt(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "—"
    if math.isinf(value):
        return "inf"
    return f"{value:.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:.0f}"


def cost_text(value: float | None, fixed: bool = False) -> str:
    """A cost per sample as the report shows it: to a tenth from 1 up (`fixed`: always with
    its tenth, as the progress lines show it), below 1 to four significant digits, so a usd
    cost of $0.00345 a sample is not shown as 0, and in positional digits (0.000012, not
    1.2e-05), as every other cost we print."""
    if value is None or math.isinf(value) or value >= 1 or value == 0:
        return f"{value:.1f}" if fixed and value is not None else fmt(value, 1)
    return format(Decimal(f"{value:.4g}"), "f")


def table_markdown(
    rows: Sequence[Row], metric: str, title: str, note: str, objective: Objective = ERRORS
) -> str:
    measure = "error" if objective.scale is None else f"rating (0-{objective.scale})"
    last = "held-out solved" if objective.scale is None else "held-out unrated"
    lines = [
        f"# {title}",
        "",
        note,
        "",
        f"| graph | settings | tune {measure} | tune {metric} | held-out {measure} | "
        f"held-out {metric} | {last} | file |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        name = f"**{r.name}** ({r.mark})" if r.mark else r.name
        if objective.rated:
            solved = "—" if r.holdout_unrated is None else str(r.holdout_unrated)
        else:
            solved = "—" if r.holdout_solved is None else f"{100 * r.holdout_solved:.0f}%"
        cut = " (budget cut)" if r.stopped else ""
        tune_cut = " (budget cut)" if r.tune_stopped else ""
        lines.append(
            f"| {name} | {r.label} | {objective.cell(r.tune_error, r.tune_unrated)}{tune_cut} | "
            f"{cost_text(r.tune_cost)} | {objective.cell(r.holdout_error)}{cut} | "
            f"{cost_text(r.holdout_cost)} | {solved} | {r.file} |"
        )
    return "\n".join(lines) + "\n"


def table_csv(rows: Sequence[Row], objective: Objective = ERRORS) -> str:
    """front.csv: for a model-scored task the ratings (higher is better) and the unrated counts
    in place of the errors and the solved share."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(objective.columns())
    for r in rows:

        def blank(value: float | None) -> float | str:
            return "" if value is None else value

        if objective.rated:
            middle = [
                objective.shown(r.tune_error),
                r.tune_cost,
                r.tune_unrated,
                blank(objective.shown(r.holdout_error)),
                blank(r.holdout_cost),
                blank(r.holdout_unrated),
            ]
        else:
            middle = [
                r.tune_error,
                r.tune_cost,
                blank(r.holdout_error),
                blank(r.holdout_cost),
                blank(r.holdout_solved),
            ]
        writer.writerow([r.name, r.label, *middle, r.file, r.mark])
    return buffer.getvalue()


def front_file(number: int) -> str:
    """The graph file of the front's `number`-th graph (from 1): `front-01.yaml`."""
    return f"front-{number:02d}.yaml"


@dataclass(frozen=True)
class Pick:
    """The graph a tune recommends, and the report's rows as the files show them: the pick
    marked, each front graph with its file (the pick's also `best.yaml`). `goal` is the
    minimised value a candidate had to meet on the tuning split, `source` where it came from
    and `target` whether `--target` set it; `tuned` is the pick on the tuning split and `row`
    the pick after the held-out check (the default when `tuned` was worse than it there);
    `default` is the default got's row when its tuning run finished (None: it did not)."""

    row: Row
    rows: tuple[Row, ...]
    goal: float
    source: str
    tuned: Row
    default: Row | None = None
    target: bool = False

    @property
    def gave_way(self) -> bool:
        """Did the tuning split's pick give way to the default on the held-out split?"""
        return self.row.name != self.tuned.name


def choose(rows: Sequence[Row], target: float | None, objective: Objective = ERRORS) -> Pick:
    """The cheapest candidate (the front's graphs, the default among them when nothing beats it
    on both) whose tuning error meets the goal: `--target`, else the default got's tuning
    error (0 when its run did not finish: the budget cut it short, or it failed); then the
    held-out check: a pick worse than the default on the held-out split (`_worse_held_out`;
    with `--target`, only one that also misses the target there) gives way to the default."""
    front = [r for r in rows if r.on_front]
    default = _measured_default(rows)
    given = objective.goal(target)
    goal = given if given is not None else (default.tune_error if default else 0.0)
    tuned = pick(front, goal)
    chosen = tuned
    misses = given is None or (tuned.holdout_error or 0.0) > given  # with --target: held out
    if default is not None and tuned is not default and _worse_held_out(tuned, default) and misses:
        chosen = default
    source = (
        "--target"
        if target is not None
        else "what the default got has on the tuning split"
        if default is not None
        else "no measured default got: its tuning run did not finish"
    )
    shown, number = [], 0
    for row in rows:
        files = []
        if row.on_front:
            number += 1
            files.append(front_file(number))
        if row is chosen:
            row = replace(row, mark="pick")
            files.append("best.yaml")
        shown.append(replace(row, file=", ".join(files)) if files else row)
    by_name = {r.name: r for r in shown}
    return Pick(
        by_name[chosen.name],
        tuple(shown),
        goal,
        source,
        by_name[tuned.name],
        None if default is None else by_name[default.name],
        target is not None,
    )


def _measured_default(rows: Sequence[Row]) -> Row | None:
    """The default got's row if its tuning run finished (`Row.measured`)."""
    found = next((r for r in rows if r.name == DEFAULT), None)
    return found if found is not None and found.measured else None


def _worse_held_out(row: Row, default: Row) -> bool:
    """Is `row` worse than the default on the held-out split: a higher error, or the same error
    at a higher cost? (Not when either has no held-out figures, or the budget cut one short.)"""
    if row.holdout_error is None or default.holdout_error is None or row.stopped or default.stopped:
        return False
    if not math.isclose(row.holdout_error, default.holdout_error, abs_tol=1e-9):
        return row.holdout_error > default.holdout_error
    return (row.holdout_cost or 0.0) > (default.holdout_cost or 0.0) + 1e-9


@dataclass(frozen=True)
class About:
    """What the report says of the tune: its title, the cost measured (`completions`, `tokens`,
    `usd`), the problem size its graphs are built for, whether the model is the simulated one."""

    title: str
    metric: str
    size: int
    simulated: bool
    objective: Objective = ERRORS
    task: str | None = None  # the task's name, which the graph files record
    candidates: tuple[tuple[str, str], ...] = ()  # `--models`: name -> spec, for the files'
    # line saying how to run a trial with the models it chose


@dataclass(frozen=True)
class Written:
    """front.md's text, the files written (front.md, front.csv, the graph files, the plot) and
    whether a plot was drawn."""

    text: str
    files: list[Path]
    plotted: bool


def write(
    folder: Path,
    about: About,
    chosen: Pick,
    points: Sequence[tuple[float, float]],
    note: str,
) -> Written:
    """front.md, front.csv, the graph files and the plot, from the pick's rows; `note` (what
    failed or was left out) ends the text above the table."""
    rows, objective = chosen.rows, about.objective
    written = write_graphs(
        rows, folder, chosen.row, about.size, objective, about.task, dict(about.candidates)
    )
    how = pick_text(chosen, about.metric, objective)
    if objective.scale is not None:
        how = (
            f"Objective: the model's rating of the final answer (0-{objective.scale}, higher "
            f"is better), judged as eval judges it; the tune minimises the rating shortfall "
            f"{objective.scale} - rating, and an answer whose rating could not be read counts "
            f"as 0 and as unrated. {how}"
        )
    if any(r.tune_stopped or r.stopped for r in rows):
        how += (
            " Runs marked (budget cut) were stopped by the budget: their figures are of partial "
            "runs, left out of the plot and of the pick."
        )
    sim = (
        " Figures from the simulated model: they show how the search behaves on the sim's "
        "error laws, not how any real model does (docs/tuning.md)."
        if about.simulated
        else ""
    )
    text = table_markdown(
        rows, about.metric, about.title, how + sim + (f" Note: {note}." if note else ""), objective
    )
    (folder / "front.md").write_text(text)
    (folder / "front.csv").write_text(table_csv(rows, objective))
    plots = plot(rows, points, about.metric, about.title, folder, objective)
    return Written(text, [folder / "front.md", folder / "front.csv", *written, *plots], bool(plots))


def pick_text(chosen: Pick, metric: str, objective: Objective = ERRORS) -> str:
    """The header's pick rule, as `choose` applies it, and what it found: which candidate is
    best.yaml and why (the default, a trial that beat it, or a trial that gave way to it)."""
    rated = objective.scale is not None
    meets = (
        f"a tuning rating of at least {fmt(objective.shown(chosen.goal))}"
        if rated
        else f"tuning error at most {chosen.goal:g}"
    )
    if chosen.default is None:
        rule = f"Pick: the cheapest front graph with {meets} ({chosen.source})."
    else:
        worse = (
            "a lower rating, or the same rating at a higher cost"
            if rated
            else "a higher error, or the same error at a higher cost"
        )
        check = (
            "a pick that misses the target on the held-out split and is worse there than the "
            "default gives way to it"
            if chosen.target
            else f"a pick worse than the default on the held-out split ({worse}) gives way to it"
        )
        rule = (
            f"Pick: the cheapest of the front's graphs and the default got with {meets} "
            f"({chosen.source}); a tie goes to the default, and {check}."
        )
    if not any(r.tune_error <= chosen.goal for r in chosen.rows if r.on_front):
        rule += " No candidate meets it: the most accurate is the pick."
    return f"{rule} {_verdict(chosen, metric, objective)}"


def _verdict(chosen: Pick, metric: str, objective: Objective) -> str:
    """What the pick rule found, in one sentence."""
    default, tuned, measure = chosen.default, chosen.tuned, _measure(objective)

    def at(error: float | None, cost: float | None) -> str:
        return f"{fmt(objective.shown(error))} at {cost_text(cost)}"

    if default is None:
        return f"best.yaml is {tuned.name}."
    if tuned.name == DEFAULT:
        return (
            "No candidate beat the default: best.yaml is the default got "
            f"({measure} {at(default.tune_error, default.tune_cost)} {metric})."
        )
    tuning = (
        f"{measure} {at(tuned.tune_error, tuned.tune_cost)} {metric} against the default's "
        f"{at(default.tune_error, default.tune_cost)}"
    )
    won = (
        f"{tuned.name} meets the target on the tuning split ({tuning})"
        if chosen.target
        else f"{tuned.name} beat the default got on the tuning split ({tuning})"
    )
    held = (
        f"{measure} {at(tuned.holdout_error, tuned.holdout_cost)} against the default's "
        f"{at(default.holdout_error, default.holdout_cost)}"
    )
    if chosen.gave_way:
        lost = "misses the target and is worse than the default" if chosen.target else "is worse"
        return f"{won}, but on the held-out split it {lost} ({held}): best.yaml is the default got."
    if tuned.holdout_error is None or default.holdout_error is None:
        return f"{won}; no held-out figures to check it against: best.yaml is {tuned.name}."
    return f"{won} and held out ({held}): best.yaml is {tuned.name}."


def _measure(objective: Objective) -> str:
    return "error" if objective.scale is None else "rating"


def write_graphs(
    rows: Sequence[Row],
    folder: Path,
    chosen: Row,
    size: int | None = None,
    objective: Objective = ERRORS,
    task: str | None = None,
    candidates: Mapping[str, str] | None = None,
) -> list[Path]:
    """front-NN.yaml for every front graph and best.yaml for the pick: `solve --graph FILE` and
    `eval --graph FILE` run them as they are. Each says the `task` and `size` it was built
    for (another task's solve or eval refuses it), and a trial that chose its models
    (`--models`) the `--model-for` flags that run it with them."""
    written = []
    for number, row in enumerate((r for r in rows if r.on_front), start=1):
        path = folder / front_file(number)
        path.write_text(_graph_text(row, size, objective, task, candidates))
        written.append(path)
    best = folder / "best.yaml"
    best.write_text(_graph_text(chosen, size, objective, task, candidates))
    return [*written, best]


def model_flags(row: Row, candidates: Mapping[str, str] | None) -> str:
    """The `--model-for KIND=SPEC` flags that run a row with the models its trial chose ("":
    every call to `--model`), each endpoint's `user:password@` masked: the files are shared."""
    specs = candidates or {}
    return " ".join(
        f"--model-for {kind}={secrets.mask_urls(specs.get(name, name))}"
        for kind, name in row.routes
    )


def _graph_text(
    row: Row,
    size: int | None = None,
    objective: Objective = ERRORS,
    task: str | None = None,
    candidates: Mapping[str, str] | None = None,
) -> str:
    what = "error" if objective.scale is None else "model rating"
    of = "" if objective.scale is None else f"/{objective.scale}"
    tune, held = objective.shown(row.tune_error), objective.shown(row.holdout_error)
    header = (
        f"# thoughtgraph tune: {row.name}: {row.label}\n"
        f"# tuning split: {what} {fmt(tune)}{of}, cost {cost_text(row.tune_cost)}; "
        f"held-out: {what} {fmt(held)}{of if held is not None else ''}, "
        f"cost {cost_text(row.holdout_cost)}\n"
    )
    if row.scheme is not None:
        header += (
            f"# the figures are of {row.scheme} as eval runs it (eval --schemes {row.scheme}), "
            f"built for each row's size; this file holds it built for "
            f"{'the size below' if size is None else f'{size} items'}\n"
        )
    if row.routes:
        header += f"# its models: run it with {model_flags(row, candidates)}\n"
    made_for = {k: v for k, v in (("size", size), ("task", task)) if v is not None}
    graph = row.graph.model_copy(update=made_for)
    return header + graph.to_yaml()


def plot(
    rows: Sequence[Row],
    trials: Sequence[tuple[float, float]],
    metric: str,
    title: str,
    folder: Path,
    objective: Objective = ERRORS,
) -> list[Path]:
    """pareto.png/svg: every trial, the front, the baselines and the pick, tuning and held-out
    (for a model-scored task, the rating: higher is better).

    Needs matplotlib (`thoughtgraph[plot]`); without it no plot is written and [] comes back.
    """

    def y(value: float | None) -> float:
        shown = objective.shown(value)
        return 0.0 if shown is None else shown

    from thoughtgraph.evaluation.figures import lay_out

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    fig, ax = plt.subplots(figsize=(7.5, 5))
    if trials:
        ax.scatter(
            [c for _e, c in trials],
            [y(e) for e, _c in trials],
            s=14,
            c="0.75",
            label="trials (tuning split)",
        )
    front = sorted((r for r in rows if r.on_front), key=lambda r: r.tune_cost)
    ax.plot(
        [r.tune_cost for r in front],
        [y(r.tune_error) for r in front],
        "o-",
        c="tab:blue",
        drawstyle="steps-post",
        label="Pareto front (tuning split)",
    )
    held = [r for r in front if r.holdout_error is not None]
    ax.scatter(
        [r.holdout_cost or 0.0 for r in held],
        [y(r.holdout_error) for r in held],
        facecolors="none",
        edgecolors="tab:blue",
        s=60,
        label="front graphs, held-out split",
    )
    styles = {DEFAULT: ("s", "tab:red"), PAPER: ("^", "tab:green")}
    for r in rows:
        if r.name in styles:
            marker, colour = styles[r.name]
            if not r.tune_stopped:  # a run the budget cut short is not a measurement
                ax.scatter(
                    [r.tune_cost], [y(r.tune_error)], marker=marker, c=colour, s=80, label=r.name
                )
            if r.holdout_error is not None and not r.stopped:
                ax.scatter(
                    [r.holdout_cost or 0.0],
                    [y(r.holdout_error)],
                    marker=marker,
                    facecolors="none",
                    edgecolors=colour,
                    s=80,
                    label=f"{r.name}, held-out",
                )
        if r.mark == "pick":
            ax.scatter(
                [r.tune_cost],
                [y(r.tune_error)],
                marker="*",
                c="gold",
                edgecolors="k",
                s=220,
                label="pick (best.yaml)",
                zorder=5,
            )
    ax.set_xscale("log")
    ax.set_xlabel(f"cost per sample ({metric}, log scale)")
    ax.set_ylabel(
        "mean error per sample (clipped at the size)"
        if objective.scale is None
        else f"mean model rating per sample (0-{objective.scale}, higher is better)"
    )
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper right")
    lay_out(fig)
    paths = [folder / "pareto.png", folder / "pareto.svg"]
    for path in paths:
        fig.savefig(path, dpi=110)
    plt.close(fig)
    return paths
