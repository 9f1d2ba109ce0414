"""The evaluation harness: every (scheme, sample) pair of a dataset, concurrently, resumably.

Each finished pair is appended to `results.jsonl` at once (flushed), so an interrupted evaluation
loses nothing: run it again with the same `--out` and the finished pairs are skipped.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..api import asolve
from ..errors import InputError, UnknownNameError
from ..models.base import ModelLike, as_model
from ..schemes import SCHEMES, build
from ..tasks import get_task
from .datasets import DATASETS, Sample, load_dataset

RESULTS = "results.jsonl"


@dataclass(frozen=True)
class PairResult:
    """One line of results.jsonl: how one scheme did on one sample."""

    scheme: str
    sample: int
    error: float
    clipped_error: float  # min(error, size), as the paper plots it
    solved: bool
    status: str
    requests: int
    completions: int
    tokens: int
    cost: float
    wall_seconds: float
    depth: int
    volume: int
    model: str
    simulated: bool
    stop_reason: str | None = None
    final_score: float | None = None  # the final thought's own score: for doc-merge the model's
    # harmonic mean of redundancy and retention (0-10, higher is better); else equal to error


@dataclass(frozen=True)
class EvalPlan:
    task: str
    size: int
    schemes: tuple[str, ...]
    dataset: str
    samples: tuple[Sample, ...]


def dataset_for(task: str, size: int) -> str:
    """The built-in dataset of a task at a size (e.g. sorting, 64 -> sorting_064)."""
    candidates = [name for name, t in DATASETS.items() if t == task]
    if not candidates:
        raise UnknownNameError(f"no built-in dataset for task {task!r}")
    sized = [name for name in candidates if name.endswith(f"_{size:03d}")]
    if sized:
        return sized[0]
    if len(candidates) == 1:
        return candidates[0]
    sizes = ", ".join(name.rsplit("_", 1)[-1].lstrip("0") for name in candidates)
    raise InputError(f"no {task} dataset of size {size} (sizes: {sizes})")


def plan(task: str, size: int, schemes: Sequence[str], samples: int, dataset: str | None = None) -> EvalPlan:
    """Check every name before anything runs."""
    the_task = get_task(task)
    unknown = [s for s in schemes if s not in SCHEMES]
    if unknown:
        raise UnknownNameError(f"unknown scheme {unknown[0]!r} (known: {', '.join(SCHEMES)})")
    if not schemes:
        raise InputError("give at least one scheme")
    if samples < 1:
        raise InputError(f"--samples must be at least 1, got {samples}")
    name = dataset or dataset_for(the_task.name, size)
    rows = load_dataset(name)
    return EvalPlan(the_task.name, size, tuple(schemes), name, rows[:samples])


def load_results(out: Path) -> list[PairResult]:
    path = out / RESULTS
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    results = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            results.append(PairResult(**json.loads(line)))
        except (json.JSONDecodeError, TypeError):
            if number == len(lines):
                continue  # a line cut short by an interruption: that pair runs again
            raise InputError(f"{path}: line {number} is not a result line") from None
    return results


async def evaluate(
    the_plan: EvalPlan,
    model: ModelLike,
    out: Path,
    *,
    parallel: int = 8,
    concurrency: int = 16,
    max_calls: int | None = None,
    on_result: Callable[[PairResult], None] | None = None,
    solve_options: dict[str, Any] | None = None,
) -> list[PairResult]:
    """Run every pair not yet in `out/results.jsonl`; returns all results (old and new).

    A simulated model gets a fresh instance per pair, so its seeded answers do not depend on
    which pairs happen to run first. `max_calls` caps the requests of the whole evaluation:
    once reached, no further pair starts (a pair already running finishes within what is left).
    """
    out.mkdir(parents=True, exist_ok=True)
    done = load_results(out)
    _rewrite(out / RESULTS, done)
    finished = {(r.scheme, r.sample) for r in done}
    todo = [(s, x) for x in the_plan.samples for s in the_plan.schemes if (s, x.id) not in finished]
    shared = None if isinstance(model, str) and model.startswith("sim") else as_model(model)
    gate = asyncio.Semaphore(parallel)
    spent = {"calls": sum(r.requests for r in done)}
    results = list(done)
    with (out / RESULTS).open("a") as sink:

        async def run_pair(scheme: str, sample: Sample) -> None:
            async with gate:
                left = None if max_calls is None else max_calls - spent["calls"]
                if left is not None and left <= 0:
                    return
                pair = await _solve_pair(the_plan, scheme, sample,
                                         shared or as_model(model), concurrency, left,
                                         solve_options or {})
                spent["calls"] += pair.requests
                sink.write(json.dumps(asdict(pair)) + "\n")
                sink.flush()
                results.append(pair)
                if on_result:
                    on_result(pair)

        await asyncio.gather(*(run_pair(s, x) for s, x in todo))
    order = {s: i for i, s in enumerate(the_plan.schemes)}
    return sorted(results, key=lambda r: (order.get(r.scheme, len(order)), r.sample))


def _rewrite(path: Path, results: list[PairResult]) -> None:
    """Drop a line cut short by an interruption, so appended lines start on a fresh line."""
    if path.exists() and path.read_text() and not path.read_text().endswith("\n"):
        path.write_text("".join(json.dumps(asdict(r)) + "\n" for r in results))


async def _solve_pair(the_plan: EvalPlan, scheme: str, sample: Sample, model: Any,
                      concurrency: int, max_calls: int | None, options: dict[str, Any]) -> PairResult:
    graph = build(scheme, the_plan.task, len(sample.input))
    started = time.perf_counter()
    result = await asolve(the_plan.task, sample.input, model, graph=graph,
                          concurrency=concurrency, max_calls=max_calls, **options)
    solved = result.output == sample.reference if sample.reference is not None else result.clean
    return PairResult(
        scheme=scheme, sample=sample.id, error=result.error_count,
        clipped_error=min(result.error_count, float(the_plan.size)), solved=bool(solved),
        status=result.status, requests=result.calls, completions=result.completions,
        tokens=result.tokens, cost=float(getattr(result, "cost", 0.0) or 0.0),
        wall_seconds=round(time.perf_counter() - started, 4), depth=result.depth,
        volume=result.volume, model=result.model, simulated=result.simulated,
        stop_reason=result.stop_reason,
        final_score=None if result.final.score is None else result.final.score.value,
    )
