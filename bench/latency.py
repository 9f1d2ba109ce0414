"""Latency benchmark: wall time vs the critical-path floor and vs one call at a time.

    .venv/bin/python bench/latency.py [--latency 0.05] [--quick]

For each configuration the spec's `got` graph runs on the simulated model with the given latency
and error 0; the floor is depth x latency (model rounds on the critical path). Prints figures;
asserts nothing (machines are shared and noisy). Targets (issues 2 and 6): wall <= 1.15 x floor,
and >= 5x faster than concurrency 1 for 128 digits in 16 parts.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys

import thoughtgraph

CONFIGS = [(32, 4), (64, 8), (128, 16), (8192, 1024)]


def run(size: int, parts: int, latency: float, concurrency: int) -> thoughtgraph.Result:
    problem = random.Random(0).choices(range(10), k=size)
    model = f"sim:latency={latency},error=0"
    return thoughtgraph.solve("sorting", problem, model=model, parts=parts, concurrency=concurrency)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--quick", action="store_true", help="skip the 8192-digit graph")
    args = parser.parse_args()
    print(f"command: .venv/bin/python bench/latency.py {' '.join(sys.argv[1:])}".rstrip())
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}; "
        f"sim latency {args.latency} s, error 0"
    )
    print(
        f"{'digits':>7}{'parts':>7}{'conc.':>7}{'calls':>7}{'depth':>7}{'floor s':>9}"
        f"{'wall s':>9}{'wall/floor':>11}"
    )
    for size, parts in CONFIGS[:3] if args.quick else CONFIGS:
        concurrency = max(16, parts)
        result = run(size, parts, args.latency, concurrency)
        floor = result.depth * args.latency
        print(
            f"{size:>7}{parts:>7}{concurrency:>7}{result.calls:>7}{result.depth:>7}"
            f"{floor:>9.3f}{result.wall_seconds:>9.3f}{result.wall_seconds / floor:>11.3f}"
        )
    fast = run(128, 16, args.latency, 16)
    slow = run(128, 16, args.latency, 1)
    print(
        f"128 digits, 16 parts: concurrency 16 {fast.wall_seconds:.3f} s, concurrency 1 "
        f"{slow.wall_seconds:.3f} s: {slow.wall_seconds / fast.wall_seconds:.1f}x faster "
        "(target >= 5x); target wall/floor <= 1.15"
    )


if __name__ == "__main__":
    main()
