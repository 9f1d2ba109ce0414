"""Calibration of the simulated model: GPT-3.5's figures on the paper's configurations next to
the sim's (its default profile, gpt-3.5-paper).

    .venv/bin/python bench/calibrate.py                 # the full table (100 samples each)
    .venv/bin/python bench/calibrate.py --samples 20    # quicker, noisier
    .venv/bin/python bench/calibrate.py --seed 1        # another draw of the same model
    .venv/bin/python bench/calibrate.py --all           # also the uncalibrated tasks

Each row runs one scheme in the paper's configuration (`schemes.build`) on the first N samples
of a dataset with the default simulated model (`sim`, error 1) and reports the paper's measure:
the median error, or the number of samples solved exactly. Runs go to worker processes; the
result does not depend on how many (every answer is seeded by the prompt).

Where the targets come from: the medians are the paper's (Besta et al., Figures 5 and 7); the
sorting-32 solved counts are not in the paper: they come from the Tree of Problems authors'
re-run of the reference code (spcl/graph-of-thoughts) with gpt-3.5-turbo, June 2024 (their
evaluation.ipynb, github.com/ArmelRandy/tree-of-problems).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import thoughtgraph
from thoughtgraph import schemes
from thoughtgraph.evaluation.datasets import DATASETS, load_dataset
from thoughtgraph.sim.model import SimulatedModel


@dataclass(frozen=True)
class Row:
    label: str
    dataset: str
    scheme: str
    measure: str  # "median error", "solved", "median score"
    paper: float | None  # the target: GPT-3.5's figure (see the module docstring for whence)
    options: tuple[tuple[str, object], ...] = ()


TARGETS = [
    Row("sorting 64 · IO", "sorting_064", "io", "median error", 40),
    Row("sorting 64 · CoT", "sorting_064", "cot", "median error", 20),
    Row("sorting 64 · ToT", "sorting_064", "tot", "median error", 16),
    Row("sorting 64 · GoT", "sorting_064", "got_paper", "median error", 7),
    # solved of 100: the Tree of Problems authors' re-run of the reference code (gpt-3.5-turbo)
    Row("sorting 32 · IO", "sorting_032", "io", "solved", 1),
    Row("sorting 32 · CoT", "sorting_032", "cot", "solved", 2),
    Row("sorting 32 · ToT", "sorting_032", "tot", "solved", 17),
    Row("sorting 32 · ToT2", "sorting_032", "tot2", "solved", 14),
    Row("sorting 32 · GoT", "sorting_032", "got_paper", "solved", 28),
    Row("keywords · IO", "countries", "io", "median error", 14),
    Row("keywords · CoT", "countries", "cot", "median error", 14),
    Row("keywords · ToT", "countries", "tot", "median error", 4),
    Row("keywords · GoT4", "countries", "got_paper", "median error", 3),
]

UNCALIBRATED = [
    *(
        Row(f"set intersection {n} · {s}", f"set_intersection_{n:03d}", s, "median error", None)
        for n in (32, 64, 128)
        for s in ("io", "cot", "tot", "tot2", "got_paper")
    ),
    Row("keywords · GoT8", "countries", "got_paper", "median error", None, (("parts", 8),)),
    Row(
        "keywords · GoTx",
        "countries",
        "got_paper",
        "median error",
        None,
        (("parts", "sentences"), ("part_prompt", "sentence")),
    ),
    *(
        Row(f"doc merge · {s}", "documents", s, "median score", None)
        for s in ("io", "cot", "tot", "got_paper")
    ),
]


def run_one(row: Row, index: int, seed: int) -> tuple[float, bool]:
    """One sample: (the measure's value, solved exactly)."""
    sample = load_dataset(row.dataset)[index]
    task = DATASETS[row.dataset]
    size = len(sample.input)
    options = {k: (size if v == "sentences" else v) for k, v in row.options}
    parts = options.pop("parts", None)
    graph = schemes.build(row.scheme, task, size, parts=parts, **options)
    result = thoughtgraph.solve(task, sample.input, model=SimulatedModel(seed=seed), graph=graph)
    if row.measure == "median score":
        score = result.final.score
        return (score.value if score else 0.0), result.clean
    solved = result.output == sample.reference if sample.reference is not None else result.clean
    return result.error_count, bool(solved)


def measure(row: Row, samples: int, seed: int, pool: ProcessPoolExecutor) -> float:
    count = min(samples, len(load_dataset(row.dataset)))
    runs = list(pool.map(run_one, [row] * count, range(count), [seed] * count))
    if row.measure == "solved":
        return 100 * sum(solved for _, solved in runs) / count  # out of 100, as the paper
    return statistics.median(value for value, _ in runs)


def verdict(paper: float | None, sim: float) -> str:
    """Within ±35% of the paper's figure, or ±3 absolute where it is small."""
    if paper is None:
        return ""
    ok = abs(sim - paper) <= max(0.35 * paper, 3)
    return "ok" if ok else "OFF"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--all", action="store_true", help="also the uncalibrated tasks")
    parser.add_argument("--only", default="", help="rows whose label contains this text")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    rows = [r for r in TARGETS + (UNCALIBRATED if args.all else []) if args.only in r.label]
    command = "bench/calibrate.py " + " ".join(argv if argv is not None else sys.argv[1:])
    print(f"# {command.strip()} · sim (error=1, seed={args.seed}) · {args.samples} samples\n")
    print("| figure | measure | GPT-3.5 | simulated | within ±35% / ±3 |")
    print("|---|---|---:|---:|:---:|")
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        for row in rows:
            value = measure(row, args.samples, args.seed, pool)
            paper = "—" if row.paper is None else f"{row.paper:g}"
            print(
                f"| {row.label} | {row.measure} | {paper} | {value:g} | "
                f"{verdict(row.paper, value)} |",
                flush=True,
            )
    print(
        "\nGPT-3.5: the paper's medians (Figures 5 and 7); sorting 32 solved: the Tree of Problems"
        " authors' re-run of the reference code with gpt-3.5-turbo (their evaluation.ipynb)."
    )
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
