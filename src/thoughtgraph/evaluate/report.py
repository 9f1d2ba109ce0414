"""Summaries and plots of an evaluation, computed only from results.jsonl."""

from __future__ import annotations

import csv
import io
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .runner import PairResult

COLUMNS = (
    "scheme",
    "samples",
    "median_error",
    "q1_error",
    "q3_error",
    "solved",
    "mean_requests",
    "mean_completions",
    "mean_tokens",
    "mean_cost",
    "total_cost",
    "median_final_score",
)


@dataclass(frozen=True)
class SchemeSummary:
    scheme: str
    samples: int
    median_error: float
    q1_error: float
    q3_error: float
    solved: int
    mean_requests: float
    mean_completions: float
    mean_tokens: float
    mean_cost: float
    total_cost: float
    median_final_score: float | None = None


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """Q1, median, Q3 (inclusive method; a single value is all three)."""
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def summarise(results: Sequence[PairResult], schemes: Sequence[str]) -> list[SchemeSummary]:
    rows = []
    for scheme in schemes:
        mine = [r for r in results if r.scheme == scheme]
        if not mine:
            continue
        q1, median, q3 = quartiles([r.error for r in mine])
        n = len(mine)
        rows.append(
            SchemeSummary(
                scheme,
                n,
                median,
                q1,
                q3,
                sum(r.solved for r in mine),
                sum(r.requests for r in mine) / n,
                sum(r.completions for r in mine) / n,
                sum(r.tokens for r in mine) / n,
                sum(r.cost for r in mine) / n,
                sum(r.cost for r in mine),
                _median([r.final_score for r in mine if r.final_score is not None]),
            )
        )
    return rows


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def to_csv(rows: Sequence[SchemeSummary]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(
            [
                ""
                if getattr(row, c) is None
                else round(getattr(row, c), 6)
                if isinstance(getattr(row, c), float)
                else getattr(row, c)
                for c in COLUMNS
            ]
        )
    return buffer.getvalue()


def to_markdown(
    rows: Sequence[SchemeSummary], title: str, note: str, score_column: bool = False
) -> str:
    """The summary table; `score_column` adds the median final score (doc-merge's model score)."""
    extra_head, extra_rule = (" median score |", "---:|") if score_column else ("", "")
    lines = [
        f"# {title}",
        "",
        note,
        "",
        (
            "| scheme | samples | median error | Q1-Q3 | solved | requests | completions | tokens "
            f"| cost (USD) |{extra_head}"
        ),
        f"|---|---:|---:|---:|---:|---:|---:|---:|---:|{extra_rule}",
    ]
    for r in rows:
        score = (
            f" {r.median_final_score:.2f} |"
            if score_column and r.median_final_score is not None
            else (" |" if score_column else "")
        )
        lines.append(
            f"| {r.scheme} | {r.samples} | {r.median_error:g} | {r.q1_error:g}-{r.q3_error:g} | "
            f"{r.solved} | {r.mean_requests:.1f} | {r.mean_completions:.1f} | "
            f"{r.mean_tokens:,.0f} | {r.total_cost:.4f} |{score}"
        )
    return "\n".join(lines) + "\n"


def plot(
    results: Sequence[PairResult], schemes: Sequence[str], size: int, title: str, out: Path
) -> list[Path]:
    """Box plots of the clipped error per scheme, total cost as bars on a second axis (like the
    paper's Figure 5; total tokens when no price is known). Needs matplotlib (the `plot` extra);
    returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    present = [s for s in schemes if any(r.scheme == s for r in results)]
    errors = [[r.clipped_error for r in results if r.scheme == s] for s in present]
    costs = [sum(r.cost for r in results if r.scheme == s) for s in present]
    bar_label = "total cost (USD)"
    if not any(costs):  # no price known (e.g. the simulated model): show tokens instead
        costs = [sum(r.tokens for r in results if r.scheme == s) / 1000 for s in present]
        bar_label = "total tokens (thousands; no price known)"
    fig, ax = plt.subplots(figsize=(1.4 * len(present) + 2.5, 4.2))
    ax.boxplot(errors, tick_labels=present, widths=0.55)
    ax.set_ylabel(f"error (clipped at {size})")
    ax.set_ylim(-0.5, size + 0.5)
    ax.set_title(title, fontsize=10)
    cost_axis = ax.twinx()
    cost_axis.bar(range(1, len(present) + 1), costs, alpha=0.25, color="tab:orange", width=0.6)
    cost_axis.set_ylabel(bar_label)
    cost_axis.set_ylim(bottom=0)
    ax.set_zorder(cost_axis.get_zorder() + 1)  # boxes in front of the cost bars
    ax.patch.set_visible(False)
    fig.tight_layout()
    written = []
    for suffix in ("png", "svg"):
        path = out / f"errors.{suffix}"
        fig.savefig(path, dpi=120)
        written.append(path)
    plt.close(fig)
    return written


def write_reports(
    results: Sequence[PairResult],
    schemes: Sequence[str],
    size: int,
    title: str,
    note: str,
    out: Path,
) -> list[Path]:
    """summary.md, summary.csv and (when matplotlib is installed and some pair ran) errors.png /
    errors.svg."""
    rows = summarise(results, schemes)
    score_column = any(r.final_score is not None and r.final_score != r.error for r in results)
    (out / "summary.csv").write_text(to_csv(rows))
    (out / "summary.md").write_text(to_markdown(rows, title, note, score_column))
    written = [out / "summary.md", out / "summary.csv"]
    try:
        if any(r.scheme in schemes for r in results):  # nothing ran: nothing to plot
            written += plot(results, schemes, size, title, out)
    except ImportError:
        pass
    if len(written) == 2:  # no plot now: leave no older one that would contradict the summary
        for suffix in ("png", "svg"):
            (out / f"errors.{suffix}").unlink(missing_ok=True)
    return written
