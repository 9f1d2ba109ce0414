"""Cold start: whole-process wall time of a fresh interpreter, best of N runs; and the fixed
CPU an eval adds to a one-shot solve.

    .venv/bin/python bench/startup.py [--runs 15] [--against OTHER/src]

Each command runs N times as a new process; the best run is shown (the others measure the
machine's other load, not us), next to the bare interpreter and `import typer` (the command
line's own floor). With `--against`, each command also runs with PYTHONPATH=OTHER/src (another
checkout, e.g. main before a change), interleaved run by run, and the ratio is printed. The
sources are byte-compiled first (`make bytecode`), as pip does on install: with
PYTHONDONTWRITEBYTECODE set, an editable install would otherwise compile every module on every
start. Prints figures; asserts nothing. Targets (issue 13): `thoughtgraph --help` <= 0.2 s,
`import thoughtgraph` <= 0.1 s, a one-shot `solve` on the simulated model <= 0.35 s.

Then (issue 30) the fixed CPU of `thoughtgraph eval sorting --size 64 --schemes got --samples 1`
beyond the one-shot solve: the CPU (user + system, from the child's rusage) of each, best of N,
interleaved, with the figure and with `--no-figure`. Targets: <= 1.0 s with the figure, <= 0.2 s
without.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
PY = str(BIN / "python")
TG = str(BIN / "thoughtgraph")

COMMANDS = [
    ("python -c pass (the interpreter)", [PY, "-c", "pass"], None),
    ("python -c 'import typer' (the CLI library)", [PY, "-c", "import typer"], None),
    ("python -c 'import thoughtgraph'", [PY, "-c", "import thoughtgraph"], 0.1),
    ("thoughtgraph --help", [TG, "--help"], 0.2),
    (
        "thoughtgraph solve sorting --input '[5, 1, 4, 1, 5, 9, 2, 6]' --model sim",
        [TG, "solve", "sorting", "--input", "[5, 1, 4, 1, 5, 9, 2, 6]", "--model", "sim"],
        0.35,
    ),
]


SOLVE = COMMANDS[-1][1]
EVAL = [TG, "eval", "sorting", "--size", "64", "--schemes", "got", "--samples", "1"]


def wall(argv: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - started


def cpu(argv: list[str]) -> float:
    """User + system CPU seconds of one run of `argv` (its own rusage)."""
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise RuntimeError(f"{' '.join(argv)} failed")
    return usage.ru_utime + usage.ru_stime


def compile_sources(env: dict[str, str] | None = None) -> None:
    code = "import compileall, os, thoughtgraph as t; compileall.compile_dir("
    code += "os.path.dirname(t.__file__), quiet=1)"  # the copy that will be imported
    subprocess.run([PY, "-c", code], check=True, env=env)


def eval_fixed_cost(runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        sides = {
            "one-shot solve": SOLVE,
            "eval --samples 1": [*EVAL, "--out", f"{folder}/a"],
            "eval --samples 1 --no-figure": [*EVAL, "--out", f"{folder}/b", "--no-figure"],
        }
        best: dict[str, float] = {}
        for _ in range(runs):
            for name, argv in sides.items():
                best[name] = min(best.get(name, float("inf")), cpu(argv))
    solve = best["one-shot solve"]
    print(
        f"\nfixed CPU of `{' '.join(EVAL[1:])}` beyond a one-shot solve (user + system CPU, "
        f"best of {runs}, interleaved)\n"
    )
    print("| command | CPU s | beyond the solve s | target s |")
    print("|---|---:|---:|---:|")
    print(f"| one-shot `solve` (above) | {solve:.3f} | | |")
    for name, target in (("eval --samples 1", 1.0), ("eval --samples 1 --no-figure", 0.2)):
        extra = best[name] - solve
        verdict = "met" if extra <= target else "NOT met"
        print(f"| `{name}` | {best[name]:.3f} | {extra:.3f} | {target:g} ({verdict}) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--against", help="another checkout's src folder, run interleaved")
    args = parser.parse_args()
    other = None
    if args.against:
        other = dict(os.environ, PYTHONPATH=str(Path(args.against).resolve()))
        compile_sources(other)
    compile_sources()
    print(f"command: .venv/bin/python bench/startup.py {' '.join(sys.argv[1:])}".rstrip())
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}; best of "
        f"{args.runs}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    if other is None:
        print("| command | best s | target s |")
        print("|---|---:|---:|")
    else:
        print(f"| command | this checkout s | {args.against} s | ratio | target s |")
        print("|---|---:|---:|---:|---:|")
    for label, argv, target in COMMANDS:
        shown = "" if target is None else f"{target:g}"
        mine, theirs = float("inf"), float("inf")
        for _ in range(args.runs):
            mine = min(mine, wall(argv))
            if other is not None:
                theirs = min(theirs, wall(argv, other))
        if other is None:
            print(f"| `{label}` | {mine:.3f} | {shown} |")
        else:
            print(f"| `{label}` | {mine:.3f} | {theirs:.3f} | {mine / theirs:.2f} | {shown} |")
    eval_fixed_cost(max(3, args.runs // 3))
    print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
