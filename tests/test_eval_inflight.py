"""`eval`'s pairs follow `--concurrency`: the calls in flight reach it, whatever each scheme's
own parallelism, and never pass it; `--parallel` only lowers the pairs at once."""

from __future__ import annotations

import asyncio
from pathlib import Path

from thoughtgraph.engine.options import RunOptions
from thoughtgraph.evaluation.runner import plan, run_pairs
from thoughtgraph.testing import ScriptedModel


def peak(tmp_path: Path, concurrency: int, parallel: int | None = None) -> int:
    model = ScriptedModel(delay=0.5)  # long enough for every pair of a wave to start its call
    the_plan = plan("sorting", 32, ["io"], 24)  # io: one call per pair, one at a time
    results = asyncio.run(
        run_pairs(
            the_plan, model, tmp_path / "ev", RunOptions(concurrency=concurrency), parallel=parallel
        )
    )
    assert len(results) == 24 and all(r.status == "clean" for r in results)
    return model.max_in_flight


def test_pairs_in_flight_follow_concurrency(tmp_path: Path) -> None:
    # with 8 pairs at a time (the old default) an io evaluation peaked at 8 calls
    assert peak(tmp_path, concurrency=12) == 12


def test_parallel_stays_an_upper_bound(tmp_path: Path) -> None:
    assert peak(tmp_path, concurrency=12, parallel=5) == 5
