"""How many source files of thoughtgraph one solve and one eval row pass through.

    .venv/bin/python bench/flow_files.py [-v]

Each run is made once to warm up (imports, first-use caches), then again under a profiler hook
that records the file of every Python function called: the second run's files are the path of
one run (docs/architecture.md draws them). The solve: 32 numbers, the spec's `got`, the
simulated model without slips. The eval: `evaluate` of sorting at size 32, one sample, the `got`
scheme, into a temporary folder (plan, folder, reports and figure included); its row is what one
pair runs, from `solve_pair` called to its `PairResult` returned. The simulated model's own files
(`sim/`) are counted apart: they stand for the model a real run calls over HTTP. `-v` lists the
files. Prints figures; asserts nothing.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import thoughtgraph
from thoughtgraph.evaluation import runner

ROOT = Path(thoughtgraph.__file__).resolve().parent


def _tracer(seen: set[str]) -> Callable[[FrameType, str, Any], None]:
    def tracer(frame: FrameType, event: str, _arg: Any) -> None:
        if event == "call":
            seen.add(frame.f_code.co_filename)

    return tracer


def _ours(seen: set[str]) -> set[str]:
    return {str(Path(f).resolve().relative_to(ROOT)) for f in seen if f.startswith(str(ROOT))}


def files_run_by(work: Callable[[], object]) -> set[str]:
    work()  # warm up: imports and first-use caches are not the path of a run
    seen: set[str] = set()
    sys.setprofile(_tracer(seen))
    try:
        work()
    finally:
        sys.setprofile(None)
    return _ours(seen)


def files_of_one_pair() -> set[str]:
    """The files one eval row passes through: profiled from `solve_pair` called to returned."""
    eval_row()  # warm up
    seen: set[str] = set()
    real = runner.solve_pair

    async def profiled(*args: Any, **kwargs: Any) -> runner.PairResult:
        sys.setprofile(_tracer(seen))
        try:
            return await real(*args, **kwargs)
        finally:
            sys.setprofile(None)

    runner.solve_pair = profiled  # type: ignore[assignment]
    try:
        eval_row()
    finally:
        runner.solve_pair = real  # type: ignore[assignment]
    return _ours(seen)


def solve() -> object:
    return thoughtgraph.solve("sorting", list(range(32, 0, -1)), model="sim:error=0")


def eval_row() -> object:
    with tempfile.TemporaryDirectory() as out:
        return thoughtgraph.evaluate(
            "sorting", size=32, samples=1, schemes="got", model="sim", out=out
        )


def report(name: str, found: set[str]) -> None:
    model = sorted(f for f in found if f.startswith("sim/"))
    files = sorted(found - set(model))
    engine = [f for f in files if f.startswith("engine/")]
    print(
        f"{name}: {len(files)} files ({len(engine)} in engine/, {len(files) - len(engine)} "
        f"outside), and {len(model)} of the simulated model's"
    )
    if "-v" in sys.argv:
        print("  " + "\n  ".join(files + model))


def main() -> None:
    report("solve", files_run_by(solve))
    report("eval", files_run_by(eval_row))
    report("eval row (one pair)", files_of_one_pair())


if __name__ == "__main__":
    main()
