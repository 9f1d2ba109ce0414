"""Engine overhead: scheduling cost per op at zero model latency, and peak memory, by graph size.

    .venv/bin/python bench/overhead.py

Uses the spec's `got` graph (split, parts, pairwise merges, refine) on the simulated model with
latency 0 and error 0, so the time measured is the engine's own (plus the sim's answer, which is
a sort of 8 to N numbers). Prints figures; asserts nothing. Target (issue 6): under 1 ms per op,
growing linearly with graph size.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
import tracemalloc

import thoughtgraph
from thoughtgraph.models.sim import SimulatedModel


class InstantModel:
    """Answers instantly with a fixed short list: isolates the engine from the sim's sorting."""

    name = "instant"
    simulated = True

    async def complete(self, prompt: str, n: int = 1) -> list[thoughtgraph.Completion]:
        return [thoughtgraph.Completion("[0]") for _ in range(n)]


def solve(parts: int, model: object) -> thoughtgraph.Result:
    problem = random.Random(0).choices(range(10), k=parts * 2)
    return thoughtgraph.solve(
        "sorting",
        problem,
        model=model,
        parts=parts,
        concurrency=max(16, parts),
        max_regenerations=0,
        max_extra_merges=0,
        max_refines=0,
    )


def measure(parts: int, model: object) -> tuple[int, float, float]:
    """Wall time of one run, then peak traced memory of a second run (tracing slows it)."""
    started = time.perf_counter()
    result = solve(parts, model)
    wall = time.perf_counter() - started
    tracemalloc.start()
    solve(parts, model)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return len(result.graph.ops), wall, peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-parts", type=int, default=3333)
    args = parser.parse_args()
    print("command: .venv/bin/python bench/overhead.py")
    print(f"machine: {platform.machine()}, Python {platform.python_version()}")
    solve(3, InstantModel())  # warm-up: first-use costs (imports, pydantic schemas) stay out
    print(f"{'parts':>6}{'ops':>7}{'model':>10}{'wall s':>9}{'ms/op':>8}{'peak MiB':>10}")
    for parts in (3, 33, 333, 1000, args.max_parts):
        for label, model in (("instant", InstantModel()), ("sim", SimulatedModel(error=0))):
            ops, wall, peak = measure(parts, model)
            print(
                f"{parts:>6}{ops:>7}{label:>10}{wall:>9.3f}{1000 * wall / ops:>8.3f}{peak:>10.1f}"
            )


if __name__ == "__main__":
    main()
