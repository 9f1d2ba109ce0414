"""Summaries of an evaluation, computed only from results.jsonl (the figures: `figures.py`).

A task is measured the way the paper measures it: sorting, set intersection and keyword counting
by their error count (lower is better, with a "solved" count: the output matches the dataset's
reference, by the task's `matches_reference`); document merging by the model's score of the
merge (0-10, higher is better: the harmonic mean of redundancy and retention, paper Figure 8),
with no "solved" (there is no reference merge) and the code's lexical proxy shown beside it
under its own name.
"""

from __future__ import annotations

import csv
import io
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from thoughtgraph.evaluation.measures import (
    answered,
    measure,
    measured,
    rated,
    rating_text,
    settings,
    solved,
    unanswered,
    used,
)
from thoughtgraph.evaluation.record import Built
from thoughtgraph.evaluation.runner import PairResult, complete, incomplete, model_scored
from thoughtgraph.evaluation.statistics import (
    INSTALL_HINT as STATS_HINT,
)
from thoughtgraph.evaluation.statistics import (
    Pair,
    SchemeStats,
    scheme_pairs,
    scheme_stats,
)
from thoughtgraph.evaluation.statistics import (
    available as stats_available,
)
from thoughtgraph.spend.budget import dollars

# Per sample, what the scheme consumed (answers from the answer cache counted as if fetched):
# a property of the scheme, the same on a cold and a warm cache. What runs paid: `paid_section`.
COST_COLUMNS = ("mean_requests", "mean_completions", "mean_tokens", "mean_cost")
ERROR_COLUMNS = ("median_error", "q1_error", "q3_error", "solved")
SCORE_COLUMNS = ("median_score", "q1_score", "q3_score")
# 95% bootstrap intervals (empty without scipy) and, with --repeats, the spread across repeats
CI_COLUMNS = ("median_ci_low", "median_ci_high")
RATE_COLUMNS = ("solved_rate", "solved_rate_ci_low", "solved_rate_ci_high")
REPEAT_COLUMNS = ("repeats", "repeat_medians", "repeat_sd", "within_sample_sd")
PAIR_COLUMNS = (
    "a",
    "b",
    "samples",
    "median_a",
    "median_b",
    "median_difference",
    "difference_ci_low",
    "difference_ci_high",
    "p_wilcoxon",
    "effect_rank_biserial",
    "a_higher",
    "b_higher",
    "ties",
    "no_answer_a",
    "no_answer_b",
)


@dataclass(frozen=True)
class SchemeSummary:
    """One scheme's row: `median`/`q1`/`q3` are of the task's measure (error or model score),
    over the runs that are measurements (NaN when none is: every run unrated or unanswered)."""

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
    median_proxy_errors: float | None = None  # model-scored tasks: the code's check (proxy)
    worst_trace: str | None = None  # the trace of the scheme's worst run, if written
    repeats: int = 1  # runs of each sample (`--repeats`); `samples` counts samples
    stats: SchemeStats | None = None  # intervals and spread (None: scipy is not installed)
    unrated: int = 0  # model-scored tasks: runs whose final answer got no readable rating
    no_answer: int = 0  # runs the model never answered (every request failed or raised)


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """Q1, median, Q3 (inclusive method; a single value is all three)."""
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


NONE = (math.nan, math.nan, math.nan)


def worst(results: Sequence[PairResult], scored: bool) -> PairResult:
    """The run a user looks at first: an unrated one, else the lowest score or the most errors
    (then sample id)."""
    sign = 1 if scored else -1
    return min(
        results,
        key=lambda r: (rated(r, scored), sign * measure(r, scored), str(r.sample)),
    )


def summarise(
    results: Sequence[PairResult], schemes: Sequence[str], task: str | None = None
) -> list[SchemeSummary]:
    scored = task is not None and model_scored(task)
    rows = []
    for scheme in schemes:
        mine = [r for r in results if r.scheme == scheme]
        if not mine:
            continue
        counted = measured(mine, scored)
        q1, median, q3 = quartiles([measure(r, scored) for r in counted]) if counted else NONE
        n = len(mine)
        repeats = len({r.repeat for r in mine})
        known = [s for s in map(solved, mine) if s is not None]
        missing = len(unanswered(mine))
        rows.append(
            SchemeSummary(
                scheme,
                len({r.sample for r in mine}),
                median,
                q1,
                q3,
                sum(known) if known and not scored else None,
                sum(used(r)[0] for r in mine) / n,
                sum(r.completions for r in mine) / n,
                sum(used(r)[1] for r in mine) / n,
                sum(used(r)[2] for r in mine) / n,
                statistics.median(r.error for r in mine) if scored else None,
                worst(mine, scored).trace,
                repeats,
                scheme_stats(mine, scored) if stats_available() else None,
                n - len(counted) - missing,
                missing,
            )
        )
    return rows


