"""Cost at equal quality: the spec's adaptive `got` vs the paper's fixed `got_paper`.

    .venv/bin/python bench/cost.py [--samples 100] [--sizes 32,64,128] [--model sim]

Runs on the sorting datasets with the calibrated simulated model and prints completions and
tokens per sample, median error and solved count for: `got` with its default parts of 8, `got`
with the paper's parts of 16 (the same split as `got_paper`), and `got_paper`. Prints figures;
asserts nothing. Target (issue 6): `got` needs at most 1/5 of `got_paper`'s completions at equal
or better median error. Simulated figures: they compare graphs, not models.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys

from thoughtgraph import schemes, solve
from thoughtgraph.evaluation.datasets import load_dataset


def measure(size: int, variant: str, samples: int, model: str) -> tuple[float, float, float, int]:
    rows = load_dataset(f"sorting_{size:03d}")[:samples]
    completions, tokens, errors, solved = [], [], [], 0
    for sample in rows:
        if variant == "got_paper":
            graph = schemes.build("got_paper", "sorting", size)
        else:
            graph = schemes.build("got", "sorting", size, parts=size // int(variant.split("/")[1]))
        result = solve("sorting", sample.input, model=model, graph=graph)
        completions.append(result.completions)
        tokens.append(result.tokens)
        errors.append(result.error_count)
        solved += result.output == sample.reference
    n = len(rows)
    return sum(completions) / n, sum(tokens) / n, statistics.median(errors), solved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--sizes", default="32,64,128")
    parser.add_argument("--model", default="sim")
    args = parser.parse_args()
    print(f"command: .venv/bin/python bench/cost.py {' '.join(sys.argv[1:])}".rstrip())
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}; model {args.model} "
        f"(simulated); {args.samples} samples per size"
    )
    print(
        f"{'size':>5}  {'scheme':<18}{'compl./sample':>14}{'tokens/sample':>14}"
        f"{'median err':>11}{'solved':>8}{'vs got_paper':>14}"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        rows = {
            v: measure(size, v, args.samples, args.model)
            for v in ("got_paper", "got parts of/8", "got parts of/16")
        }
        paper = rows["got_paper"]
        for variant, (compl, toks, median, solved) in rows.items():
            ratio = "" if variant == "got_paper" else f"{compl / paper[0]:.3f}"
            name = variant.replace("/", " ")
            print(
                f"{size:>5}  {name:<18}{compl:>14.1f}{toks:>14,.0f}{median:>11g}{solved:>8}"
                f"{ratio:>14}"
            )
    print("target: got completions <= 0.2 x got_paper's, at equal or better median error")


if __name__ == "__main__":
    main()
