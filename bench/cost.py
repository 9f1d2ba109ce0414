"""Cost at equal quality: the spec's adaptive `got` vs the paper's fixed `got_paper`.

    .venv/bin/python bench/cost.py [--samples 100] [--sizes 32,64,128]

Runs both schemes on the sorting datasets with the calibrated simulated model (default `sim`)
and prints completions and tokens per sample, median error and solved count. Prints figures;
asserts nothing. Target (issue 6): `got` needs at most 1/5 of `got_paper`'s completions at equal
or better median error. Simulated figures: they compare graphs, not models.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import sys
import tempfile
from pathlib import Path

from thoughtgraph.evaluate.report import summarise
from thoughtgraph.evaluate.runner import evaluate, plan

SCHEMES = ("got", "got_paper")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--sizes", default="32,64,128")
    parser.add_argument("--model", default="sim")
    args = parser.parse_args()
    print(f"command: .venv/bin/python bench/cost.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"machine: {platform.machine()}, Python {platform.python_version()}; model {args.model} "
          "(simulated)")
    print(f"{'size':>5} {'scheme':<10}{'compl./sample':>14}{'tokens/sample':>14}"
          f"{'median err':>11}{'solved':>8}")
    for size in (int(s) for s in args.sizes.split(",")):
        the_plan = plan("sorting", size, SCHEMES, args.samples)
        with tempfile.TemporaryDirectory() as out:
            results = asyncio.run(evaluate(the_plan, args.model, Path(out), parallel=16))
        rows = {row.scheme: row for row in summarise(results, SCHEMES)}
        for scheme in SCHEMES:
            r = rows[scheme]
            print(f"{size:>5} {scheme:<10}{r.mean_completions:>14.1f}{r.mean_tokens:>14,.0f}"
                  f"{r.median_error:>11g}{r.solved:>8}")
        ratio = rows["got"].mean_completions / rows["got_paper"].mean_completions
        better = rows["got"].median_error <= rows["got_paper"].median_error
        print(f"{size:>5} got / got_paper completions: {ratio:.3f} (target <= 0.2); "
              f"median error {'equal or better' if better else 'WORSE'}")


if __name__ == "__main__":
    main()
