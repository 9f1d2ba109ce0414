"""The real HTTP path: wall time vs the critical-path floor through the openai client.

    .venv/bin/python bench/http_path.py [--latency 0.05] [--transport lean,sdk]

The spec's `got` graph (and the paper's `got_paper`) on sorting 32/64/128 with thoughtgraph's
`openai:` model on each transport (`lean`: aiohttp + orjson, the default; `sdk`: the official
SDK's AsyncOpenAI), the best of `--repeats` runs each, against a loopback OpenAI-compatible
server in another process (bench/loopback.py) whose every answer takes `latency` seconds. The
floor is rounds x latency (model rounds on the critical path). Then sorting_128 `got` at
concurrency 16 vs 1. Prints figures, asserts nothing. Targets (issues 13, 21): wall <= 1.15 x
floor at every size; 16 vs 1 >= 5x.
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


def run(
    base_url: str,
    scheme: str,
    size: int,
    parts: int | None,
    concurrency: int,
    transport: str = "lean",
):
    problem = random.Random(size).choices(range(10), k=size)
    model = OpenAIModel("sim", base_url=base_url, max_retries=0, transport=transport)
    options = {"parts": parts} if scheme == "got" else {}
    cpu, started = time.process_time(), time.perf_counter()
    result = thoughtgraph.solve(
        "sorting", problem, model=model, scheme=scheme, concurrency=concurrency, **options
    )
    return result, time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--transport", default="lean,sdk", help="comma-separated transports")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each; the best is kept")
    parser.add_argument(
        "--big", action="store_true", help="also got on 8,192 numbers (1,024 parts at once)"
    )
    args = parser.parse_args()
    latency = args.latency
    transports = [t.strip() for t in args.transport.split(",") if t.strip()]
    print(f"command: .venv/bin/python bench/http_path.py {' '.join(sys.argv[1:])}".rstrip())
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}; loopback server "
        f"latency {latency} s; openai: model, concurrency 16; transports {', '.join(transports)}; "
        f"best of {args.repeats} runs each"
    )
    worst: dict[str, float] = {}
    with loopback_server(latency) as base_url:
        for transport in transports:  # warm-up: first imports, the pools
            run(base_url, "got", 32, 4, 16, transport)
        print(
            f"| {'size':>4} | {'scheme':<9} | {'transport':<9} | {'requests':>8} | {'rounds':>6} "
            f"| {'floor s':>7} | {'wall s':>6} | {'wall/floor':>10} | {'client CPU s':>12} |"
        )
        print("|---:|---|---|---:|---:|---:|---:|---:|---:|")
        for scheme in ("got", "got_paper"):
            for size, parts in SIZES:
                for transport in transports:
                    result, wall, cpu = min(
                        (
                            run(base_url, scheme, size, parts, 16, t)
                            for t in [transport] * args.repeats
                        ),
                        key=lambda outcome: outcome[1],
                    )
                    floor = result.depth * latency
                    worst[transport] = max(worst.get(transport, 0.0), wall / floor)
                    print(
                        f"| {size:>4} | {scheme:<9} | {transport:<9} | {result.requests:>8} "
                        f"| {result.depth:>6} | {floor:>7.3f} | {wall:>6.3f} "
                        f"| {wall / floor:>10.3f} | {cpu:>12.3f} |"
                    )
        if args.big:
            for transport in transports:
                result, wall, cpu = run(base_url, "got", 8192, 1024, 1024, transport)
                floor = result.depth * latency
                print(
                    f"| 8192 | got       | {transport:<9} | {result.requests:>8} "
                    f"| {result.depth:>6} | {floor:>7.3f} | {wall:>6.3f} "
                    f"| {wall / floor:>10.3f} | {cpu:>12.3f} |  (1 run, concurrency 1024)"
                )
        fast = run(base_url, "got", 128, 16, 16, transports[0])[1]
        slow = run(base_url, "got", 128, 16, 1, transports[0])[1]
    for transport, ratio in worst.items():
        verdict = "met" if ratio <= 1.15 else "NOT met"
        print(
            f"\n{transport}: worst wall/floor {ratio:.3f} (target <= 1.15 at every size: {verdict})"
        )
    print(
        f"\nsorting_128 got ({transports[0]}): concurrency 16 {fast:.3f} s, concurrency 1 "
        f"{slow:.3f} s: {slow / fast:.2f}x (target >= 5x)"
    )
    print(f"clients built in this process: {clients.built} (one per asyncio.run loop)")


if __name__ == "__main__":
    main()
