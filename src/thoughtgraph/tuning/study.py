"""The tuning loop: an Optuna study in SQLite, asked and told in fixed batches, under one budget.

Why ask/tell in batches rather than `study.optimize` or Ray Tune: the driver alone talks to the
study, `parallel` trials are asked, run (here or as Ray tasks) and told in the trials' order, so
a run on Ray makes exactly the study a local run makes (same seed, same trials, same values).

Resume: the study lives in `study.db`; a trial left running by a killed tune is marked failed
and its parameters are asked again first, so it reruns with its answers served by the answer
cache (`pays nothing twice`). The budget is a ledger over the study: every finished job records
what it paid, in HTTP requests, tokens and USD (the units of the caps); a job that never finished
counts its whole allowance as spent, so a kill can make the tune stop early but never spend past
`--max-requests` / `--max-tokens` / `--max-cost`. Each batch's allowance comes from
`spend.budget.share`, the rule evaluations on Ray use too.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from thoughtgraph.errors import InputError
from thoughtgraph.evaluation.datasets import Sample
from thoughtgraph.evaluation.prompt_variants import Variants
from thoughtgraph.events import StopReason
from thoughtgraph.models.limits import ConcurrencyLimiter
from thoughtgraph.spend.budget import Amounts, Budget, share
from thoughtgraph.tuning import space
from thoughtgraph.tuning.jobs import (
    Job,
    Outcome,
    Setup,
    job_graph,
    run_job,
    spread_back,
    unique,
    waves,
)

INSTALL_HINT = (
    "tune needs Optuna: pip install 'thoughtgraph[tune]' (from a clone: pip install -e '.[tune]')"
)
STUDY_FILE = "study.db"
STUDY_NAME = "thoughtgraph-tune"

Backend = Callable[[Setup, Sequence[Job]], list[Outcome]]


class Trial(Protocol):
    """What the tune reads of an Optuna trial (a `FrozenTrial` of the study, or one asked)."""

    @property
    def number(self) -> int: ...

    @property
    def params(self) -> dict[str, Any]: ...

    @property
    def values(self) -> list[float]: ...

    @property
    def user_attrs(self) -> dict[str, Any]: ...


class AskedTrial(Trial, space.Suggester, Protocol):
    """A trial being run (`optuna.Trial`): it suggests the settings and records what they did."""

    @property
    def study(self) -> Study: ...

    def set_user_attr(self, key: str, value: object) -> None: ...


class Study(Protocol):
    """The part of `optuna.Study` the tune uses (so the rest of tuning/ is typed without it)."""

    @property
    def user_attrs(self) -> dict[str, Any]: ...

    def set_user_attr(self, key: str, value: object) -> None: ...

    def get_trials(
        self, deepcopy: bool = ..., states: Sequence[object] | None = ...
    ) -> list[Trial]: ...

    def ask(self) -> AskedTrial: ...

    def tell(
        self, trial: AskedTrial | int, values: Sequence[float] | None = ..., state: object = ...
    ) -> object: ...

    def enqueue_trial(
        self, params: dict[str, Any], user_attrs: dict[str, Any] | None = ...
    ) -> None: ...

    def set_metric_names(self, metric_names: list[str]) -> None: ...


def run_unique(backend: Backend, setup: Setup, jobs: list[Job]) -> list[Outcome]:
    """Run each distinct (graph, samples) once, and never two runs of one (graph, sample) pair
    at once (`jobs.waves`), so no two runs share a cache file's prompts at the same time."""
    distinct, index = unique(jobs)
    outcomes: list[Outcome | None] = [None] * len(distinct)
    for wave in waves(distinct):
        for number, outcome in zip(wave, backend(setup, [distinct[i] for i in wave]), strict=True):
            outcomes[number] = outcome
    return spread_back(jobs, [o for o in outcomes if o is not None], index)


def import_optuna() -> ModuleType:
    """`optuna`, or one clear line saying what to install."""
    try:
        import optuna
    except ImportError:
        raise InputError(INSTALL_HINT) from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    logging.getLogger("optuna").setLevel(logging.WARNING)
    return optuna


def local_backend(setup: Setup, jobs: Sequence[Job]) -> list[Outcome]:
    """Every job concurrently in this process, under one cap on calls in flight; outcomes in
    the jobs' order."""
    limiter = ConcurrencyLimiter(setup.run.concurrency)

    async def run_all() -> list[Outcome]:
        return list(await asyncio.gather(*(run_job(setup, job, limiter) for job in jobs)))

    return asyncio.run(run_all())


