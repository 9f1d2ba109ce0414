"""The real HTTP path: wall time vs the critical-path floor through the openai client.

    .venv/bin/python bench/http_path.py [--latency 0.05]

The spec's `got` graph (and the paper's `got_paper`) on sorting 32/64/128 with thoughtgraph's
`openai:` model (the official SDK's AsyncOpenAI) against a loopback OpenAI-compatible server in
another process (bench/loopback.py) whose every answer takes `latency` seconds. The floor is
rounds x latency (model rounds on the critical path). Then sorting_128 `got` at concurrency 16
vs 1. Prints figures, asserts nothing. Targets (issue 13): wall <= 1.15 x floor; 16 vs 1 >= 5x.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time

from loopback import loopback_server  # bench/ is on sys.path when this file is run

import thoughtgraph
from thoughtgraph.models import clients
from thoughtgraph.models.openai import OpenAIModel

SIZES = [(32, 4), (64, 8), (128, 16)]


def run(base_url: str, scheme: str, size: int, parts: int | None, concurrency: int):
    problem = random.Random(size).choices(range(10), k=size)
    model = OpenAIModel("sim", base_url=base_url, max_retries=0)
    options = {"parts": parts} if scheme == "got" else {}
    cpu, started = time.process_time(), time.perf_counter()
    result = thoughtgraph.solve(
        "sorting", problem, model=model, scheme=scheme, concurrency=concurrency, **options
    )
    return result, time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    latency = args.latency
    print(f"command: .venv/bin/python bench/http_path.py {' '.join(sys.argv[1:])}".rstrip())
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}; loopback server "
        f"latency {latency} s; openai client, concurrency 16"
    )
    with loopback_server(latency) as base_url:
        run(base_url, "got", 32, 4, 16)  # warm-up: first imports and the shared SSL context
        print(
            f"| {'size':>4} | {'scheme':<9} | {'requests':>8} | {'rounds':>6} | {'floor s':>7} "
            f"| {'wall s':>6} | {'wall/floor':>10} | {'client CPU s':>12} |"
        )
        print("|---:|---|---:|---:|---:|---:|---:|---:|")
        for scheme in ("got", "got_paper"):
            for size, parts in SIZES:
                result, wall, cpu = run(base_url, scheme, size, parts, 16)
                floor = result.depth * latency
                print(
                    f"| {size:>4} | {scheme:<9} | {result.calls:>8} | {result.depth:>6} "
                    f"| {floor:>7.3f} | {wall:>6.3f} | {wall / floor:>10.3f} | {cpu:>12.3f} |"
                )
        fast = run(base_url, "got", 128, 16, 16)[1]
        slow = run(base_url, "got", 128, 16, 1)[1]
    print(
        f"\nsorting_128 got: concurrency 16 {fast:.3f} s, concurrency 1 {slow:.3f} s: "
        f"{slow / fast:.2f}x (target >= 5x)"
    )
    print(f"SDK clients built in this process: {clients.built} (one per asyncio.run loop)")


if __name__ == "__main__":
    main()
