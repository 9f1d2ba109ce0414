"""The phases of a tune, each a function returning what it found: `search` (the default got on
the tuning split, then the trials, and why it stopped), `front_of` (the Pareto front of the
trials and the default, as report rows), `held_out` (the front and the baselines measured on the
held-out split, the other baseline on the tuning one too). The pick and the files are made from
these objects (`report.choose`, `report.write`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from thoughtgraph.errors import InputError
from thoughtgraph.evaluation.prompt_variants import Variants
from thoughtgraph.events import StopReason
from thoughtgraph.tuning import baselines, report, space
from thoughtgraph.tuning.jobs import Outcome
from thoughtgraph.tuning.plan import TunePlan
from thoughtgraph.tuning.propose import Proposer
from thoughtgraph.tuning.study import (
    AskedTrial,
    Backend,
    Ledger,
    LoopResult,
    Study,
    Trial,
    completed,
    paid,
    record_report_run,
    run_unique,
    tune_loop,
)


@dataclass(frozen=True)
class TuneRun:
    """One tune while it runs: its plan, its study, the ledger of what it may still pay, how a
    batch of its jobs runs (here, or as Ray tasks: the joined `JobBackend`'s), and where its
    progress lines go."""

    plan: TunePlan
    study: Study
    ledger: Ledger
    batches: Backend
    say: Callable[[str], None]


@dataclass(frozen=True)
class Searched:
    """The search's end: every complete trial (earlier runs' too), how its last loop ended (why
    it stopped before the trials asked for, if it did), the prompt variants its trials chose
    among (with `--propose`, each round's rewrites added), the default got's row with its
    tuning figures (`default_run`) and what failed of it (`note`, "" when nothing did)."""

    trials: list[Trial]
    end: LoopResult
    variants: Variants | None
    default: report.Row
    note: str = ""


@dataclass(frozen=True)
class Front:
    """The Pareto front of the trials and the default on the tuning split, at most
    `--report-max` graphs evenly spread from cheapest to most accurate (and the default when it
    is on the front), as report rows; the default's row (on the front or not); and every
    trial's (error, cost), for the plot."""

    rows: tuple[report.Row, ...]
    points: tuple[tuple[float, float], ...]
    default: report.Row


@dataclass(frozen=True)
class HeldOut:
    """The report's rows with their figures: the front's graphs on the held-out split, the
    baselines on both splits (none when the trials spent the budget); `note` says what failed
    or was left out."""

    rows: tuple[report.Row, ...]
    note: str


def search(run: TuneRun) -> Searched:
    """The default got first (`default_run`), then trials until `--trials` are complete or a
    stop; with `--propose`, the model's rewrites before the first trial (and the default) and
    again at half the trials."""
    plan, config = run.plan, run.plan.config
    default: tuple[report.Row, str] | None = None
    variants = plan.variants
    rounds = (
        [(1, (config.trials + 1) // 2), (2, config.trials)]
        if config.propose
        else [(0, config.trials)]
    )
    end = LoopResult(0)
    for number, wanted in rounds:
        if number:
            proposer = Proposer(
                plan.model, plan.task, plan.slots, config.propose, plan.price, plan.objective.scale
            )
            variants = proposer.round(run.study, number, variants, run.ledger)
        default = default or default_run(run)  # before the first trial, after the proposals
        end = tune_loop(
            run.study,
            plan.setup,
            plan.tune_split,
            wanted,
            config.parallel,
            config.schemes,
            run.ledger,
            run.batches,
            on_trial=lambda t, o: run.say(
                _trial_line(t, o, config.cost, config.trials, plan.objective)
            ),
            variants=variants,
        )
        if end.why:
            break
    row, note = default or default_run(run)
    return Searched(completed(run.study), end, variants, row, note)


DEFAULT_RUN = "default_run"
"""The study's record of the default got's tuning figures (a resumed tune reads them back)."""


def default_run(run: TuneRun) -> tuple[report.Row, str]:
    """The default got on the tuning split, built for each row as eval builds it, measured as
    every trial is (the same rows, the same measure) before the first trial, and paid from the
    tune's one budget (a report run of the ledger); its figures are kept in the study, so a
    resumed tune reads them back instead of paying again. Returns its row and what failed
    ("" when nothing did)."""
    plan, study = run.plan, run.study
    row = baselines.row(plan, report.DEFAULT)
    kept = study.user_attrs.get(DEFAULT_RUN)
    if kept is not None:
        row = replace(
            row, tune_error=kept["error"], tune_cost=kept["cost"], tune_unrated=kept["unrated"]
        )
        run.say(f"{_default_line(row, plan)} (from the study)")
        return row, ""
    samples = plan.tune_split
    allowance = run.ledger.share(len(samples))
    if allowance is None:
        return replace(row, tune_error=math.inf, tune_stopped=True), ""
    record_report_run(study, allowance, len(samples), None)
    job = baselines.job(plan, row, f"tune:{report.DEFAULT}", samples, allowance)
    [outcome] = run_unique(run.batches, plan.setup, [job])
    record_report_run(study, allowance, len(samples), paid([outcome]))
    row = _measured(row, "tune", outcome)
    if outcome.failure or outcome.budget_stopped:
        why = outcome.failure or StopReason.BUDGET
        run.say(f"{report.DEFAULT}: {row.label}: failed ({why})")
        return row, f"{report.DEFAULT} failed on the tune split ({why[:200]})"
    study.set_user_attr(
        DEFAULT_RUN, {"error": outcome.error, "cost": outcome.cost, "unrated": outcome.unrated}
    )
    run.say(f"{_default_line(row, plan)}, paid {outcome.paid_requests} requests")
    return row, ""


def _default_line(row: report.Row, plan: TunePlan) -> str:
    """`got (default): got parts=4 regen=2 merges=1 refines=2: error 0.50, completions 11.0`."""
    measure = _measure_text(row.tune_error, row.tune_unrated, plan.objective)
    cost = report.cost_text(row.tune_cost, fixed=True)
    return f"{row.name}: {row.label}: {measure}, {plan.config.cost} {cost}"


def _no_trial_why(end: LoopResult) -> str:
    """What to do when no trial completed: the budget ran out first, or a trial failed (its
    line), or the search asked for no trial."""
    if end.failure is not None:
        return f"a trial failed: {end.failure}"
    if end.stop is not None:
        return f"{end.stop} before a trial finished: raise the budget"
    return "no trial ran: ask for --trials 1 or more"


def front_of(plan: TunePlan, searched: Searched) -> Front:
    """The front's rows (their graphs carry the prompt variants they chose), the default among
    them when no trial beats it on both (a tie keeps the default); every trial's figures are
    the points of the plot."""
    if not searched.trials:
        raise InputError(f"no trial completed: nothing to report ({_no_trial_why(searched.end)})")
    points = [(t.values[0], t.values[1], t) for t in searched.trials]
    default = searched.default
    candidates: list[tuple[float, float, Trial | None]] = [*points]
    if default.measured:
        candidates.insert(0, (default.tune_error, default.tune_cost, None))  # first: ties
    whole = report.pareto(candidates)
    shown = report.spread(whole, plan.config.report_max)
    if any(t is None for *_f, t in whole) and not any(t is None for *_f, t in shown):
        shown = sorted([*shown, *(p for p in whole if p[2] is None)], key=lambda p: p[1])
    rows = tuple(
        replace(default, mark="front", on_front=True)
        if t is None
        else _trial_row(plan, searched, t, err, c)
        for err, c, t in shown
    )
    on_front = next((r for r in rows if r.name == report.DEFAULT), default)
    return Front(rows, tuple((e, c) for e, c, _t in points), on_front)


def _trial_row(
    plan: TunePlan, searched: Searched, trial: Trial, error: float, cost: float
) -> report.Row:
    params = trial.params | _fixed(trial, plan.task)
    return report.Row(
        name=f"trial {trial.number}",
        label=space.describe(params, plan.size),
        graph=space.graph_for(params, plan.task, plan.size, searched.variants),
        tune_error=error,
        tune_cost=cost,
        mark="front",
        tune_unrated=int(trial.user_attrs.get("unrated", 0)),
        on_front=True,
        routes=space.routes_of(trial.params),
    )


def held_out(run: TuneRun, front: Front) -> HeldOut:
    """The front, the default and the paper's got_paper, each run on the held-out split (and
    got_paper on the tuning one too: the default's tuning figures are the search's), in one
    batch under one share of what the tune has left. The baselines are built for each row as
    eval builds them (`baselines.job`)."""
    plan = run.plan
    default = [] if front.default.on_front else [front.default]
    others = [baselines.row(plan, name) for name in plan.baselines if name != report.DEFAULT]
    rows = [*front.rows, *default, *others]
    first = len(front.rows) + len(default)
    wanted = [(first + i, "tune", plan.tune_split) for i in range(len(others))]
    if plan.held_split:
        wanted += [(i, "holdout", plan.held_split) for i in range(len(rows))]
    notes = [n for n in (plan.left_out,) if n]
    pairs = sum(len(samples) for _i, _s, samples in wanted)
    allowance = run.ledger.share(pairs) if pairs else None
    if allowance is None:
        if pairs:
            notes.append("the budget was spent on trials: no held-out or baseline runs")
        return HeldOut((*front.rows, *default), "; ".join(notes))
    record_report_run(run.study, allowance, pairs, None)
    jobs = [
        baselines.job(plan, rows[i], f"{split}:{rows[i].name}", s, allowance)
        for i, split, s in wanted
    ]
    outcomes = run_unique(run.batches, plan.setup, jobs)
    record_report_run(run.study, allowance, pairs, paid(outcomes))
    for (i, split, _s), o in zip(wanted, outcomes, strict=True):
        if o.failure:
            notes.append(f"{rows[i].name} failed on the {split} split ({o.failure[:200]})")
        rows[i] = _measured(rows[i], split, o)
    return HeldOut(tuple(rows), "; ".join(notes))


def _measured(row: report.Row, split: str, o: Outcome) -> report.Row:
    """The row with one split's figures."""
    if split == "tune":
        return replace(
            row,
            tune_error=o.error,
            tune_cost=o.cost,
            tune_stopped=o.budget_stopped,
            tune_unrated=o.unrated,
        )
    return replace(
        row,
        holdout_error=o.error,
        holdout_cost=o.cost,
        holdout_solved=o.solved,
        holdout_unrated=o.unrated,
        stopped=o.budget_stopped,
    )


def _fixed(trial: Trial, task: str) -> dict[str, Any]:
    """What a trial's params leave out: the scheme of a single-scheme study (from the recorded
    label), and the knobs the space holds for this task (`space.fixed`)."""
    scheme = trial.params.get("scheme") or str(trial.user_attrs.get("graph", "got")).split()[0]
    return {"scheme": scheme, **space.fixed(scheme, task)}


def _trial_line(
    trial: AskedTrial,
    outcome: Outcome,
    metric: str,
    trials: int,
    objective: report.Objective = report.ERRORS,
) -> str:
    """One line per finished trial, with how far the tune has come (`[7/30]`)."""
    what = trial.user_attrs.get("graph", "")
    where = f"[{len(completed(trial.study))}/{trials}] trial {trial.number}"
    if outcome.failure or outcome.budget_stopped:
        return f"{where}: {what}: failed ({outcome.failure or StopReason.BUDGET})"
    measure = _measure_text(outcome.error, outcome.unrated, objective)
    return (
        f"{where}: {what}: {measure}, {metric} "
        f"{report.cost_text(outcome.cost, fixed=True)}, paid {outcome.paid_requests} requests"
    )


def _measure_text(error: float, unrated: int, objective: report.Objective) -> str:
    """`error 0.50`, or on a model-scored task `rating 7.50/10, 1 unrated`."""
    if objective.scale is None:
        return f"error {error:.2f}"
    more = f", {unrated} unrated" if unrated else ""
    return f"rating {objective.scale - error:.2f}/{objective.scale}{more}"
