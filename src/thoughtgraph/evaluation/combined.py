"""The reports of an evaluation at several sizes (`eval --size 32,64`): a folder per size, each
a whole evaluation with its own reports, and at the top one `summary.md` / `summary.csv` with a
table per size, `pairs.csv` with a size column, and the paper's figure with a panel per size.

Also the one title every report of an evaluation carries (`title`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from thoughtgraph.evaluation.runner import EvalPlan, PairResult, complete, rows_built, sized

Outcome = tuple[EvalPlan, Path, list[PairResult]]
"""One size of an evaluation: its plan, its folder and its pairs' results."""


def title(the_plan: EvalPlan, model: str, simulated: bool, several: bool = False) -> str:
    """What the reports are of: the task and its dataset (or size), samples, repeats, model."""
    if several:
        what = the_plan.task
    elif sized(the_plan.dataset):
        what = f"{the_plan.task} {the_plan.size}"
    else:  # one dataset, no size to claim
        what = f"{the_plan.task} on {the_plan.dataset}"
    samples = f"{len(the_plan.samples)} samples"
    if the_plan.repeats > 1:
        samples += f" x {the_plan.repeats} repeats"
    if the_plan.data_sha256 is not None:
        what = f"{the_plan.task} on {the_plan.dataset}"
    return f"{what}: {samples}, model {model}" + (" (simulated)" if simulated else "")


def model_note(model: str, simulated: bool) -> str:
    """The line under every report's title saying which model the figures are of."""
    if simulated:
        return (
            "Figures from the simulated model: they test the engine and the schemes, not any "
            "real model."
        )
    return f"Model: {model}."


def write_combined(
    outcomes: Sequence[Outcome], heading: str, note: str, root: Path, figure: bool = True
) -> list[Path]:
    """The several-size evaluation's own summary.md / summary.csv (one table per size, trace
    links relative to `root`) and (when `figure`) its figure: one panel per size, as in the
    paper."""
    from thoughtgraph.evaluation.figures import FigureMissing, Panel, remove_figure, write_figure
    from thoughtgraph.evaluation.report import (
        incomplete_section,
        models_section,
        pair_rows,
        pairs_csv,
        pairs_section,
        repeats_section,
        runs_section,
        summarise,
        to_csv,
        to_markdown,
        totals_section,
    )

    sections = [f"# {heading}", "", note, ""]
    csv_lines: list[str] = []
    pair_lines: list[str] = []
    panels = []
    runs = []
    for the_plan, folder, results in outcomes:
        prefix = folder.relative_to(root).as_posix()
        linked = [replace(r, trace=f"{prefix}/{r.trace}") if r.trace else r for r in results]
        rows = summarise(complete(linked), the_plan.schemes, the_plan.task)
        built = rows_built(the_plan)
        table = to_markdown(rows, "", "", the_plan.task, the_plan.size, built).split("\n", 4)[4]
        where = f"size {the_plan.size}"
        table += incomplete_section(linked) + totals_section(linked)
        table += models_section(linked, where)
        pairs = pair_rows(complete(results), the_plan.schemes, the_plan.task)
        table += repeats_section(rows, where) + pairs_section(pairs, the_plan.task, where)
        pair_lines += pairs_csv(pairs, the_plan.size).splitlines()[(1 if pair_lines else 0) :]
        sections += [
            f"## {the_plan.dataset} (size {the_plan.size}: [{prefix}/summary.md]"
            f"({prefix}/summary.md))",
            "",
            table,
        ]
        body = to_csv(rows, the_plan.task, the_plan.size, built).splitlines()
        if not csv_lines:
            csv_lines.append("size," + body[0])
        csv_lines += [f"{the_plan.size},{line}" for line in body[1:]]
        panels.append(Panel(the_plan.size, complete(results), built=built))
        runs.append(runs_section(linked, the_plan.schemes, the_plan.task, f"size {the_plan.size}"))
    root.mkdir(parents=True, exist_ok=True)
    (root / "summary.md").write_text("\n".join(sections) + "".join(runs))
    (root / "summary.csv").write_text("\n".join(csv_lines) + "\n")
    written = [root / "summary.md", root / "summary.csv"]
    if len(pair_lines) > 1:
        (root / "pairs.csv").write_text("\n".join(pair_lines) + "\n")
        written.append(root / "pairs.csv")
    first = outcomes[0][0]
    if not figure:
        remove_figure(first.task, root)
        return written
    with contextlib.suppress(FigureMissing):  # the caller says so in one note
        written += write_figure(panels, first.schemes, first.task, heading, root)
    return written