def columns(scored: bool) -> tuple[str, ...]:
    measured = SCORE_COLUMNS if scored else ERROR_COLUMNS
    tail = ("unrated", "median_proxy_errors") if scored else ()
    rates = () if scored else RATE_COLUMNS
    return (
        "scheme",
        "settings",
        "samples",
        "no_answer",
        *measured,
        *CI_COLUMNS,
        *rates,
        *COST_COLUMNS,
        *tail,
        *REPEAT_COLUMNS,
        "worst_trace",
    )


def to_csv(
    rows: Sequence[SchemeSummary],
    task: str | None = None,
    size: int = 0,
    built: Mapping[str, Built] | None = None,
) -> str:
    """summary.csv: one line per row; `built` is what the run recorded of its rows (their
    settings column), None for a folder from before the record."""
    scored = task is not None and model_scored(task)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns(scored))
    for row in rows:
        values = {
            "settings": settings(row.scheme, task, size, (built or {}).get(row.scheme)),
            "median_error": row.median,
            "q1_error": row.q1,
            "q3_error": row.q3,
            "median_score": row.median,
            "q1_score": row.q1,
            "q3_score": row.q3,
            **stats_cells(row),
        }
        writer.writerow(
            [_cell(values[c] if c in values else getattr(row, c)) for c in columns(scored)]
        )
    return buffer.getvalue()


def stats_cells(row: SchemeSummary) -> dict[str, object]:
    """The summary's interval and repeat columns of one row (empty cells without scipy)."""
    cells: dict[str, object] = dict.fromkeys(CI_COLUMNS + RATE_COLUMNS + REPEAT_COLUMNS)
    cells["repeats"] = row.repeats
    if row.stats is None:
        return cells
    cells |= {"median_ci_low": row.stats.median.low, "median_ci_high": row.stats.median.high}
    rate = row.stats.solved_rate
    if rate is not None:
        cells |= {
            "solved_rate": rate.value,
            "solved_rate_ci_low": rate.low,
            "solved_rate_ci_high": rate.high,
        }
    spread = row.stats.spread
    if spread is not None:
        cells |= {
            "repeat_medians": " ".join(f"{m:g}" for m in spread.medians),
            "repeat_sd": spread.sd,
            "within_sample_sd": spread.within,
        }
    return cells


def _cell(value: object) -> object:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return round(value, 6) if isinstance(value, float) else value


def _solved(row: SchemeSummary) -> str:
    if row.solved is None:
        return "n/a"
    rate = None if row.stats is None else row.stats.solved_rate
    if rate is None:
        return str(row.solved)
    return f"{row.solved} ({rate.value:.0%}, {rate.low:.0%}-{rate.high:.0%})"