class Ledger:
    """What the whole tune may still pay, read from the study (so it survives a restart)."""

    def __init__(self, study: Study, limits: Budget) -> None:
        self.study, self.limits = study, limits

    def spent(self) -> Amounts:
        total = Amounts()
        for trial in self.study.get_trials(deepcopy=False):
            total = total.plus(_spent_of(trial.user_attrs))
        for run in self.study.user_attrs.get("report_runs", []):
            total = total.plus(_spent_of(run))
        return total

    def share(self, pairs: int) -> Budget | None:
        """An equal share of what is left for each of `pairs` pairs (`spend.budget.share`);
        None when a share is empty."""
        if not self.limits.any():
            return Budget()
        allowance = share(self.limits, self.spent(), slots=pairs)
        return None if allowance.empty else allowance


def _spent_of(attrs: dict[str, Any]) -> Amounts:
    """A finished job's payment, else (killed mid-way) its whole allowance. A study from before
    requests were the unit wrote `calls`: read as requests."""
    paid = attrs.get("paid")
    if paid is None:
        paid = attrs.get("allowance")
    if paid is None:
        return Amounts()
    requests = paid.get("requests", paid.get("calls"))
    return Amounts(requests or 0, paid.get("tokens") or 0, paid.get("cost") or 0.0)


def open_study(folder: Path, manifest: dict[str, object], seed: int, startup: int) -> Study:
    """Create the study in `folder/study.db`, or reopen it if it tunes the same thing."""
    optuna = import_optuna()
    url = f"sqlite:///{(folder / STUDY_FILE).resolve()}"
    storage = _storage(optuna, url, folder)
    ran = _trials_so_far(optuna, storage)
    # A resumed tune seeds its sampler past the trials it has, so it does not redraw them.
    sampler = optuna.samplers.TPESampler(seed=(seed + ran) % 2**32, n_startup_trials=startup)
    try:
        study: Study = optuna.create_study(
            study_name=STUDY_NAME,
            storage=storage,
            directions=["minimize", "minimize"],
            sampler=sampler,
            load_if_exists=True,
        )
    except Exception as exc:  # a corrupt or foreign SQLite file
        raise InputError(f"cannot open the study {folder / STUDY_FILE}: {exc}") from None
    have = study.user_attrs.get("manifest")
    if have is None:
        study.set_user_attr("manifest", manifest)
        _name_objectives(
            study,
            f"{manifest.get('objective', 'error')} (per sample)",
            f"cost ({manifest.get('cost', 'completions')} per sample)",
        )
    elif have != manifest:
        changed = sorted(k for k in set(have) | set(manifest) if have.get(k) != manifest.get(k))
        raise InputError(
            f"{folder} holds a tune of another setup ({', '.join(changed)} differ); "
            "use another --out"
        )
    return study


def _name_objectives(study: Study, error: str, cost: str) -> None:
    """optuna-dashboard then labels the axes "error" (or "model rating shortfall") and
    "cost (...)", not "Objective 0/1"."""
    import warnings

    with warnings.catch_warnings():  # set_metric_names is marked experimental in Optuna 4
        warnings.simplefilter("ignore")
        study.set_metric_names([error, cost])


def _storage(optuna: ModuleType, url: str, folder: Path) -> object:
    try:
        return optuna.storages.RDBStorage(url, engine_kwargs={"connect_args": {"timeout": 60}})
    except Exception as exc:  # a corrupt or foreign SQLite file
        raise InputError(f"cannot open the study {folder / STUDY_FILE}: {exc}") from None


def _trials_so_far(optuna: ModuleType, storage: object) -> int:
    try:
        study = optuna.load_study(study_name=STUDY_NAME, storage=storage)
    except KeyError:
        return 0
    return len(study.get_trials(deepcopy=False))


def recover(study: Study) -> list[int]:
    """Trials a killed tune left running: mark them failed and ask their params again first."""
    optuna = import_optuna()
    stale = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,))
    for trial in stale:
        study.tell(trial.number, state=optuna.trial.TrialState.FAIL)
        study.enqueue_trial(trial.params, user_attrs={"rerun_of": trial.number})
    return [t.number for t in stale]


def completed(study: Study) -> list[Trial]:
    optuna = import_optuna()
    return study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))


