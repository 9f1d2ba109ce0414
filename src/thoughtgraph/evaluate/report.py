"""Summaries of an evaluation, computed only from results.jsonl (the figures: `figures.py`).

A task is measured the way the paper measures it: sorting, set intersection and keyword counting
by their error count (lower is better, with a "solved" count: the output equals the dataset's
reference); document merging by the model's score of the merge (0-10, higher is better: the
harmonic mean of redundancy and retention, paper Figure 8), with no "solved" (there is no
reference merge) and the code's lexical proxy shown beside it under its own name.
"""

from __future__ import annotations

import csv
import io
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from thoughtgraph.evaluate.measures import measure, settings
from thoughtgraph.evaluate.runner import PairResult, complete, incomplete, model_scored

COST_COLUMNS = ("mean_requests", "mean_completions", "mean_tokens", "mean_cost", "total_cost")
ERROR_COLUMNS = ("median_error", "q1_error", "q3_error", "solved")
SCORE_COLUMNS = ("median_score", "q1_score", "q3_score")
SCORE_LABEL = "model score (0-10, higher is better)"
PROXY_LABEL = "lexical proxy errors"


@dataclass(frozen=True)
class SchemeSummary:
    """One scheme's row: `median`/`q1`/`q3` are of the task's measure (error or model score)."""

    scheme: str
    samples: int
    median: float
    q1: float
    q3: float
    solved: int | None  # None: the task has no reference to be solved against
    mean_requests: float
    mean_completions: float
    mean_tokens: float
    mean_cost: float
    total_cost: float
    median_proxy_errors: float | None = None  # model-scored tasks: the code's lexical proxy
    worst_trace: str | None = None  # the trace of the scheme's worst run, if written


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """Q1, median, Q3 (inclusive method; a single value is all three)."""
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def worst(results: Sequence[PairResult], scored: bool) -> PairResult:
    """The run a user looks at first: the lowest score or the most errors (then sample id)."""
    sign = 1 if scored else -1
    return min(results, key=lambda r: (sign * measure(r, scored), str(r.sample)))


def summarise(
    results: Sequence[PairResult], schemes: Sequence[str], task: str | None = None
) -> list[SchemeSummary]:
    scored = task is not None and model_scored(task)
    rows = []
    for scheme in schemes:
        mine = [r for r in results if r.scheme == scheme]
        if not mine:
            continue
        q1, median, q3 = quartiles([measure(r, scored) for r in mine])
        n = len(mine)
        solved = [r.solved for r in mine if r.solved is not None]
        rows.append(
            SchemeSummary(
                scheme,
                n,
                median,
                q1,
                q3,
                sum(solved) if solved and not scored else None,
                sum(r.requests for r in mine) / n,
                sum(r.completions for r in mine) / n,
                sum(r.tokens for r in mine) / n,
                sum(r.cost for r in mine) / n,
                sum(r.cost for r in mine),
                statistics.median(r.error for r in mine) if scored else None,
                worst(mine, scored).trace,
            )
        )
    return rows


def columns(scored: bool) -> tuple[str, ...]:
    measured = SCORE_COLUMNS if scored else ERROR_COLUMNS
    tail = ("median_proxy_errors",) if scored else ()
    return ("scheme", "settings", "samples", *measured, *COST_COLUMNS, *tail, "worst_trace")


def to_csv(rows: Sequence[SchemeSummary], task: str | None = None, size: int = 0) -> str:
    scored = task is not None and model_scored(task)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns(scored))
    for row in rows:
        values = {
            "settings": settings(row.scheme, task, size),
            "median_error": row.median,
            "q1_error": row.q1,
            "q3_error": row.q3,
            "median_score": row.median,
            "q1_score": row.q1,
            "q3_score": row.q3,
        }
        writer.writerow(
            [_cell(values[c] if c in values else getattr(row, c)) for c in columns(scored)]
        )
    return buffer.getvalue()


def _cell(value: object) -> object:
    if value is None:
        return ""
    return round(value, 6) if isinstance(value, float) else value


