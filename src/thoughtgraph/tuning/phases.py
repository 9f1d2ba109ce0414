"""The phases of a tune, each a function returning what it found: `search` (the trials on the
tuning split, and why it stopped), `front_of` (their Pareto front, as report rows), `held_out`
(the front and the baselines measured on the held-out split, the baselines on the tuning one
too). The pick and the files are made from these objects (`report.choose`, `report.write`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from thoughtgraph.errors import InputError
from thoughtgraph.evaluation.datasets import Sample
from thoughtgraph.evaluation.prompt_variants import Variants
from thoughtgraph.events import StopReason
from thoughtgraph.tuning import report, space
from thoughtgraph.tuning.jobs import Job, Outcome, job_graph
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
    it stopped before the trials asked for, if it did), and the prompt variants its trials
    chose among (with `--propose`, each round's rewrites added)."""

    trials: list[Trial]
    end: LoopResult
    variants: Variants | None


@dataclass(frozen=True)
class Front:
    """The Pareto front of the trials on the tuning split, at most `--report-max` graphs evenly
    spread from cheapest to most accurate, as report rows; and every trial's (error, cost), for
    the plot."""

    rows: tuple[report.Row, ...]
    points: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class HeldOut:
    """The report's rows with their figures: the front's graphs on the held-out split, the
    baselines on both splits (none when the trials spent the budget); `note` says what failed
    or was left out."""

    rows: tuple[report.Row, ...]
    note: str


def search(run: TuneRun) -> Searched:
    """Trials until `--trials` are complete or a stop; with `--propose`, the model's rewrites
    before the first trial and again at half the trials."""
    plan, config = run.plan, run.plan.config
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
    return Searched(completed(run.study), end, variants)


def front_of(plan: TunePlan, searched: Searched) -> Front:
    """The front's rows (their graphs carry the prompt variants they chose); every trial's
    figures are the points of the plot."""
    if not searched.trials:
        raise InputError("no trial completed: nothing to report (raise the budget?)")
    points = [(t.values[0], t.values[1], t) for t in searched.trials]
    front = report.spread(report.pareto(points), plan.config.report_max)
    rows = tuple(
        report.Row(
            name=f"trial {t.number}",
            label=space.describe(t.params | _fixed(t, plan.task), plan.size),
            graph=space.graph_for(
                t.params | _fixed(t, plan.task), plan.task, plan.size, searched.variants
            ),
            tune_error=err,
            tune_cost=c,
            mark="front",
            tune_unrated=int(t.user_attrs.get("unrated", 0)),
        )
        for err, c, t in front
    )
    return Front(rows, tuple((e, c) for e, c, _t in points))


def held_out(run: TuneRun, front: Front) -> HeldOut:
    """Front and baselines, each run on the held-out split (and the baselines on the tuning one),
    in one batch under one share of what the tune has left. The default `got` is built for the
    plan's `example` (a problem of the size the graphs are built for): on a data file whose
    rows differ in size, it then runs on every row."""
    plan = run.plan
    base = space.baselines(plan.setup.spec, plan.size, plan.example)
    base_rows = [
        report.Row(name=name, label=text, graph=g, tune_error=0, tune_cost=0, mark="baseline")
        for name, (g, text) in base.items()
    ]
    rows = [*front.rows, *base_rows]
    wanted = [(len(front.rows) + i, "tune", plan.tune_split) for i in range(len(base_rows))]
    if plan.held_split:
        wanted += [(i, "holdout", plan.held_split) for i in range(len(rows))]
    pairs = sum(len(samples) for _i, _s, samples in wanted)
    allowance = run.ledger.share(pairs)
    if allowance is None:
        return HeldOut(front.rows, "the budget was spent on trials: no held-out or baseline runs")
    record_report_run(run.study, allowance, pairs, None)
    jobs = [
        Job(f"{split}:{rows[i].name}", job_graph(plan.setup, rows[i].graph), _data(s), allowance)
        for i, split, s in wanted
    ]
    outcomes = run_unique(run.batches, plan.setup, jobs)
    record_report_run(run.study, allowance, pairs, paid(outcomes))
    failed = []
    for (i, split, _s), o in zip(wanted, outcomes, strict=True):
        if o.failure:
            failed.append(f"{rows[i].name} failed on the {split} split ({o.failure[:200]})")
        rows[i] = _measured(rows[i], split, o)
    return HeldOut(tuple(rows), "; ".join(failed))


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


def _data(samples: Sequence[Sample]) -> tuple[tuple[int | str, object, object], ...]:
    return tuple((s.id, s.given, s.reference) for s in samples)


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
    measure = f"error {outcome.error:.2f}"
    if objective.scale is not None:
        unrated = f", {outcome.unrated} unrated" if outcome.unrated else ""
        measure = f"rating {objective.scale - outcome.error:.2f}/{objective.scale}{unrated}"
    return (
        f"{where}: {what}: {measure}, {metric} "
        f"{outcome.cost:.1f}, paid {outcome.paid_requests} requests"
    )
