"""The prompts and settings that pin the simulated model's answers (tests/test_sim_answers.py).

Why a fixture of prompts and not prompts built at test time: the answers are pinned to the byte,
and a prompt built by today's task code would change whenever a task's wording does, which is
no change of the sim. `prompts.json.gz` holds prompts real runs sent (every built-in task, every
scheme, error 1 and 3: `record_prompts`) and hand-made ones for what runs rarely send (lists not
written as prompts write them, numbers out of the usual range, long lists, the `direct` and
`tune --propose` prompts, one no task reads). Remake it (only when adding prompts, and then
re-record the digests on the code before a change) with

    PYTHONPATH=src .venv/bin/python -m tests.sim_answers
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path

from thoughtgraph.sim.model import SimulatedModel

FIXTURE = Path(__file__).parent / "fixtures" / "sim_answers" / "prompts.json.gz"
PER_KIND = 4  # prompts kept of each (task, job kind) a run sent
# (profile, error, kind scales): the default profile's power laws at several scales (0: no
# slip; 6: many, so every kind of slip is drawn), both fitted tables, a kind's own scale
SETTINGS: tuple[tuple[str, float, dict[str, float]], ...] = (
    ("gpt-3.5-paper", 0.0, {}),
    ("gpt-3.5-paper", 1.0, {}),
    ("gpt-3.5-paper", 6.0, {}),
    ("gpt-3.5-paper", 1.0, {"part": 6.0, "merge": 0.0}),
    ("llama-3-70b", 1.0, {}),
    ("gpt-3.5-turbo", 3.0, {}),
)
SEEDS = (0, 3)


def load_prompts() -> dict[str, list[str]]:
    """Group ("task/kind") -> prompts."""
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as file:
        loaded: dict[str, list[str]] = json.load(file)
    return loaded


def answers(
    prompts: list[str], profile: str, error: float, scales: dict[str, float], seed: int
) -> Iterator[str]:
    """Every answer the sim gives to these prompts in this setting, in a fixed order: each prompt
    asked for 3 answers and then 2 more (occurrences 0-4, through `complete`), then answered
    3 times more through `answer` with one shared generator (bench/reference.py's way)."""
    model = SimulatedModel(error=error, seed=seed, profile=profile, kind_error=scales)

    async def ask() -> list[str]:
        texts: list[str] = []
        for prompt in prompts:
            for n in (3, 2):
                texts += [c.text for c in await model.complete(prompt, n)]
        return texts

    yield from asyncio.run(ask())
    shared = random.Random(seed)
    for prompt in prompts:
        for _ in range(3):
            yield model.answer(prompt, shared)


def digests() -> dict[str, str]:
    """Group -> sha256 of all its answers in every setting and seed."""
    found: dict[str, str] = {}
    for group, prompts in load_prompts().items():
        digest = hashlib.sha256()
        for profile, error, scales in SETTINGS:
            for seed in SEEDS:
                for text in answers(prompts, profile, error, scales, seed):
                    digest.update(text.encode() + b"\x00")
        found[group] = digest.hexdigest()
    return found


def record_prompts() -> dict[str, list[str]]:
    """The prompts runs on the sim send, PER_KIND of each (task, job kind), smallest first."""
    import thoughtgraph
    from thoughtgraph.evaluation.datasets import load_sample
    from thoughtgraph.schemes import SCHEMES
    from thoughtgraph.sim.readers import read_prompt

    class Recorder:
        name, simulated = "recorder", True

        def __init__(self, sim: SimulatedModel) -> None:
            self.sim, self.asked = sim, []  # type: SimulatedModel, list[str]

        async def complete(self, prompt: str, n: int = 1) -> list[thoughtgraph.Completion]:
            self.asked.append(prompt)
            return await self.sim.complete(prompt, n)

    datasets = {
        "sorting": "sorting_032",
        "set-intersection": "set_intersection_032",
        "keyword-counting": "countries",
        "doc-merge": "documents",
    }
    found: dict[str, dict[str, None]] = {}
    for task, dataset in datasets.items():
        for scheme in SCHEMES:
            for sample, error in ((1, 1.0), (2, 3.0)):
                model = Recorder(SimulatedModel(error=error, seed=sample))
                problem = load_sample(dataset, sample).input
                thoughtgraph.solve(task, problem, model=model, scheme=scheme)
                for prompt in model.asked:
                    job = read_prompt(prompt)
                    group = f"{task}/{job.kind if job else 'none'}"
                    found.setdefault(group, {})[prompt] = None
    kept = {}
    for group, prompts in sorted(found.items()):
        ordered = sorted(prompts, key=lambda p: (len(p), p))
        step = max(1, len(ordered) // PER_KIND)
        kept[group] = ordered[::step][:PER_KIND]
    return kept


def made_prompts() -> dict[str, list[str]]:
    """Prompts runs rarely send, made by hand (the sim's readers must read them as before)."""
    from thoughtgraph.tasks.prompts import render

    def part(text: str) -> str:
        return render("part", task="Sort the numbers.", part=text, previous_errors="", format="F")

    draw = random.Random(30)
    wide = [draw.randint(-400, 5000) for _ in range(120)]
    long_a = sorted(draw.choices(range(10), k=150))
    long_b = sorted(draw.choices(range(10), k=200))
    return {
        "sorting/lists": [
            part("[3,1, 2,-4]"),  # not as prompts write lists
            part(" [5, 1, 4] "),
            part("[01, 2, 007, -0]"),  # leading zeros
            part("[1, 2, 3"),  # not closed
            part("[1.5, 2, 3]"),
            part("[[4, 2], 3]"),
            part("[1, 2]\n[9, 8]"),
            part("[\u0663, 2, 1]"),  # a digit int() reads that JSON does not
            part("[1,\n 3,\t2]"),
            part("[1--2, 3-4]"),
            part("[true, 2, null]"),
            part("[]"),
            part(str(wide)),  # numbers beyond the usual range, negative ones
        ],
        "sorting/long": [
            part(str(draw.choices(range(10), k=400))),
            render(
                "merge",
                task="Sort the numbers.",
                result_a=str(long_a),
                result_b=str(long_b),
                format="F",
            ),
        ],
        "sorting/direct": [
            "Sort these numbers: [5, -3, 2, 2, 10] and then [4, 1]",
            "Please sort them.",
        ],
        "set-intersection/made": [
            render(
                "refine",
                task="Intersect both sets.",
                result="[1, 2, 2, 9]",
                errors="missing 5 (it is in both sets); 9 is not in Set 1: remove it; "
                "2 is listed 2 times: list it once",
                format="F",
            ),
        ],
        "other": [
            "What is the capital of France?",
            "<current_template>\nSort <part>{{part}}</part>\n</current_template>\n"
            "Reply with one better version inside <template></template>.",
        ],
    }


def main() -> None:
    prompts = {**record_prompts(), **made_prompts()}
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(FIXTURE, "wt", encoding="utf-8", compresslevel=9) as file:
        json.dump(prompts, file, ensure_ascii=False, indent=0, sort_keys=True)
    print(json.dumps(digests(), indent=4, sort_keys=True))


if __name__ == "__main__":
    main()
