"""One unit of tuning work: run one graph on a few samples and measure its error and cost.

The error is the task's measure, as `eval` reports it: the code's error count (clipped at the
size), or on a model-scored task (doc-merge, a task file scored `by: model`) the *model rating
shortfall*, `scale - rating` of the model's rating of the final answer (0 is a perfect rating;
an answer whose rating could not be read counts as `scale` and as unrated). Every graph of such
a task is measured the way eval measures it: one that never asks the model for a rating ends
with eval's `judge` op (`job_graph`), so a tune optimises the rating eval reports.

A `Job` is plain, picklable data (the graph as JSON, the model as a spec), so the same function
runs it in this process or in a Ray worker and gets the same answer: the simulated model is built
fresh for every (graph, sample), so its seeded answers depend only on the graph and the sample,
never on which jobs ran first or where. A real model is built once per process and shared, so
its concurrency and rate limits hold across the pairs running there.

Cost is measured two ways. The *objective* cost is what the graph costs (completions, tokens or
USD of every call, answered live or from the cache): a property of the graph, so a trial rerun
from the cache measures the same. The *paid* spend (requests, tokens, USD that reached the model)
is what the budget counts.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from thoughtgraph.engine.graph import Graph
from thoughtgraph.engine.options import RunOptions
from thoughtgraph.engine.result import Result
from thoughtgraph.errors import FatalModelError, ThoughtgraphError, UnknownNameError
from thoughtgraph.evaluation.runner import judged
from thoughtgraph.events import StopReason
from thoughtgraph.models.base import LanguageModel
from thoughtgraph.models.limits import ConcurrencyLimiter
from thoughtgraph.modelspec import filled_in, from_spec, identity
from thoughtgraph.sim.model import SimulatedModel
from thoughtgraph.solving.solve import asolve
from thoughtgraph.spend.budget import Budget
from thoughtgraph.tasks import get_task
from thoughtgraph.tasks.base import Task
from thoughtgraph.tasks.reference import answer_matches
from thoughtgraph.tasks.scorer import ScorerFailed

COST_METRICS = ("completions", "tokens", "usd")

TaskSpec = str | Task[Any, Any]
"""A task as a tune is given it: a built-in name, a task file, an import string, a task object."""


@dataclass(frozen=True)
class Setup:
    """What every job of one tune shares: task, model recipe, run options (`run`: of every
    pair, without caps: each job's `allowance` is its pairs' share of the tune's)."""

    task: str
    size: int
    model_spec: str
    model_options: tuple[tuple[str, Any], ...] = ()  # openai flags (base_url, temperature, ...)
    run: RunOptions = field(default_factory=RunOptions)
    cost_metric: str = "completions"
    cache_dir: str | None = None  # one answer-cache file per graph in here (see `cache_for`)
    task_spec: TaskSpec | None = None  # the task as given, when not a built-in name
    # (an import string, a file, a task object)
    model: LanguageModel | None = None  # a model object given from Python (`tune(model=...)`),
    # shared by every pair of a process; None: built from `model_spec`
    rating_scale: int | None = None  # a model-scored task: the model rates answers 0..scale
    # and the error is the shortfall `scale - rating`; None: the code's error count
    from_data: bool = False  # the rows are a user's --data: errors are not clipped at `size`
    # (a row's count of units bounds nothing its errors count), as eval does not clip them
    models: tuple[tuple[str, str], ...] = ()  # kinds of call routed to other models in every
    # run (`--model-for`): kind -> spec
    candidates: tuple[tuple[str, str], ...] = ()  # the models a trial may route each kind its
    # graph calls to (`--models NAME=SPEC,...`): name -> spec

    @property
    def spec(self) -> TaskSpec:
        """The task as a run resolves it: as given, else the built-in name."""
        return self.task if self.task_spec is None else self.task_spec

    @property
    def simulated(self) -> bool:
        if self.model is not None:
            return bool(getattr(self.model, "simulated", False))
        return self.model_spec.strip().lower().startswith("sim")


JobSample = tuple[int | str, object, object]
"""One sample of a job: (id, input, reference)."""


@dataclass(frozen=True)
class Job:
    """One graph's run on some samples: `graphs` holds the graph (JSON) each sample runs, the
    same for all of a trial's, or a scheme as eval builds it for each row's size (`one` makes
    the first kind)."""

    key: str  # e.g. "trial-7" or "holdout:got (default)"
    graphs: tuple[str, ...]  # one a sample, in the samples' order
    samples: tuple[JobSample, ...]
    allowance: Budget = field(default_factory=Budget)  # the most each (graph, sample) pair
    # may pay: its share of what the tune has left (`spend.budget.share`)
    routes: tuple[tuple[str, str], ...] = ()  # a trial's choice of model per kind of call:
    # kind -> a candidate's name (`Setup.candidates`), over the setup's own routes

    def __post_init__(self) -> None:
        if len(self.graphs) != len(self.samples):
            raise ValueError(
                f"job {self.key}: {len(self.graphs)} graphs, {len(self.samples)} samples"
            )

    @classmethod
    def one(
        cls,
        key: str,
        graph_json: str,
        samples: tuple[JobSample, ...],
        allowance: Budget,
        routes: tuple[tuple[str, str], ...] = (),
    ) -> Job:
        """The job running one graph on every sample (with `routes`: a trial's models)."""
        return cls(key, (graph_json,) * len(samples), samples, allowance, routes)


@dataclass(frozen=True)
class Outcome:
    """How one graph did on its samples: the two objectives and what was paid."""

    key: str
    error: float  # mean error count over the samples
    cost: float  # mean objective cost per sample (the setup's metric)
    solved: float  # share of samples answered exactly
    errors: tuple[float, ...]
    paid_requests: int  # HTTP requests, the unit of every cap and ledger
    paid_tokens: int
    paid_cost: float
    stop_reason: StopReason | None  # why a sample of it stopped early (BUDGET when one ran out
    # of its allowance, the stop the tune acts on); None: every sample ran to its end
    failure: str | None = None  # a fatal model error or a refused graph: the trial failed
    unrated: int = 0  # samples whose final answer got no readable rating (counted as `scale`)

    @property
    def budget_stopped(self) -> bool:
        """A sample ran out of its allowance: the trial's figures are of a partial run."""
        return self.stop_reason == StopReason.BUDGET


_SHARED: dict[tuple[str, tuple[tuple[str, Any], ...]], LanguageModel] = {}


def model_for(setup: Setup) -> LanguageModel:
    """The model of one pair of this setup (see `model_from_recipe`): a model object given from
    Python is shared, except a simulated one, copied fresh as a spec's is."""
    if isinstance(setup.model, SimulatedModel):
        return setup.model.with_seed(setup.model.seed)
    if setup.model is not None:
        return setup.model
    return model_from_recipe(setup.model_spec, setup.model_options)


def routed_models(
    setup: Setup, routes: tuple[tuple[str, str], ...], default: LanguageModel
) -> dict[str, LanguageModel]:
    """The models of one pair's routed kinds (kind -> model): the setup's `--model-for` ones,
    then the job's choice among the candidates; each from its recipe (a simulated one fresh,
    a real one shared by the process), the openai flags filling in what its spec leaves out.
    One spec for two kinds, or the default's own, is one model."""
    candidates = dict(setup.candidates)
    specs = dict(setup.models) | {kind: candidates[name] for kind, name in routes}
    if not specs:
        return {}
    same: dict[str, LanguageModel] = {identity(default): default}
    routed = {}
    for kind, spec in specs.items():
        made = model_from_recipe(spec, tuple(filled_in(spec, dict(setup.model_options)).items()))
        routed[kind] = same.setdefault(identity(made), made)
    return routed


def model_from_recipe(spec: str, options: tuple[tuple[str, Any], ...] = ()) -> LanguageModel:
    """A fresh simulated model per pair; one shared real model per process (limits hold)."""
    if spec.strip().lower().startswith("sim"):
        return from_spec(spec)
    key = (spec, options)
    if key not in _SHARED:
        _SHARED[key] = from_spec(spec, **dict(options))
    return _SHARED[key]


async def run_job(setup: Setup, job: Job, limiter: ConcurrencyLimiter | None = None) -> Outcome:
    """Every sample of the job concurrently; a sample stopped by its allowance marks the job.
    `limiter` is the cap on calls in flight shared with the other jobs running beside this
    one (None: the job's own, of `setup.run.concurrency`)."""
    graphs = {text: Graph.from_json(text) for text in dict.fromkeys(job.graphs)}
    limiter = limiter or ConcurrencyLimiter(setup.run.concurrency)
    runs = await asyncio.gather(
        *(
            _run_sample(
                setup,
                graphs[text],
                sample,
                job.allowance,
                cache_for(setup, text),
                limiter,
                job.routes,
            )
            for text, sample in zip(job.graphs, job.samples, strict=True)
        )
    )
    failure = next((r["failure"] for r in runs if r["failure"]), None)
    errors = tuple(float(r["error"]) for r in runs)
    return Outcome(
        key=job.key,
        error=statistics.fmean(errors) if errors else math.inf,
        cost=statistics.fmean(r["cost"] for r in runs) if runs else 0.0,
        solved=statistics.fmean(float(r["solved"]) for r in runs) if runs else 0.0,
        errors=errors,
        paid_requests=sum(r["paid_requests"] for r in runs),
        paid_tokens=sum(r["paid_tokens"] for r in runs),
        paid_cost=sum(r["paid_cost"] for r in runs),
        stop_reason=_first_stop(r["stop_reason"] for r in runs),
        failure=failure,
        unrated=sum(1 for r in runs if r["unrated"]),
    )


def _first_stop(reasons: Iterable[StopReason | None]) -> StopReason | None:
    """The job's stop reason from its samples': a budget stop first (the one a tune acts on;
    a failed sample is the outcome's `failure`), else the first other one."""
    stops = [reason for reason in reasons if reason is not None]
    return StopReason.BUDGET if StopReason.BUDGET in stops else next(iter(stops), None)


def job_graph(setup: Setup, graph: Graph) -> str:
    """The JSON of the graph a job runs for `graph`: on a model-scored task, a graph that never
    asks the model for a rating ends with the `judge` op eval adds (`evaluation.runner.judged`),
    so every trial and baseline is measured by the rating eval reports. The graph files a tune
    writes stay without it: eval and solve add it themselves."""
    if setup.rating_scale is not None:
        graph = judged(graph, setup.task)
    return graph.to_json(None)


def unique(jobs: list[Job]) -> tuple[list[Job], list[int]]:
    """The distinct jobs (same graph, same samples run once) and, per job, which one it is."""
    seen: dict[tuple[Any, ...], int] = {}
    distinct: list[Job] = []
    index = []
    for job in jobs:
        key = (job.graphs, tuple(sample[0] for sample in job.samples), job.routes)
        if key not in seen:
            seen[key] = len(distinct)
            distinct.append(job)
        index.append(seen[key])
    return distinct, index


def waves(jobs: list[Job]) -> list[list[int]]:
    """The distinct jobs in rounds run one after another, so that no two jobs of a round share
    a (graph, sample) pair: a scheme built per row's size can run a front graph's exact graph
    on some rows, and two runs asking the same prompts at once would both pay; a later round
    finds the answers in the cache. Jobs sharing nothing all run in the first round."""
    rounds: list[list[int]] = []
    taken: list[set[tuple[str, int | str]]] = []
    for number, job in enumerate(jobs):
        pairs = {(graph, sample[0]) for graph, sample in zip(job.graphs, job.samples, strict=True)}
        free = next((i for i, used in enumerate(taken) if not used & pairs), None)
        if free is None:
            rounds.append([])
            taken.append(set())
            free = len(rounds) - 1
        rounds[free].append(number)
        taken[free] |= pairs
    return rounds


def spread_back(jobs: list[Job], outcomes: list[Outcome], index: list[int]) -> list[Outcome]:
    """One outcome per job again; a repeat paid nothing (its twin did)."""
    result, used = [], set()
    for job, i in zip(jobs, index, strict=True):
        outcome = replace(outcomes[i], key=job.key)
        if i in used:
            outcome = replace(outcome, paid_requests=0, paid_tokens=0, paid_cost=0.0)
        used.add(i)
        result.append(outcome)
    return result


def run_job_sync(setup: Setup, job: Job) -> Outcome:
    """`run_job` for a worker process (Ray): its own event loop."""
    return asyncio.run(run_job(setup, job))


def cache_for(setup: Setup, graph_json: str) -> str | None:
    """The answer cache of one graph: `CACHE_DIR/<sha256 of the graph>.sqlite`.

    One file per graph, not one for the whole tune: the answer cache numbers the answers to a
    prompt per run, so two runs asking the same prompt at once would both miss and both pay.
    Runs of one graph never share a prompt (their inputs differ) and identical graphs of a batch
    run once (`unique`), so no answer is ever paid twice, here or on a Ray cluster where each
    file has one writer at a time. A graph tried again, or a killed trial rerun, is answered
    from its file.
    """
    if setup.cache_dir is None:
        return None
    digest = hashlib.sha256(graph_json.encode()).hexdigest()[:20]
    return str(Path(setup.cache_dir) / f"{digest}.sqlite")


async def _run_sample(
    setup: Setup,
    graph: Graph,
    sample: tuple[int | str, object, object],
    allowance: Budget,
    cache: str | None,
    limiter: ConcurrencyLimiter,
    routes: tuple[tuple[str, str], ...] = (),
) -> dict[str, Any]:
    sample_id, problem, reference = sample
    try:
        model = model_for(setup)
        result = await asolve(
            setup.spec,
            problem,
            model,
            models=routed_models(setup, routes, model),
            graph=graph,
            concurrency=setup.run.concurrency,
            max_requests=allowance.max_requests,
            max_tokens=allowance.max_tokens,
            max_cost=allowance.max_cost,
            price_in=setup.run.price_in,
            price_out=setup.run.price_out,
            cache=cache,
            rpm=setup.run.rpm,
            tpm=setup.run.tpm,
            reference=reference,
            limiter=limiter,
        )
    except FatalModelError as exc:
        result = exc.result
        if result is None:
            return _failed(str(exc))
        return {**_measure(setup, result, reference), "failure": str(exc)}
    except ScorerFailed as exc:  # the user's scorer: which sample it was scoring
        return _failed(f"sample {sample_id}: {exc}")
    except ThoughtgraphError as exc:
        return _failed(str(exc))
    return _measure(setup, result, reference)


def _measure(setup: Setup, result: Result, reference: object) -> dict[str, Any]:
    spend = result.spend
    objective = {
        "completions": float(result.completions),
        "tokens": float(spend.tokens + spend.saved_tokens),
        "usd": float(spend.cost + spend.saved_cost),
    }[setup.cost_metric]
    solved = _matches(setup, result, reference) if reference is not None else result.clean
    error = float(result.error_count)
    if not setup.from_data:
        error = min(error, float(setup.size))
    rating = result.rating if result.rating_scale is not None else None
    if setup.rating_scale is not None:
        error = setup.rating_scale - (0.0 if rating is None else min(rating, setup.rating_scale))
        solved = rating is not None and rating >= setup.rating_scale
    return {
        "error": error,
        "cost": objective,
        "solved": bool(solved),
        "unrated": setup.rating_scale is not None and rating is None,
        "paid_requests": spend.requests,
        "paid_tokens": spend.tokens,
        "paid_cost": spend.cost,
        "stop_reason": result.stop_reason,
        "failure": None,
    }


def _matches(setup: Setup, result: Result, reference: object) -> bool:
    """Does the run's output answer the reference, compared as eval compares it (the
    ground_truth verdict, else the task's own rules: a task file's order and case)?"""
    try:  # by name: loaded on the driver, registered on a Ray worker by its shipment
        task = get_task(setup.task)
    except UnknownNameError:
        task = get_task(setup.spec)
    problem = result.state.thoughts["input"].problem
    return answer_matches(task, problem, result.output, result.final.solved, reference)


def _failed(reason: str) -> dict[str, Any]:
    return {
        "error": math.inf,
        "cost": 0.0,
        "solved": False,
        "unrated": False,
        "paid_requests": 0,
        "paid_tokens": 0,
        "paid_cost": 0.0,
        "stop_reason": None,
        "failure": reason,
    }
