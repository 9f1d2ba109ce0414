"""Instructions per got_paper sorting sample, thoughtgraph beside the paper's reference, counted
by valgrind (opt-in; not run by the tests or CI). Instruction counts do not depend on the load,
so they compare the two sides' work where the timer of bench/reference.py swings.

    .venv/bin/python bench/icount.py [--size 32] [--reference-repo PATH]

Each side runs bench/reference.py's own run closures (the same graphs, inputs and answer
functions, nothing timed inside) under `valgrind --tool=callgrind`: one warm-up sample and then
10, and again with 40; per sample = (count at 40 - count at 10) / 30, so imports and the
warm-up cancel. Needs valgrind on PATH and the reference's scratch venv (bench/reference.py
sets it up on its first run). Takes a few minutes.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import reference as ref  # bench/reference.py, beside this file

LOW, HIGH = 10, 40


def samples(system: str, size: int, count: int) -> None:
    """The child: warm-up + `count` samples of `system` at `size`, nothing timed."""

    def measured(run, size, _samples, _latency, _timed):  # type: ignore[no-untyped-def]
        for sample in range(count + 1):
            run(ref.problem_for(size, sample), 0.0, ref.AnswerClock(None, timed=False))
        return {}

    ref.measured = measured
    (ref.run_thoughtgraph if system == "thoughtgraph" else ref.run_reference)(size, count, 0.0)


def instructions(system: str, size: int, count: int) -> int:
    env = dict(os.environ)
    python = Path(sys.executable)
    if system == "reference":
        python = ref.reference_python()
        env["PYTHONPATH"] = os.pathsep.join([str(ref.STUBS), str(ref.ROOT / "src")])
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(python)]
        command += [__file__, "--child", system, "--size", str(size), "--count", str(count)]
        subprocess.run(command, env=env, capture_output=True, check=True)
        found = re.search(r"^summary: (\d+)", out.read_text(), re.MULTILINE)
    if not found:
        raise SystemExit(f"no instruction count from valgrind for {system}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=32, choices=[32, 64, 128])
    parser.add_argument("--reference-repo", help="a clone or bare mirror of spcl/graph-of-thoughts")
    parser.add_argument("--child", choices=["thoughtgraph", "reference"], help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return samples(args.child, args.size, args.count)
    ref.reference_python()
    ref.reference_examples(args.reference_repo)
    print(f"command: .venv/bin/python bench/icount.py {' '.join(sys.argv[1:])}".rstrip())
    per = {}
    for system in ("reference", "thoughtgraph"):
        low, high = instructions(system, args.size, LOW), instructions(system, args.size, HIGH)
        per[system] = (high - low) / (HIGH - LOW)
        print(f"{system}: {per[system] / 1e6:.2f} M instructions per sample at {args.size}")
    print(f"thoughtgraph / reference: {per['thoughtgraph'] / per['reference']:.2f}")


if __name__ == "__main__":
    main()