def to_markdown(
    rows: Sequence[SchemeSummary],
    title: str,
    note: str,
    task: str | None = None,
    size: int = 0,
    built: Mapping[str, Built] | None = None,
) -> str:
    """The summary table: one row per scheme, the worst run's trace linked from each row. A
    `no answer` column is there when some run got none; `built` as for `to_csv`."""
    scored = task is not None and model_scored(task)
    words = rating_text(task)
    missing = any(r.no_answer for r in rows)
    samples_head = "samples | no answer |" if missing else "samples |"
    if scored:
        head = (
            f"| scheme | settings | {samples_head} median {words.label} | 95% CI | Q1-Q3 | "
            "unrated | "
        )
        tail = f" {words.proxy_label} (median) | worst run |"
    else:
        head = f"| scheme | settings | {samples_head} median error | 95% CI | Q1-Q3 | solved | "
        tail = " worst run |"
    rule = "|---|---|" + "---:|" * ((10 if scored else 9) + missing) + "---|"
    lines = [
        f"# {title}",
        "",
        note,
        "",
        head + "requests | completions | tokens | cost (USD) |" + tail,
        rule,
    ]
    fmt = ".2f" if scored else "g"
    for r in rows:
        ci = r.stats.median if r.stats else None
        interval = "" if ci is None else f"{ci.low:{fmt}}-{ci.high:{fmt}}"
        if math.isnan(r.median):
            shown = "n/a | | n/a |"
        else:
            shown = f"{r.median:{fmt}} | {interval} | {r.q1:{fmt}}-{r.q3:{fmt}} |"
        shown += f" {r.unrated} |" if scored else f" {_solved(r)} |"
        proxy = f" {r.median_proxy_errors:g} |" if scored else ""
        link = f" [trace]({r.worst_trace}) |" if r.worst_trace else " |"
        samples = f"{r.samples}" + (f" x {r.repeats}" if r.repeats > 1 else "")
        samples += f" | {r.no_answer}" if missing else ""
        lines.append(
            f"| {r.scheme} | {settings(r.scheme, task, size, (built or {}).get(r.scheme))} | "
            f"{samples} | {shown} "
            f"{r.mean_requests:.1f} | {r.mean_completions:.1f} | {r.mean_tokens:,.0f} | "
            f"{dollars(r.mean_cost, sign='')} |{proxy}{link}"
        )
    lines += [
        "",
        "95% CI: a bootstrap confidence interval of the median (2,000 resamples of the samples, "
        "each with all its repeats); solved: runs whose answer matches the reference (the task's "
        "matches_reference), with the rate and its 95% CI."
        if rows and rows[0].stats is not None
        else f"No confidence intervals: scipy is not installed ({STATS_HINT}).",
    ]
    lines += [
        "",
        "Requests, completions, tokens and cost are per sample and are what the scheme consumed, "
        "answers from the answer cache counted as if fetched (requests: the graph's model calls), "
        "so they do not depend on what ran before; what the runs paid is under Totals.",
    ]
    if missing:
        lines += [
            "",
            "No answer: runs whose every model request failed or raised, so no answer of the "
            "model was measured; they are left out of the median, its interval, the quartiles, "
            "the pairs and the figure (never counted as the placeholder's errors) and are not "
            "solved.",
        ]
    if scored:
        lines += [
            "",
            f"The {words.label} is {words.note}. Unrated: runs whose final answer the model was "
            "asked to rate and no rating could be read from its replies; they are left out of "
            "the median, its interval and the figure (never counted as a 0) and their runs are "
            f"not clean. The {words.proxy_label} are {words.proxy_note}. There is no reference "
            "answer, so nothing is counted as solved.",
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
        mine.sort(key=lambda r: (rated(r, scored), sign * measure(r, scored), str(r.sample)))
        links = [
            f"[#{r.sample} ({_measure_shown(r, scored)})]({r.trace})"
            if r.trace
            else f"#{r.sample} ({_measure_shown(r, scored)})"
            for r in mine
        ]
        if links:
            lines.append(f"- **{scheme}**: " + ", ".join(links))
    return "\n".join(lines) + "\n"


def _measure_shown(result: PairResult, scored: bool) -> str:
    if not answered(result):
        return "no answer"
    return f"{measure(result, scored):.3g}" if rated(result, scored) else "unrated"


def repeats_section(rows: Sequence[SchemeSummary], where: str = "") -> str:
    """With `--repeats`: how much each scheme's median moves between repeats."""
    spread = [(r.scheme, r.stats.spread) for r in rows if r.stats and r.stats.spread]
    if not spread:
        return ""
    lines = [
        "",
        f"## Repeats{' at ' + where if where else ''}",
        "",
        "| scheme | median in each repeat | SD of those medians | mean SD of a sample across "
        "repeats |",
        "|---|---|---:|---:|",
    ]
    for scheme, s in spread:
        medians = ", ".join(f"{m:g}" for m in s.medians)
        lines.append(f"| {scheme} | {medians} | {s.sd:.3g} | {s.within:.3g} |")
    return "\n".join(lines) + "\n"


def pair_rows(
    results: Sequence[PairResult], schemes: Sequence[str], task: str | None
) -> list[Pair]:
    """Every two schemes compared on their shared samples ([] without scipy)."""
    if not stats_available():
        return []
    scored = task is not None and model_scored(task)
    return scheme_pairs(results, schemes, scored)


def pairs_section(pairs: Sequence[Pair], task: str | None, where: str = "") -> str:
    """The paired comparisons: per two schemes, the median per-sample difference with its 95%
    CI, the Wilcoxon signed-rank p-value and the rank-biserial effect size."""
    if not pairs:
        return ""
    scored = task is not None and model_scored(task)
    what = "score (higher is better)" if scored else "errors (lower is better)"
    lines = [
        "",
        f"## Pairs{' at ' + where if where else ''}",
        "",
        f"Each two schemes on the samples both ran ({what}; a sample's repeats averaged): the "
        "median of the per-sample differences A - B with its 95% bootstrap CI, the two-sided "
        "Wilcoxon signed-rank p-value, the matched-pairs rank-biserial correlation (effect size, "
        "-1..1; positive: A's measure is higher) and the samples on which each is better.",
        "",
        "| A | B | samples | median A | median B | A - B | 95% CI | p | effect | A better | "
        "B better | ties |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for p in pairs:
        t = p.test
        a_better, b_better = (t.a_higher, t.b_higher) if scored else (t.b_higher, t.a_higher)
        lines.append(
            f"| {p.a} | {p.b} | {t.samples} | {p.median_a:.3g} | {p.median_b:.3g} | "
            f"{t.difference.value:+.3g} | {t.difference.low:+.3g}, {t.difference.high:+.3g} | "
            f"{_p(t.p)} | {t.effect:+.2f} | {a_better} | {b_better} | {t.ties} |"
        )
    missing = {p.a: p.no_answer_a for p in pairs} | {p.b: p.no_answer_b for p in pairs}
    if any(missing.values()):
        which = ", ".join(f"{scheme} {n}" for scheme, n in missing.items() if n)
        lines += ["", f"Runs left out because the model never answered them: {which}."]
    return "\n".join(lines) + "\n"


def _p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def pairs_csv(pairs: Sequence[Pair], size: int | None = None) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow((("size",) if size is not None else ()) + PAIR_COLUMNS)
    for p in pairs:
        t = p.test
        row: tuple[object, ...] = (p.a, p.b, t.samples, p.median_a, p.median_b)
        row += (t.difference.value, t.difference.low, t.difference.high, t.p, t.effect)
        row += (t.a_higher, t.b_higher, t.ties, p.no_answer_a, p.no_answer_b)
        writer.writerow(((size,) if size is not None else ()) + tuple(_cell(v) for v in row))
    return buffer.getvalue()


def totals_section(results: Sequence[PairResult], where: str = "") -> str:
    """The run totals, both ways: what the schemes consumed and what the runs paid (answers from
    the answer cache are free, retries are paid), over every pair written to the folder."""
    if not results:
        return ""
    requests, tokens, cost = (sum(x) for x in zip(*(used(r) for r in results), strict=True))
    paid = (sum(r.requests for r in results), sum(r.tokens for r in results))
    paid_cost = sum(r.cost for r in results)
    return (
        f"\n**Totals{' at ' + where if where else ''}** ({len(results)} pairs): the schemes "
        f"consumed {requests:,} requests, {tokens:,} tokens, {dollars(cost)}; the runs paid "
        f"{paid[0]:,} requests, {paid[1]:,} tokens, {dollars(paid_cost)} (answers from the answer "
        "cache are free; retries are paid).\n"
    )


def models_section(results: Sequence[PairResult], where: str = "") -> str:
    """What each model was paid, per scheme, when kinds of call were routed to other models
    (`--model-for`): calls, requests, tokens and cost summed over the pairs, and the kinds it
    answered. "" when every call went to one model."""
    routed = [r for r in results if r.spend_by_model]
    if not routed:
        return ""
    totals: dict[tuple[str, str], dict[str, Any]] = {}
    for result in routed:
        for label, figures in (result.spend_by_model or {}).items():
            row = totals.setdefault(
                (result.scheme, label),
                {"calls": 0, "requests": 0, "tokens": 0, "cost": 0.0, "kinds": []},
            )
            for name in ("calls", "requests", "tokens", "cost"):
                row[name] += figures.get(name) or 0
            row["kinds"] += [k for k in figures.get("kinds") or [] if k not in row["kinds"]]
    lines = [
        f"\n**Per model{' at ' + where if where else ''}** (what the runs paid each model, "
        f"summed over {len(routed)} pairs):\n",
        "| scheme | model | kinds | calls | requests | tokens | cost (USD) |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for (scheme, label), row in totals.items():
        kinds = ", ".join(row["kinds"]) or "none"
        lines.append(
            f"| {scheme} | {label} | {kinds} | {row['calls']:,} | {row['requests']:,} | "
            f"{row['tokens']:,} | {dollars(row['cost'], sign='')} |"
        )
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
    unclipped: bool = False,
    built: Mapping[str, Built] | None = None,
    figure: bool = True,
) -> list[Path]:
    """summary.md, summary.csv and (when `figure`, matplotlib is installed and some pair ran)
    the figure: errors.png / errors.svg, or scores.png / scores.svg for a model-scored task."""
    from thoughtgraph.evaluation.figures import FigureMissing, Panel, remove_figure, write_figure

    rows = summarise(complete(results), schemes, task)
    pairs = pair_rows(complete(results), schemes, task)
    (out / "summary.csv").write_text(to_csv(rows, task, size, built))
    markdown = (
        to_markdown(rows, title, note, task, size, built)
        + incomplete_section(results)
        + totals_section(results)
        + models_section(results)
        + repeats_section(rows)
        + pairs_section(pairs, task)
    )
    (out / "summary.md").write_text(markdown + runs_section(results, schemes, task))
    written = [out / "summary.md", out / "summary.csv"]
    if pairs:
        (out / "pairs.csv").write_text(pairs_csv(pairs))
        written.append(out / "pairs.csv")
    else:
        (out / "pairs.csv").unlink(missing_ok=True)
    if not figure:
        remove_figure(task, out)
        return written
    panel = Panel(size, complete(results), panel_name, unclipped, built)
    try:
        written += write_figure([panel], schemes, task, title, out)
    except FigureMissing:  # no figure now: leave no older one that would contradict the summary
        remove_figure(task, out)
    return written
