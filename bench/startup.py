"""Cold start: whole-process wall time of a fresh interpreter, best of N runs.

    .venv/bin/python bench/startup.py [--runs 15]

Each command runs N times as a new process; the best run is shown (the others measure the
machine's other load, not us), next to the bare interpreter and `import typer` (the command
line's own floor). The sources are byte-compiled first (`make bytecode`), as pip does on install:
with PYTHONDONTWRITEBYTECODE set, an editable install would otherwise compile every module on
every start. Prints figures; asserts nothing. Targets (issue 13): `thoughtgraph --help`
<= 0.2 s, `import thoughtgraph` <= 0.1 s, a one-shot `solve` on the simulated model <= 0.35 s.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
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


def best(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    compile_package = "import compileall, os, thoughtgraph as t; compileall.compile_dir("
    compile_package += "os.path.dirname(t.__file__), quiet=1)"  # the copy that will be imported
    subprocess.run([PY, "-c", compile_package], check=True)
    print(f"command: .venv/bin/python bench/startup.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"machine: {platform.machine()}, Python {platform.python_version()}; best of {args.runs}")
    print("| command | best s | target s |")
    print("|---|---:|---:|")
    for label, argv, target in COMMANDS:
        shown = "" if target is None else f"{target:g}"
        print(f"| `{label}` | {best(argv, args.runs):.3f} | {shown} |")


if __name__ == "__main__":
    main()
