"""The simulated model's own CPU: reading a prompt, drawing its slips, writing its answers.

    .venv/bin/python bench/sim_answer.py [--repeats 5] [--samples 20] [--big 32768]

Two workloads, each the prompts (and each prompt's n) a real run sends, recorded once from
runs on the sim and then answered again with nothing else in the process's way:
- `got_paper 32`: `solve("sorting", ..., scheme="got_paper")` on `--samples` problems of 32
  numbers 0-9 (bench/reference.py's problems), answered as bench/reference.py does (error 0, one
  `random.Random(0)` for every answer, `SimulatedModel.answer` called once per completion);
- `got N`: the spec's `got` on `--big` numbers (bench/scale.py's run, error 0), answered as the
  engine asks: `SimulatedModel.complete` (its per-answer seed included) on a fresh model.
Each repeat answers every prompt with a fresh model (so no reading is cached from a repeat
before); the figure is the median CPU per answer (process time) over the repeats, and a digest
of all the answers (byte-identity between two versions of the sim). Compare two versions by
running the same command with `PYTHONPATH` set to each one's `src`. Prints figures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any


class Recorder:
    """A model that answers as the sim does and writes down every (prompt, n) it is asked."""

    name, simulated = "recorder", True

    def __init__(self, sim: Any) -> None:
        self.sim, self.asked = sim, []  # type: list[tuple[str, int]]

    async def complete(self, prompt: str, n: int = 1) -> list[Any]:
        self.asked.append((prompt, n))
        return list(await self.sim.complete(prompt, n))


def record(workload: str, samples: int, big: int) -> list[tuple[str, int]]:
    import thoughtgraph
    from thoughtgraph.sim.model import SimulatedModel

    asked: list[tuple[str, int]] = []
    if workload == "paper":
        for sample in range(1, samples + 1):
            numbers = random.Random(32 * 1000 + sample).choices(range(10), k=32)
            model = Recorder(SimulatedModel(error=0.0))
            thoughtgraph.solve("sorting", numbers, model=model, scheme="got_paper")
            asked += model.asked
    else:
        numbers = random.Random(0).choices(range(10), k=big)
        model = Recorder(SimulatedModel(error=0.0))
        concurrency = max(16, -(-big // 8))
        thoughtgraph.solve("sorting", numbers, model=model, concurrency=concurrency)
        asked = model.asked
    return asked


def fresh() -> None:
    """Forget the readings of prompts the sim kept from a repeat before (its own cache)."""
    from thoughtgraph.sim import readers

    clear = getattr(getattr(readers, "_read", None), "cache_clear", None)
    if clear is not None:
        clear()


def answer_paper(asked: list[tuple[str, int]]) -> tuple[float, list[str]]:
    """bench/reference.py's way: `answer` per completion, one rng for all."""
    from thoughtgraph.sim.model import SimulatedModel

    fresh()
    sim, rng = SimulatedModel(error=0.0), random.Random(0)
    started = time.process_time()
    texts = [sim.answer(prompt, rng) for prompt, n in asked for _ in range(n)]
    return time.process_time() - started, texts


def answer_complete(asked: list[tuple[str, int]]) -> tuple[float, list[str]]:
    """The engine's way: `complete(prompt, n)` on a fresh model, seeds and usage included."""
    from thoughtgraph.sim.model import SimulatedModel

    fresh()
    sim = SimulatedModel(error=0.0)

    async def run() -> list[str]:
        texts: list[str] = []
        for prompt, n in asked:
            texts += [c.text for c in await sim.complete(prompt, n)]
        return texts

    loop = asyncio.new_event_loop()
    try:
        started = time.process_time()
        texts = loop.run_until_complete(run())
        return time.process_time() - started, texts
    finally:
        loop.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--samples", type=int, default=20, help="got_paper problems of 32")
    parser.add_argument("--big", type=int, default=32768, help="numbers of the got run")
    args = parser.parse_args()
    import thoughtgraph

    source = Path(thoughtgraph.__file__).resolve().parent
    print(f"command: .venv/bin/python bench/{Path(__file__).name} {' '.join(sys.argv[1:])}")
    print(f"machine: {platform.machine()}, Python {platform.python_version()}; sim from {source}")
    print("| workload | requests | answers | prompt chars | CPU us / answer | CPU s | digest |")
    print("|---|---:|---:|---:|---:|---:|---|")
    workloads = (
        ("got_paper 32", "paper", answer_paper),
        (f"got {args.big:,}", "big", answer_complete),
    )
    for label, workload, answer in workloads:
        asked = record(workload, args.samples, args.big)
        answers = sum(n for _, n in asked)
        chars = sum(len(p) * n for p, n in asked)
        times, digest = [], ""
        for _ in range(args.repeats):
            seconds, texts = answer(asked)
            times.append(seconds)
            digest = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
        cpu = statistics.median(times)
        print(
            f"| {label} | {len(asked):,} | {answers:,} | {chars:,} | {1e6 * cpu / answers:.1f} "
            f"| {cpu:.3f} | {digest} |"
        )


if __name__ == "__main__":
    main()
