"""Engine overhead: scheduling cost per op at zero model latency, and peak memory, by graph size.

    .venv/bin/python bench/overhead.py [--max-parts 33333]

Uses the spec's `got` graph (split, parts, pairwise merges, refine) on the simulated model with
latency 0 and error 0, so the time measured is the engine's own (plus the sim's answer, which is
a sort of 8 to N numbers). Prints figures; asserts nothing. Wall time and this process's CPU time
are both shown: on a shared machine the CPU time is the steadier figure. Targets (issue 13):
<= 0.05 ms per op, linear to 100,000 ops (`--max-parts 33333`), <= 3 KiB per op, and an instant
model on a 10,000-op graph in <= 0.5 s.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
import tracemalloc

import thoughtgraph
from thoughtgraph.sim.model import SimulatedModel


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


def measure(parts: int, model: object) -> tuple[int, float, float, float]:
    """Wall and CPU time of one run, then peak traced memory of a second run (tracing slows
    it)."""
    started, cpu = time.perf_counter(), time.process_time()
    result = solve(parts, model)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    tracemalloc.start()
    solve(parts, model)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return len(result.graph.ops), wall, cpu, peak / 2**10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-parts", type=int, default=3333)
    args = parser.parse_args()
    print(f"command: .venv/bin/python bench/overhead.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"machine: {platform.machine()}, Python {platform.python_version()}")
    solve(3, InstantModel())  # warm-up: first-use costs (imports, pydantic schemas) stay out
    print("| parts | ops | model | wall s | CPU s | ms/op (CPU) | peak MiB | KiB/op |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|")
    sizes = sorted({3, 33, 333, 1000, 3333, args.max_parts})
    for parts in sizes:
        for label, model in (("instant", InstantModel()), ("sim", SimulatedModel(error=0))):
            if label == "sim" and parts > 3333:
                continue  # the sim's sorting is not the engine: kept to the usual sizes
            ops, wall, cpu, peak = measure(parts, model)
            print(
                f"| {parts:,} | {ops:,} | {label} | {wall:.3f} | {cpu:.3f} "
                f"| {1000 * cpu / ops:.3f} | {peak / 1024:.1f} | {peak / ops:.2f} |"
            )


if __name__ == "__main__":
    main()