def to_markdown(
    rows: Sequence[SchemeSummary],
    title: str,
    note: str,
    task: str | None = None,
    size: int = 0,
) -> str:
    """The summary table: one row per scheme, the worst run's trace linked from each row."""
    scored = task is not None and model_scored(task)
    if scored:
        head = f"| scheme | settings | samples | median {SCORE_LABEL} | Q1-Q3 | "
        tail = f" {PROXY_LABEL} (median) | worst run |"
        rule = "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    else:
        head = "| scheme | settings | samples | median error | Q1-Q3 | solved | "
        tail = " worst run |"
        rule = "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    lines = [
        f"# {title}",
        "",
        note,
        "",
        head + "requests | completions | tokens | cost (USD) |" + tail,
        rule,
    ]
    for r in rows:
        measured = f"{r.median:g} | {r.q1:g}-{r.q3:g} |"
        if scored:
            measured = f"{r.median:.2f} | {r.q1:.2f}-{r.q3:.2f} |"
        elif r.solved is not None:
            measured += f" {r.solved} |"
        else:
            measured += " n/a |"
        proxy = f" {r.median_proxy_errors:g} |" if scored else ""
        link = f" [trace]({r.worst_trace}) |" if r.worst_trace else " |"
        lines.append(
            f"| {r.scheme} | {settings(r.scheme, task, size)} | {r.samples} | {measured} "
            f"{r.mean_requests:.1f} | {r.mean_completions:.1f} | {r.mean_tokens:,.0f} | "
            f"{r.total_cost:.4f} |{proxy}{link}"
        )
    if scored:
        lines += [
            "",
            f"The {SCORE_LABEL} is the paper's Figure 8 measure: the model rates the final merge "
            "for redundancy and retention (3 samples each, averaged), combined by their harmonic "
            f"mean. The {PROXY_LABEL} are the code's word-overlap check (source clauses lost plus "
            "clauses said twice, lower is better); they see words, not meaning. There is no "
            "reference merge, so nothing is counted as solved.",
        ]
    return "\n".join(lines) + "\n"


def runs_section(
    results: Sequence[PairResult], schemes: Sequence[str], task: str | None, where: str = ""
) -> str:
    """Every run linked to its trace, worst first per scheme (empty without traces)."""
    scored = task is not None and model_scored(task)
    if not any(r.trace for r in results):
        return ""
    what = "score" if scored else "errors"
    lines = [
        "",
        f"## Runs{' at ' + where if where else ''} (worst first; {what} in brackets)",
        "",
        "Open one: `thoughtgraph trace view FOLDER --scheme SCHEME --sample N"
        + (" --size SIZE" if where else "")
        + "` (or `--row N`, the line of results.jsonl).",
        "",
    ]
    for scheme in schemes:
        mine = [r for r in results if r.scheme == scheme]
        sign = 1 if scored else -1
        mine.sort(key=lambda r: (sign * measure(r, scored), str(r.sample)))
        links = [
            f"[#{r.sample} ({measure(r, scored):.3g})]({r.trace})"
            if r.trace
            else f"#{r.sample} ({measure(r, scored):.3g})"
            for r in mine
        ]
        if links:
            lines.append(f"- **{scheme}**: " + ", ".join(links))
    return "\n".join(lines) + "\n"


def incomplete_section(results: Sequence[PairResult]) -> str:
    """Name the pairs the budget stopped: they are left out of the table and the figure."""
    stopped = incomplete(results)
    if not stopped:
        return ""
    which = ", ".join(f"{r.scheme}#{r.sample}" for r in stopped)
    return (
        f"\n**Incomplete:** {len(stopped)} pairs were stopped by the budget and are left out of "
        f"the table and the figure: {which}. Run the same command with a larger budget to "
        "finish them (with `--cache`, their answers so far are free).\n"
    )


def write_reports(
    results: Sequence[PairResult],
    schemes: Sequence[str],
    size: int,
    title: str,
    note: str,
    out: Path,
    *,
    task: str | None = None,
    panel_name: str = "",
) -> list[Path]:
    """summary.md, summary.csv and (when matplotlib is installed and some pair ran) the figure:
    errors.png / errors.svg, or scores.png / scores.svg for a model-scored task."""
    from thoughtgraph.evaluate.figures import FigureMissing, Panel, stem, write_figure

    rows = summarise(complete(results), schemes, task)
    (out / "summary.csv").write_text(to_csv(rows, task, size))
    markdown = to_markdown(rows, title, note, task, size) + incomplete_section(results)
    (out / "summary.md").write_text(markdown + runs_section(results, schemes, task))
    written = [out / "summary.md", out / "summary.csv"]
    panel = Panel(size, complete(results), panel_name)
    try:
        written += write_figure([panel], schemes, task, title, out)
    except FigureMissing:  # no figure now: leave no older one that would contradict the summary
        for suffix in ("png", "svg"):
            (out / f"{stem(task)}.{suffix}").unlink(missing_ok=True)
    return written
