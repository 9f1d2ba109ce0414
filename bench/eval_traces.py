"""What `eval --traces` costs: trace bytes per run and wall time with and without traces.

    .venv/bin/python bench/eval_traces.py [--samples 10] [--size 64]

Runs the same evaluation (all six schemes, the simulated model) into two fresh folders, once
without and once with `--traces`, in one process, and prints the wall times, their ratio and the
trace sizes per scheme. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import tempfile
import time
from pathlib import Path

from thoughtgraph.evaluation.runner import plan, run_pairs

SCHEMES = ("io", "cot", "tot", "tot2", "got_paper", "got")


def timed(samples: int, size: int, out: Path, traces: bool) -> float:
    the_plan = plan("sorting", size, SCHEMES, samples)
    started = time.perf_counter()
    asyncio.run(run_pairs(the_plan, "sim", out, traces=traces))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--size", type=int, default=64)
    args = parser.parse_args()
    print(f"command: .venv/bin/python bench/eval_traces.py --samples {args.samples} "
          f"--size {args.size}")  # fmt: skip
    print(f"machine: {platform.machine()}, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        timed(1, args.size, Path(tmp) / "warm", False)  # imports and first-use costs
        plain = timed(args.samples, args.size, Path(tmp) / "plain", False)
        traced = timed(args.samples, args.size, Path(tmp) / "traced", True)
        files = sorted((Path(tmp) / "traced" / "traces").glob("*.json"))
        print(f"wall without traces {plain:.2f} s, with traces {traced:.2f} s, "
              f"ratio {traced / plain:.2f}")  # fmt: skip
        total = sum(f.stat().st_size for f in files)
        print(f"{len(files)} traces, {total / 2**20:.1f} MiB, {total / len(files) / 1024:.0f} KiB "
              "per run on average")  # fmt: skip
        for scheme in SCHEMES:
            mine = [f.stat().st_size for f in files if f.name.rsplit("-", 1)[0] == scheme]
            print(f"  {scheme:>10}: {sum(mine) / len(mine) / 1024:8.0f} KiB per run")


if __name__ == "__main__":
    main()
