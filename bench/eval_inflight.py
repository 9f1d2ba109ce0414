"""Peak requests in flight during an evaluation: does `--concurrency` decide?

    .venv/bin/python bench/eval_inflight.py [--latency 0.3] [--samples 16] [--concurrency 64]

`run_pairs` (what `thoughtgraph eval` runs) on sorting 32 with the default schemes, against a
scripted model (`thoughtgraph.testing.ScriptedModel`: perfect answers) answering every request
after `--latency` seconds and counting the requests in flight. Three settings in one run: the
default (`--parallel` not given: pairs follow `--concurrency`), `--parallel 8` (the old default)
and `--parallel` = concurrency.
Prints the peak requests in flight and pairs per second; asserts nothing. Target (issue 21):
peak >= 56 at `--concurrency 64` with default options, never above 64.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import sys
import tempfile
import time
from pathlib import Path

from thoughtgraph.cli.eval import DEFAULT_SCHEMES
from thoughtgraph.engine.options import RunOptions
from thoughtgraph.evaluation.runner import plan, run_pairs
from thoughtgraph.testing import ScriptedModel


def run(
    latency: float, samples: int, concurrency: int, parallel: int | None
) -> tuple[int, float, int]:
    model = ScriptedModel(delay=latency)  # perfect answers, after `latency` s
    the_plan = plan("sorting", 32, DEFAULT_SCHEMES.split(","), samples)
    options = RunOptions(concurrency=concurrency)
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        results = asyncio.run(
            run_pairs(the_plan, model, Path(folder) / "ev", options, parallel=parallel)
        )
        wall = time.perf_counter() - started
    return model.max_in_flight, len(results) / wall, len(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    print(f"command: .venv/bin/python bench/eval_inflight.py {' '.join(sys.argv[1:])}".rstrip())
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}; simulated model, "
        f"{args.latency} s a request; sorting 32, schemes {DEFAULT_SCHEMES}, {args.samples} "
        f"samples; --concurrency {args.concurrency}"
    )
    print(f"\n| {'--parallel':<22} | {'pairs':>5} | {'peak in flight':>14} | {'pairs/s':>7} |")
    print("|---|---:|---:|---:|")
    peaks = {}
    for label, parallel in (
        ("not given (default)", None),
        ("8 (the old default)", 8),
        (str(args.concurrency), args.concurrency),
    ):
        peak, rate, pairs = run(args.latency, args.samples, args.concurrency, parallel)
        peaks[label] = peak
        print(f"| {label:<22} | {pairs:>5} | {peak:>14} | {rate:>7.2f} |")
    default = peaks["not given (default)"]
    target = int(args.concurrency * 56 / 64)
    verdict = "met" if target <= default <= args.concurrency else "NOT met"
    print(f"\ntarget: default peak >= {target} and <= {args.concurrency}: {verdict} ({default})")


if __name__ == "__main__":
    main()
