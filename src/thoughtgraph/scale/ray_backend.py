"""Run evaluation pairs and tuning jobs as Ray tasks (`eval --ray`, `tune --ray`).

Only the work fans out: each (scheme, sample) pair or tuning job is one Ray task running the same
function a local run calls, and returns a plain result. Everything with state stays with the
driver, so a Ray run writes the same `results.jsonl` and the same Optuna study as a local run:
the driver appends results as they come back, asks Optuna for trials and tells it their values.
The answer cache is a path the workers open themselves (a SQLite file: on one machine, or on a
shared filesystem with working locks; see docs/scale-out.md).

`RayPairs` and `RayJobs` are what `evaluate(ray=...)` and `tune(ray=...)` hand evaluation/ and
tuning/ (their `PairBackend` and `JobBackend`): neither package imports this one. `ray` is
imported only here and in shipping.py (its cloudpickle), inside the functions, and only when
`--ray` is given.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import socket
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from thoughtgraph.engine.options import RunOptions
from thoughtgraph.errors import InputError, ThoughtgraphError, shown
from thoughtgraph.evaluation.backend import RunnerFor
from thoughtgraph.evaluation.datasets import Sample
from thoughtgraph.evaluation.runner import (
    EvalPlan,
    PairResult,
    PairRunner,
    for_repeat,
    shared_meter,
    solve_pair,
)
from thoughtgraph.models.base import LanguageModel
from thoughtgraph.modelspec import ModelLike
from thoughtgraph.scale.shipping import (
    Shipment,
    check_unpack,
    pack,
    pack_setup,
    pickled,
    ray_cloudpickle,
    unpack_model,
    unpack_plan,
    unpack_routes,
    unpack_setup,
)
from thoughtgraph.spend.budget import NOTHING, Amounts, Budget, Meter, share
from thoughtgraph.tuning.backend import LOCAL_JOBS, JobBackend
from thoughtgraph.tuning.jobs import Job, Outcome, Setup, run_job_sync
from thoughtgraph.tuning.study import Backend

INSTALL_HINT = (
    "--ray needs Ray: pip install 'thoughtgraph[ray]' (from a clone: pip install -e '.[ray]')"
)
LOCAL = "local"


def import_ray() -> ModuleType:
    """`ray`, or one clear line saying what to install."""
    try:
        import ray
    except ImportError:
        raise InputError(INSTALL_HINT) from None
    return ray


def connect(address: str, num_cpus: int | None = None) -> ModuleType:
    """Join the cluster at `address` (`auto`, `HOST:PORT`, `ray://HOST:10001`), or with `local`
    start a private one on this machine (loopback only). Returns the `ray` module."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    _reachable(address)
    options: dict[str, object] = {
        "logging_level": logging.ERROR,
        "log_to_driver": False,
        "configure_logging": False,
    }
    try:
        if address == LOCAL:
            ray.init(
                num_cpus=num_cpus,
                include_dashboard=False,
                _node_ip_address="127.0.0.1",
                **options,
            )
        else:
            ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"--ray {address}: cannot connect ({first[:200]})") from None
    return ray


def check_address(address: str) -> None:
    """Before anything runs: Ray is installed and the address can be a cluster."""
    import_ray()
    _reachable(address)


