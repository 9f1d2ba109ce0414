"""Latency benchmark: wall time vs the critical-path floor and vs running one call at a time.

    .venv/bin/python bench/latency.py [--size 128] [--parts 16] [--latency 0.05]

Prints figures; asserts nothing (machines are shared and noisy). Targets (issue 2):
wall <= 1.15 x floor, and >= 5x faster than concurrency 1.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys

import thoughtgraph


def run(size: int, parts: int, latency: float, concurrency: int) -> thoughtgraph.Result:
    problem = random.Random(0).choices(range(10), k=size)
    model = f"sim:latency={latency},error=0"
    return thoughtgraph.solve("sorting", problem, model=model, parts=parts, concurrency=concurrency)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--parts", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()

    fast = run(args.size, args.parts, args.latency, concurrency=16)
    slow = run(args.size, args.parts, args.latency, concurrency=1)
    floor = fast.depth * args.latency
    print(f"command: {' '.join([sys.executable.rsplit('/', 1)[-1], *sys.argv])}")
    print(f"machine: {platform.machine()}, Python {platform.python_version()}")
    print(f"sorting {args.size} digits, {args.parts} parts, sim latency {args.latency} s, error 0")
    print(f"{'run':<16}{'calls':>7}{'depth':>7}{'wall s':>9}")
    print(f"{'concurrency 16':<16}{fast.calls:>7}{fast.depth:>7}{fast.wall_seconds:>9.3f}")
    print(f"{'concurrency 1':<16}{slow.calls:>7}{slow.depth:>7}{slow.wall_seconds:>9.3f}")
    print(f"critical-path floor (depth x latency): {floor:.3f} s")
    print(f"wall / floor: {fast.wall_seconds / floor:.3f}   (target <= 1.15)")
    print(f"speed-up vs concurrency 1: {slow.wall_seconds / fast.wall_seconds:.1f}x   (target >= 5x)")


if __name__ == "__main__":
    main()