@dataclass(frozen=True)
class LoopResult:
    """How the search loop ended: the trials it ran and, when it stopped before reaching the
    trials asked for, why: the budget (`stop`) or a failed trial (`failure`, its one line),
    whichever came first."""

    ran: int
    stop: StopReason | None = None
    failure: str | None = None

    @property
    def why(self) -> str | None:
        """Why it stopped early, in one line (None: it ran the trials asked for)."""
        return f"a trial failed: {self.failure}" if self.failure is not None else self.stop


def tune_loop(
    study: Study,
    setup: Setup,
    samples: Sequence[Sample],
    trials: int,
    parallel: int,
    schemes: Sequence[str],
    ledger: Ledger,
    backend: Backend,
    on_trial: Callable[[AskedTrial, Outcome], None] | None = None,
    variants: Variants | None = None,
) -> LoopResult:
    """Run trials until `trials` are complete (counting those of earlier runs) or a stop;
    `variants` (a prompts file) adds a prompt choice per slot a trial's graph sends."""
    optuna = import_optuna()
    data = tuple((s.id, s.given, s.reference) for s in samples)
    ran = 0
    while (left := trials - len(completed(study))) > 0:
        batch = min(parallel, left)
        allowance = ledger.share(batch * len(samples))
        while allowance is None and batch > 1:
            batch -= 1
            allowance = ledger.share(batch * len(samples))
        if allowance is None:
            return LoopResult(ran, stop=StopReason.BUDGET)
        asked = []
        for _ in range(batch):
            trial = study.ask()
            params = space.suggest(trial, schemes, setup.size, setup.task, variants)
            graph = space.graph_for(params, setup.task, setup.size, variants)
            if setup.candidates:  # which model answers each kind of call the graph makes
                names = [name for name, _spec in setup.candidates]
                fixed = [kind for kind, _spec in setup.models]  # --model-for's, in every run
                params |= space.suggest_models(trial, graph, names, fixed)
            trial.set_user_attr("allowance", scaled(allowance, len(samples)))
            trial.set_user_attr("graph", space.describe(params, setup.size))
            text = job_graph(setup, graph)
            key = f"trial-{trial.number}"
            asked.append((trial, Job.one(key, text, data, allowance, space.routes_of(params))))
        outcomes = run_unique(backend, setup, [job for _, job in asked])
        stop: StopReason | None = None  # the batch's first reason to stop: one of these two
        failure: str | None = None
        for (trial, _job), outcome in zip(asked, outcomes, strict=True):
            trial.set_user_attr("paid", paid([outcome]))
            trial.set_user_attr("solved", outcome.solved)
            trial.set_user_attr("errors", list(outcome.errors))
            if setup.rating_scale is not None:
                trial.set_user_attr("unrated", outcome.unrated)
            if outcome.failure:
                trial.set_user_attr("failure", outcome.failure[:300])
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
                if stop is None:
                    failure = failure or outcome.failure[:200]
            elif outcome.budget_stopped:
                trial.set_user_attr("failure", StopReason.BUDGET)
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
                if failure is None:
                    stop = StopReason.BUDGET
            else:
                study.tell(trial, [outcome.error, outcome.cost])
                ran += 1
            if on_trial:
                on_trial(trial, outcome)
        if stop is not None or failure is not None:
            return LoopResult(ran, stop, failure)
    return LoopResult(ran)


def scaled(allowance: Budget, pairs: int) -> dict[str, float | None]:
    """The most `pairs` pairs with this allowance each can pay together."""
    caps = {
        "requests": allowance.max_requests,
        "tokens": allowance.max_tokens,
        "cost": allowance.max_cost,
    }
    return {k: None if v is None else v * pairs for k, v in caps.items()}


def paid(outcomes: Sequence[Outcome]) -> dict[str, float]:
    """What these outcomes paid, as the study records it."""
    return {
        "requests": sum(o.paid_requests for o in outcomes),
        "tokens": sum(o.paid_tokens for o in outcomes),
        "cost": sum(o.paid_cost for o in outcomes),
    }


def record_report_run(
    study: Study, allowance: Budget, jobs: int, paid: Mapping[str, float] | None
) -> None:
    """Note what a report phase may pay (before it runs) and what it paid (after)."""
    runs = list(study.user_attrs.get("report_runs", []))
    if paid is None:
        runs.append({"allowance": scaled(allowance, jobs)})
    else:
        runs[-1] = {**runs[-1], "paid": paid}
    study.set_user_attr("report_runs", json.loads(json.dumps(runs)))
