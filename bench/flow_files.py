"""How many source files of thoughtgraph one solve and one eval row pass through.

    .venv/bin/python bench/flow_files.py [-v]

Each run is made once to warm up (imports, first-use caches), then again under a profiler hook
that records the file of every Python function called: the second run's files are the path of
one run (docs/architecture.md draws them). The solve: 32 numbers, the spec's `got`, the
simulated model without slips. The eval row: `evaluate` of sorting at size 32, one sample, the
`got` scheme, into a temporary folder (reports and figure included). `-v` lists the files.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import thoughtgraph

ROOT = Path(thoughtgraph.__file__).resolve().parent


def files_run_by(work: Callable[[], object]) -> set[str]:
    work()  # warm up: imports and first-use caches are not the path of a run
    seen: set[str] = set()

    def tracer(frame: FrameType, event: str, _arg: Any) -> None:
        if event == "call":
            seen.add(frame.f_code.co_filename)

    sys.setprofile(tracer)
    try:
        work()
    finally:
        sys.setprofile(None)
    return {str(Path(f).resolve().relative_to(ROOT)) for f in seen if f.startswith(str(ROOT))}


def solve() -> object:
    return thoughtgraph.solve("sorting", list(range(32, 0, -1)), model="sim:error=0")


def eval_row() -> object:
    with tempfile.TemporaryDirectory() as out:
        return thoughtgraph.evaluate(
            "sorting", size=32, samples=1, schemes="got", model="sim", out=out
        )


def main() -> None:
    for name, work in (("solve", solve), ("eval row", eval_row)):
        files = sorted(files_run_by(work))
        engine = [f for f in files if f.startswith("engine/")]
        outside = len(files) - len(engine)
        print(f"{name}: {len(files)} files ({len(engine)} in engine/, {outside} outside)")
        if "-v" in sys.argv:
            print("  " + "\n  ".join(files))


if __name__ == "__main__":
    main()
