"""The simulated model: an offline stand-in that reads prompts as a model would and slips.

It reads the prompt (`readers.py`: which task, which job, the right answer and its length),
draws how many slips to make, and writes the answer with them. The number of slips is Poisson
with mean

    error * a * (length / unit) ** g

where `length` is the size of the output the job must get right (numbers for sorting and set
intersection, country mentions or sentences for keyword counting, clauses for document merging)
and `(a, g)` depend on the task and the kind of prompt (`LAWS`): `a` is the mean number of slips
at the task's `unit` length, `g` how fast it grows with length. A long answer therefore goes
wrong far more often than a short one, and a step-by-step (CoT), fix or merge prompt has its
own factor. The defaults are calibrated so that the paper's configurations land near its
GPT-3.5 figures on its datasets (docs/simulated-model.md, bench/calibrate.py).

Randomness is drawn per call from (seed, prompt, how many times this prompt was asked before),
so answers do not depend on the order in which concurrent calls complete. It is always labelled
as simulated; it is a test double for the engine, not evidence about any real model.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import random
from collections import Counter
from typing import Any

from thoughtgraph.errors import UnknownNameError, shown
from thoughtgraph.io.bounds import MAX_SIM_LATENCY
from thoughtgraph.models.base import Completion, _tokens
from thoughtgraph.sim import propose
from thoughtgraph.sim.jobs import Job, poisson
from thoughtgraph.sim.readers import read_prompt
from thoughtgraph.sim.sorting import Item, slip_list
from thoughtgraph.spend.usage import Usage

# task -> (unit length, {job kind -> (a: mean slips at the unit length, g: growth with length)})
# Calibrated with bench/calibrate.py against the paper's GPT-3.5 figures (sorting, keyword
# counting); set intersection and document merging have no target and are only plausible.
LAWS: dict[str, tuple[int, dict[str, tuple[float, float]]]] = {
    "sorting": (
        32,
        {
            "solve": (6.5, 3.94),
            "cot": (4.5, 3.15),
            "fix": (6.5, 3.2),
            "merge": (4.0, 2.0),
            "split": (0.1, 1.0),
            "part": (1.5, 2.0),
            "refine": (0.5, 1.5),
        },
    ),
    "set-intersection": (
        16,
        {
            "solve": (1.0, 1.5),
            "cot": (0.8, 1.5),
            "fix": (1.0, 1.5),
            "merge": (0.1, 1.0),
            "split": (0.05, 1.0),
            "part": (1.0, 1.5),
            "refine": (0.2, 1.0),
        },
    ),
    "keyword-counting": (
        32,
        {
            "solve": (17.0, 1.5),
            "cot": (17.0, 1.5),
            "fix": (14.0, 1.5),
            "merge": (0.3, 1.5),
            "split": (3.0, 1.0),
            "part": (17.0, 1.5),
            "refine": (0.5, 1.0),
        },
    ),
    "doc-merge": (
        40,
        {
            "solve": (20.0, 1.5),
            "cot": (18.0, 1.5),
            "fix": (14.0, 1.5),
            "merge": (12.0, 1.5),
            "split": (0.1, 1.0),
            "part": (3.0, 1.5),
            "refine": (0.5, 1.0),
            "score": (0.0, 1.0),
        },
    ),
}


def expected_slips(task: str, kind: str, length: int, error: float = 1.0) -> float:
    """The mean number of slips of a job (before the draw)."""
    unit, laws = LAWS[task]
    a, g = laws.get(kind, laws["solve"])
    return error * a * (length / unit) ** g if length > 0 else 0.0


class SimulatedModel:
    """`sim`, `sim:latency=0.05,error=0,seed=1`. error: slip scale (0 never wrong)."""

    simulated = True

    def __init__(self, error: float = 1.0, latency: float = 0.0, seed: int = 0) -> None:
        if error < 0 or latency < 0:
            raise UnknownNameError("sim options error and latency must be 0 or more")
        if latency > MAX_SIM_LATENCY:  # 1e12 would sleep for ever with no error
            raise UnknownNameError(
                f"sim option latency is at most {MAX_SIM_LATENCY:g} seconds, got {latency:g}"
            )
        self.error, self.latency, self.seed = error, latency, seed
        self._seen: Counter[str] = Counter()
        self.name = f"sim:latency={latency:g},error={error:g},seed={seed}"

    @classmethod
    def from_options(cls, options: dict[str, str]) -> SimulatedModel:
        known = {"error": float, "latency": float, "seed": int}
        values: dict[str, Any] = {}
        for key, text in options.items():
            if key not in known:
                raise UnknownNameError(
                    f"unknown sim option {shown(key)} (known: error, latency, seed)"
                )
            if key in values:
                raise UnknownNameError(f"sim option {shown(key)} is given twice")
            try:
                values[key] = known[key](text)
            except ValueError:
                raise UnknownNameError(f"sim option {key}={shown(text)} is not a number") from None
            if not math.isfinite(values[key]):
                raise UnknownNameError(f"sim option {key}={shown(text)} is not a finite number")
        return cls(**values)

    async def complete(self, prompt: str, n: int = 1) -> list[Completion]:
        first = self._seen[prompt]
        self._seen[prompt] += n
        if self.latency:
            await asyncio.sleep(self.latency)
        texts = [self.answer(prompt, self._rng(prompt, first + i)) for i in range(n)]
        return [Completion(t, Usage(_tokens(prompt), _tokens(t))) for t in texts]

    def _rng(self, prompt: str, occurrence: int) -> random.Random:
        digest = hashlib.sha256(f"{self.seed}\x00{occurrence}\x00{prompt}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def answer(self, prompt: str, rng: random.Random) -> str:
        if propose.is_meta_prompt(prompt):  # `tune --propose`: the sim ignores wording
            return propose.rewrite(prompt, rng)
        job = read_prompt(prompt)
        if job is None:
            return "I could not find anything to work on in this prompt."
        return job.write(self.slips(job, rng), rng, self.error)

    def slips(self, job: Job, rng: random.Random) -> int:
        """How many slips this answer makes: a Poisson draw around the job's law."""
        return poisson(expected_slips(job.task, job.kind, job.length, self.error), rng)

    def slip(self, items: list[Item], rng: random.Random) -> list[Item]:
        """A list answer of a sorting job, with this model's slips (drop, duplicate, swap)."""
        job = Job("sorting", "solve", len(items), lambda *_: "")
        return slip_list(items, self.slips(job, rng), rng)
