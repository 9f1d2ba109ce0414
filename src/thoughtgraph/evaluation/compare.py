"""Compare evaluation runs (two models, two prompt sets, before and after a change) on the
(scheme, size, sample) rows they share.

Each run is an `eval` output folder: one size (`results.jsonl` at its top) or several
(`size-N/` folders). The first run is the baseline; every other run is compared with it per
scheme and size, on the samples both ran (a sample's repeats averaged first): both medians, the
median of the per-sample differences (run - baseline) with its 95% bootstrap CI, the Wilcoxon
signed-rank p-value and the rank-biserial effect size (`statistics.paired`), the solved counts
and what each scheme consumed per sample. Runs the model never answered are left out of the
measures (each side's count is shown) and are not solved. Runs of different tasks or datasets
are refused: their samples are not the same problems.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from thoughtgraph.errors import InputError
from thoughtgraph.evaluation import record
from thoughtgraph.evaluation.measures import measured, size_shown, solved, unanswered, used
from thoughtgraph.evaluation.record import Built
from thoughtgraph.evaluation.runner import (
    MANIFEST,
    RESULTS,
    PairResult,
    complete,
    latest,
    load_results,
    model_scored,
)
from thoughtgraph.evaluation.statistics import (
    Interval,
    compare_measures,
    per_sample_means,
)
from thoughtgraph.io.bounds import MAX_RUN_FILE_BYTES, read_file
from thoughtgraph.io.strictload import read_json
from thoughtgraph.schemes import SCHEMES
from thoughtgraph.spend.budget import dollars


@dataclass(frozen=True)
class RunSize:
    """One size of a run: its dataset, its complete results, what it recorded of how its rows
    were built (None: a folder from before the record) and its size as tables show it ("32";
    a data file's rows: "12-101", or "rows" when not recorded)."""

    dataset: str
    results: list[PairResult]
    built: dict[str, Built] | None
    shown: str


@dataclass(frozen=True)
class Run:
    """One evaluation folder: its task and, per size, its dataset and complete results."""

    label: str
    path: Path
    task: str
    model: str
    sizes: dict[int, RunSize]
    prompts: str | None = None  # the hash of the prompt texts it ran with (`eval --prompts`)


def load_run(path: Path, label: str | None = None) -> Run:
    """Read an eval folder (one size, or several in `size-N/`); one `error:` line otherwise."""
    if not path.is_dir():
        raise InputError(f"{path} is not an eval output folder (no such folder)")
    folders = [path] if (path / MANIFEST).is_file() else sorted(path.glob("size-*/"))
    folders = [f for f in folders if (f / MANIFEST).is_file()]
    if not folders:
        raise InputError(f"{path} is not an eval output folder (no {MANIFEST} in it)")
    sizes: dict[int, RunSize] = {}
    task = model = None
    prompts = None
    for folder in folders:
        try:  # bounded and strict, as every file read: one line for a damaged one
            text = read_file(folder / MANIFEST, MAX_RUN_FILE_BYTES, "the eval manifest")
            manifest = read_json(text)
            size, dataset = int(manifest["size"]), str(manifest["dataset"])
            task, model = str(manifest["task"]), str(manifest["model"])
            model += _routes_shown(manifest.get("model_for"))
            prompts = manifest.get("prompts_hash")
        except (OSError, ValueError, KeyError, TypeError):
            raise InputError(f"{folder / MANIFEST} is not an evaluation manifest") from None
        if not (folder / RESULTS).exists():
            continue
        results = complete(latest(load_results(folder)))
        built = record.rows_read(manifest, str(folder / MANIFEST))
        shown = size_shown(size, record.sizes_read(manifest), "data_sha256" in manifest)
        sizes[size] = RunSize(dataset, results, built, shown)
    assert task is not None and model is not None
    return Run(label or str(path), path, task, model, sizes, prompts)


def _routes_shown(routed: object) -> str:
    """The kinds an eval routed to other models, as the model's name is followed by them
    (` (merge: NAME)`); "" when none (or a folder from before routing)."""
    if not isinstance(routed, dict) or not routed:
        return ""
    return " (" + "; ".join(f"{kind}: {name}" for kind, name in routed.items()) + ")"


def check_comparable(runs: Sequence[Run]) -> None:
    """One line when two runs are not of one task and dataset, or share no row."""
    base = runs[0]
    for other in runs[1:]:
        if other.task != base.task:
            raise InputError(
                f"{other.label} is an evaluation of {other.task}, {base.label} of {base.task}: "
                "compare runs of one task"
            )
        for size in set(base.sizes) & set(other.sizes):
            if other.sizes[size].dataset != base.sizes[size].dataset:
                raise InputError(
                    f"{other.label} ran dataset {other.sizes[size].dataset}, {base.label} "
                    f"{base.sizes[size].dataset}: compare runs of one dataset"
                )
        if not shared_rows(base, other):
            raise InputError(
                f"{base.label} and {other.label} share no (scheme, size, sample) row to compare"
            )


def shared_rows(a: Run, b: Run) -> set[tuple[str, int, int | str]]:
    def rows(run: Run) -> set[tuple[str, int, int | str]]:
        return {(r.scheme, size, r.sample) for size, one in run.sizes.items() for r in one.results}

    return rows(a) & rows(b)


@dataclass(frozen=True)
class Row:
    """One scheme at one size: `run` against the baseline on their shared samples."""

    scheme: str
    size: int
    baseline: str
    run: str
    samples: int
    median_baseline: float
    median_run: float
    difference: Interval  # median of (run - baseline) per sample, with its 95% CI
    p: float
    effect: float
    solved_baseline: int | None
    solved_run: int | None
    tokens_baseline: float  # per sample, what the scheme consumed
    tokens_run: float
    cost_baseline: float
    cost_run: float
    no_answer_baseline: int = 0  # runs of the samples both have that the model never answered
    no_answer_run: int = 0
    size_shown: str = ""  # the size as the runs show it (a data file's rows: "12-101", "rows")


def compare(runs: Sequence[Run]) -> list[Row]:
    """Every run after the first against the first, per scheme and size (the baseline's order)."""
    import numpy as np

    check_comparable(runs)
    scored = model_scored(runs[0].task)
    base = runs[0]
    rows = []
    for other in runs[1:]:
        for size in sorted(set(base.sizes) & set(other.sizes)):
            a_all, b_all = base.sizes[size].results, other.sizes[size].results
            shown = shared_size(base.sizes[size], other.sizes[size])
            schemes = ordered({r.scheme for r in a_all})
            for scheme in schemes:
                a = [r for r in a_all if r.scheme == scheme]
                b = [r for r in b_all if r.scheme == scheme]
                shared, test = compare_measures(
                    per_sample_means(b, scored), per_sample_means(a, scored)
                )
                if not shared:
                    continue
                both = {r.sample for r in a} & {r.sample for r in b}
                missing_a, missing_b = (
                    len(unanswered([r for r in x if r.sample in both])) for x in (a, b)
                )
                a = [r for r in a if r.sample in shared]
                b = [r for r in b if r.sample in shared]
                means_a, means_b = per_sample_means(a, scored), per_sample_means(b, scored)
                rows.append(
                    Row(
                        scheme,
                        size,
                        base.label,
                        other.label,
                        len(shared),
                        float(np.median([means_a[s] for s in shared])),
                        float(np.median([means_b[s] for s in shared])),
                        test.difference,
                        test.p,
                        test.effect,
                        _solved(a, scored),
                        _solved(b, scored),
                        _mean([used(r)[1] for r in a]),
                        _mean([used(r)[1] for r in b]),
                        _mean([used(r)[2] for r in a]),
                        _mean([used(r)[2] for r in b]),
                        missing_a,
                        missing_b,
                        shown,
                    )
                )
    return rows


def shared_size(a: RunSize, b: RunSize) -> str:
    """The size two runs of one dataset show: the first's, unless only the other recorded it."""
    return b.shown if a.shown == "rows" else a.shown


def ordered(schemes: set[str]) -> list[str]:
    """The built-in schemes in their registry order (io, cot, ..., got_paper), others after."""
    known = list(SCHEMES)
    return sorted(schemes, key=lambda s: (known.index(s) if s in known else len(known), s))


def _solved(results: Sequence[PairResult], scored: bool) -> int | None:
    known = [s for s in map(solved, results) if s is not None]
    return None if scored or not known else sum(known)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


COLUMNS = (
    "scheme",
    "size",
    "baseline",
    "run",
    "samples",
    "median_baseline",
    "median_run",
    "difference",
    "difference_ci_low",
    "difference_ci_high",
    "p_wilcoxon",
    "effect_rank_biserial",
    "solved_baseline",
    "solved_run",
    "tokens_baseline",
    "tokens_run",
    "cost_baseline",
    "cost_run",
    "no_answer_baseline",
    "no_answer_run",
)


def as_records(rows: Sequence[Row]) -> list[dict[str, Any]]:
    records = []
    for row in rows:
        data = asdict(row)
        diff = data.pop("difference")
        shown = data.pop("size_shown")
        data.update(
            size=row.size if shown in ("", str(row.size)) else shown,
            difference=diff["value"],
            difference_ci_low=diff["low"],
            difference_ci_high=diff["high"],
            p_wilcoxon=data.pop("p"),
            effect_rank_biserial=data.pop("effect"),
        )
        records.append({c: data[c] for c in COLUMNS})
    return records


def to_csv(rows: Sequence[Row]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, COLUMNS, lineterminator="\n")
    writer.writeheader()
    for line in as_records(rows):
        writer.writerow({k: _cell(v) for k, v in line.items()})
    return buffer.getvalue()


def _cell(value: object) -> object:
    if value is None:
        return ""
    return round(value, 6) if isinstance(value, float) else value


def to_json(rows: Sequence[Row], runs: Sequence[Run]) -> str:
    meta = [
        {"label": r.label, "path": str(r.path), "model": r.model, "prompts_hash": r.prompts}
        for r in runs
    ]
    return json.dumps({"task": runs[0].task, "runs": meta, "rows": as_records(rows)}, indent=1)


def to_markdown(rows: Sequence[Row], runs: Sequence[Run]) -> str:
    scored = model_scored(runs[0].task)
    what = "model score (higher is better)" if scored else "errors (lower is better)"
    lines = [f"# Compare: {runs[0].task}", ""]
    for i, run in enumerate(runs):
        role = "baseline" if i == 0 else "run"
        prompts = f", prompts {run.prompts[:12]}" if run.prompts else ""
        lines.append(f"- {role} `{run.label}`: model {run.model}{prompts}")
    lines += [
        "",
        f"Per scheme and size, on the samples both runs have ({what}; a sample's repeats "
        "averaged): each run's median, the median of the per-sample differences run - baseline "
        "with its 95% bootstrap CI, the two-sided Wilcoxon signed-rank p-value, the rank-biserial "
        "effect size (-1..1), the runs solved (repeats included) and the tokens and cost each "
        "scheme consumed per sample (answers from the cache included).",
        "",
    ]
    several = len(runs) > 2
    head = "| scheme | size |" + (" run |" if several else "")
    lines += [
        head + " samples | median A | median B | B - A | 95% CI | p | effect | solved A | "
        "solved B | tokens A | tokens B | cost A | cost B |",
        "|---|---:|" + ("---|" if several else "") + "---:|" * 13,
    ]
    for r in rows:
        d = r.difference
        solved = " | ".join(
            "n/a" if s is None else str(s) for s in (r.solved_baseline, r.solved_run)
        )
        lines.append(
            f"| {r.scheme} | {r.size_shown or r.size} |"
            + (f" {r.run} |" if several else "")
            + f" {r.samples} | {r.median_baseline:.3g} | {r.median_run:.3g} | {d.value:+.3g} | "
            f"{d.low:+.3g}, {d.high:+.3g} | {_p(r.p)} | {r.effect:+.2f} | {solved} | "
            f"{r.tokens_baseline:,.0f} | {r.tokens_run:,.0f} | "
            f"{dollars(r.cost_baseline, sign='')} | {dollars(r.cost_run, sign='')} |"
        )
    other = "each other run" if several else "the second"
    lines += ["", f"A is the baseline (the first run), B {other}."]
    missing = [r for r in rows if r.no_answer_baseline or r.no_answer_run]
    if missing:
        which = ", ".join(
            f"{r.scheme} at {r.size}"
            + (f" ({r.run})" if several else "")
            + f": A {r.no_answer_baseline}, B {r.no_answer_run}"
            for r in missing
        )
        lines += [
            "",
            f"Runs left out because the model never answered them (not solved): {which}.",
        ]
    return "\n".join(lines) + "\n"


def _p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def write_figure(runs: Sequence[Run], path: Path) -> Path:
    """The runs side by side per scheme: one panel per shared size, per scheme one box per run
    (the baseline first), on the samples all the runs share."""
    from thoughtgraph.evaluation.figures import FigureMissing, lay_out
    from thoughtgraph.evaluation.measures import label, plotted

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError as exc:
        from thoughtgraph.evaluation.figures import INSTALL_HINT

        raise FigureMissing(f"no figure: matplotlib is not installed ({INSTALL_HINT})") from exc
    scored = model_scored(runs[0].task)
    sizes = sorted(set.intersection(*(set(r.sizes) for r in runs)))
    first = runs[0].sizes
    colours = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3")
    fig, axes = plt.subplots(1, len(sizes), figsize=(6.5 * len(sizes), 4.8), squeeze=False)
    width = 0.8 / len(runs)
    for ax, size in zip(axes[0], sizes, strict=True):
        schemes = ordered({r.scheme for r in first[size].results})
        for j, run in enumerate(runs):
            answered = measured(run.sizes[size].results, scored)
            data = [
                [plotted(r, scored) for r in answered if r.scheme == s] or [float("nan")]
                for s in schemes
            ]
            positions = [i + 1 + (j - (len(runs) - 1) / 2) * width for i in range(len(schemes))]
            boxes = ax.boxplot(
                data,
                positions=positions,
                widths=width * 0.9,
                patch_artist=True,
                medianprops={"color": "black", "linewidth": 2},
                flierprops={"markersize": 2},
            )
            for scheme, box in zip(schemes, boxes["boxes"], strict=True):
                box.set_facecolor(colours[j % len(colours)])
                box.set_gid(f"box-{scheme}-{size}-run{j}")
        ax.set_xticks(range(1, len(schemes) + 1))
        built = first[size].built
        ticks = [
            label(s, runs[0].task, size, None if built is None else built.get(s)) for s in schemes
        ]
        ax.set_xticklabels(ticks, rotation=30, ha="right")
        ax.tick_params(axis="x", labelsize=8)
        ax.set_title(panel_title(first[size]), fontsize=10)
        ax.set_ylabel("score (0-10); higher is better" if scored else "#errors; lower is better")
    handles = [
        Patch(facecolor=colours[j % len(colours)], label=run.label) for j, run in enumerate(runs)
    ]
    fig.legend(handles=handles, loc="lower center", ncol=len(runs), fontsize=8, frameon=False)
    fig.suptitle(f"{runs[0].task}: runs side by side", fontsize=10)
    lay_out(fig, (0, 0.06, 1, 1))
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def panel_title(size: RunSize) -> str:
    """A panel's title: "P = 32", "P = 12-101" (a data file's rows), or the data file's name
    when its run did not record its rows' sizes."""
    return f"{size.dataset} (rows)" if size.shown == "rows" else f"P = {size.shown}"