def _reachable(address: str, seconds: float = 5.0) -> None:
    """Refuse at once a HOST:PORT nothing listens on (Ray itself retries for minutes)."""
    if address in (LOCAL, "auto"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise InputError(f"--ray {address}: give local, auto, HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host, int(port)), timeout=seconds).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(f"--ray {address}: no Ray cluster answers there ({reason})") from None


def disconnect(ray: ModuleType, started_here: bool) -> None:
    if started_here and ray.is_initialized():
        ray.shutdown()


IO_TASK_CPUS = 0.1  # a pair waiting on a model server barely uses a CPU


def _remote(ray: ModuleType, fn: Callable[..., object], simulated: bool) -> Any:
    """A Ray task of `fn`. The simulated model computes (one CPU a task); a real model's pair
    mostly waits on the server, so ten share a CPU and a node keeps many requests in flight.
    No Ray-level retries: a retried pair could pay twice; the answer cache makes reruns free."""
    return ray.remote(num_cpus=1 if simulated else IO_TASK_CPUS, max_retries=0)(fn)


def run_jobs(ray: ModuleType, setup: Setup, jobs: Sequence[Job]) -> list[Outcome]:
    """Tuning jobs as Ray tasks; results in the jobs' order (as a local run returns them). The
    setup travels as a `shipping.Shipment`, so a user's task (a task file, an import string, a
    plugin) loads in the workers as it did here; the first batch probes that it does."""
    if setup.cache_dir is not None:  # a worker's working directory is not the driver's
        setup = dataclasses.replace(setup, cache_dir=str(Path(setup.cache_dir).resolve()))
    shipment = pack_setup(setup)
    if shipment.key not in _PROBED:
        check_worker(ray, shipment, "tune")
        _PROBED.add(shipment.key)
    task = _remote(ray, _run_job_shipped, setup.simulated)
    shipment_ref = ray.put(shipment)
    return list(ray.get([task.remote(shipment_ref, job) for job in jobs]))


_PROBED: set[str] = set()
"""The shipments a probe task loaded on this cluster (one probe per tune, not per batch)."""


def _run_job_shipped(shipment: Shipment, job: Job) -> Outcome:
    """One tuning job in a worker, with the setup and task the driver shipped."""
    return run_job_sync(unpack_setup(shipment), job)


def _solve_pair_sync(
    shipment: Shipment,
    scheme: str,
    sample: Sample,
    repeat: int,
    allowance: Budget,
    options: RunOptions,
    traces: bool,
) -> tuple[PairResult, str | None]:
    """One pair in a worker, under its own ledger holding the pair's share of the budget: its
    result and, when the evaluation writes traces, the trace's text (the driver writes it:
    its folder need not be on the worker's machine)."""
    the_plan = unpack_plan(shipment)
    given = unpack_model(shipment)
    model = for_repeat(given, repeat)  # as a local run: seed + repeat
    routed = {
        kind: model if lm is given else for_repeat(lm, repeat)
        for kind, lm in unpack_routes(shipment, given).items()
    }
    meter = shared_meter(model, options.within(allowance))
    with tempfile.TemporaryDirectory(prefix="thoughtgraph-trace-") as scratch:
        folder = Path(scratch) if traces else None
        pair = asyncio.run(
            solve_pair(
                the_plan,
                scheme,
                sample,
                model,
                routed or None,
                meter,
                options,
                folder,
                None,
                repeat,
            )
        )
        return pair, (Path(scratch) / pair.trace).read_text() if pair.trace else None


class _Shares:
    """Splits what the evaluation's ledger has left among the pairs that may run at once.

    Workers cannot share the driver's ledger, so each pair gets an allowance (`spend.budget.share`,
    the rule tunes use too): an equal share of what is left after the allowances of the pairs
    already running, among the free ones of the `parallel` slots.
    The allowances in flight never add up to more than is left, so the caps hold across
    processes; when a pair returns, its spend goes into the ledger and the rest of its share is
    free again. (So with a budget, a pair on Ray may stop sooner than it would locally.)
    """

    def __init__(self, parallel: int) -> None:
        self.parallel = parallel
        self.out: dict[int, Amounts] = {}
        self.keys = itertools.count()

    def take(self, meter: Meter) -> tuple[int, Budget]:
        held = NOTHING
        for out in self.out.values():
            held = held.plus(out)
        allowance = share(meter.budget, meter.spent, held, self.parallel - len(self.out))
        key = next(self.keys)
        self.out[key] = Amounts(
            allowance.max_requests or 0, allowance.max_tokens or 0, allowance.max_cost or 0.0
        )
        return key, allowance

    def give_back(self, key: int) -> None:
        self.out.pop(key, None)


def pair_runner(
    ray: ModuleType,
    shipment: Shipment,
    parallel: int,
    options: RunOptions,
    trace_folder: Path | None = None,
) -> PairRunner:
    """A `runner.PairRunner` that solves each pair in a Ray task (awaited, not blocking);
    with a `trace_folder`, each pair's trace comes back and is written there."""
    task = _remote(ray, _solve_pair_sync, shipment.simulated)
    shipment_ref = ray.put(shipment)
    shares = _Shares(parallel)
    traces = trace_folder is not None

    async def run(scheme: str, sample: Sample, repeat: int, meter: Meter) -> PairResult:
        key, allowance = shares.take(meter)
        pair: PairResult
        trace: str | None
        try:
            pair, trace = await task.remote(
                shipment_ref, scheme, sample, repeat, allowance, options, traces
            )
        except ray.exceptions.RayTaskError as exc:  # the worker's own one line, not Ray's text
            if isinstance(exc.cause, ThoughtgraphError):
                raise exc.cause from None
            raise
        finally:
            shares.give_back(key)
        meter.carry(pair.requests, pair.tokens, pair.cost)
        if trace_folder is not None and trace is not None and pair.trace is not None:
            _write_trace(trace_folder / pair.trace, trace)
        return pair

    return run


def _write_trace(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    except OSError as exc:
        raise InputError(f"cannot write trace {path}: {exc.strerror or exc}") from None


def check_worker(ray: ModuleType, shipment: Shipment, what: str = "evaluation") -> None:
    """One probe task loads the task and the model in a worker, before any pair runs: what a
    worker cannot load (a module on the driver's machine only, a dependency missing there) is
    one line now, with no request sent."""
    probe = ray.remote(num_cpus=IO_TASK_CPUS, max_retries=0)(check_unpack)
    problem = ray.get(probe.remote(shipment))
    if problem is not None:
        raise InputError(f"--ray: a Ray worker cannot load the {what}: {problem}")


@contextlib.contextmanager
def cluster(address: str) -> Iterator[ModuleType]:
    """The `ray` module joined to the cluster at `address` while inside; a cluster started here
    (`local`) stops at the end, one joined is left running."""
    started_here = not import_ray().is_initialized()
    ray = connect(address)
    try:
        yield ray
    finally:
        disconnect(ray, started_here)


def runner_for(
    ray: ModuleType,
    the_plan: EvalPlan,
    model: ModelLike,
    model_options: dict[str, object],
    parallel: int,
    options: RunOptions,
    trace_folder: Path | None = None,
    models: Mapping[str, ModelLike] | None = None,
) -> PairRunner:
    """`eval --ray`: a pair runner for one plan on the cluster. The plan's task, the model and
    the specs of the kinds routed to other models go to the workers as a `shipping.Shipment`,
    checked by a probe task first; a relative answer-cache path is made absolute (a worker's
    working directory is not the driver's). With a `trace_folder` (`--traces`), the pairs'
    traces are written there."""
    specs = {kind: str(spec) for kind, spec in (models or {}).items()}  # specs: session.py
    shipment = pack(the_plan, model, model_options, specs)  # what cannot travel: one line
    if options.cache is not None:
        options = dataclasses.replace(options, cache=Path(options.cache).resolve())
    check_worker(ray, shipment)
    return pair_runner(ray, shipment, parallel, options, trace_folder)


class RayPairs:
    """`evaluate(ray=ADDRESS)`: the evaluation's pairs as Ray tasks (an `evaluation.backend.
    PairBackend`), on one cluster joined for the whole evaluation."""

    def __init__(self, address: str) -> None:
        self.address = address

    def check(self) -> None:
        check_address(self.address)

    @contextlib.contextmanager
    def joined(self) -> Iterator[RunnerFor]:
        with cluster(self.address) as ray:

            def runner(
                the_plan: EvalPlan,
                model: ModelLike,
                model_options: Mapping[str, object],
                parallel: int,
                options: RunOptions,
                trace_folder: Path | None,
                models: Mapping[str, ModelLike],
            ) -> PairRunner:
                return runner_for(
                    ray,
                    the_plan,
                    model,
                    dict(model_options),
                    parallel,
                    options,
                    trace_folder,
                    models,
                )

            yield runner


class RayJobs:
    """`tune(ray=ADDRESS)`: the tune's jobs as Ray tasks (a `tuning.backend.JobBackend`)."""

    def __init__(self, address: str) -> None:
        self.address = address

    def check(self) -> None:
        check_address(self.address)

    def shared(self, model: LanguageModel) -> LanguageModel:
        """The workers get a pickled copy, made now: one that cannot travel is one line here."""
        copy: LanguageModel = ray_cloudpickle().loads(pickled(model, f"model {shown(model.name)}"))
        return copy

    @contextlib.contextmanager
    def joined(self) -> Iterator[Backend]:
        with cluster(self.address) as ray:

            def run(setup: Setup, jobs: Sequence[Job]) -> list[Outcome]:
                return run_jobs(ray, setup, jobs)

            yield run


def job_backend(ray: str | None) -> JobBackend:
    """What runs a tune's jobs: Ray tasks at the address `ray`, else this process."""
    return LOCAL_JOBS if ray is None else RayJobs(ray)
