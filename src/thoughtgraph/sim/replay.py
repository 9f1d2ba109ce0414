"""A profile's real calls replayed on the sim: how close it comes to the replies it was fitted to.

A fitted profile keeps, per job size, the real per-call figures and the shapes of its calls
(list lengths, set sizes, country counts: `RealFigures`). `replay` builds thoughtgraph's own
prompts of those shapes (the io prompt, cot for keyword counting, the paper merge), lets the
sim answer them, and scores the answers with the tasks' measures, split into the same error
kinds as the fit (scripts/fit_profiles.py). tests/test_sim_profiles.py holds the shipped
profiles to it; docs/simulated-model.md shows its table. Why in the package: a profile file of
one's own can be checked the same way, without the release it came from.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from thoughtgraph.sim.model import SimulatedModel
from thoughtgraph.sim.profiles import Profile, RealFigures
from thoughtgraph.sim.readers import read_prompt
from thoughtgraph.tasks.base import ParseError
from thoughtgraph.tasks.countries import count_countries
from thoughtgraph.tasks.keywords import KeywordCountingTask
from thoughtgraph.tasks.sets import SetIntersectionTask, SetProblem
from thoughtgraph.tasks.sorting import SortingTask

_PLACES = ["Peru", "Chile", "Kenya", "Japan", "Norway", "Egypt", "India", "Spain", "Cuba"]
_PLACES += ["Ghana", "Nepal", "Italy", "Mexico", "Brazil", "Canada", "Sweden", "Poland"]
Kinds = dict[str, int]
Scorer = Callable[[str], Kinds]  # an answer -> its error points by kind


@dataclass(frozen=True)
class Replayed:
    """The sim's figures on one job size's shapes."""

    calls: int
    p_exact: float
    mean_error: float
    points: Kinds  # error points by kind, as the release's are split


def replay(profile: str | Profile, real: RealFigures, calls: int = 400, seed: int = 11) -> Replayed:
    """`calls` simulated calls in the shapes and proportions of the real ones (seeded)."""
    model = SimulatedModel(seed=seed, profile=profile)
    errors: list[int] = []
    points: Counter[str] = Counter()
    for index, shape in enumerate(spread(dict(real.shapes), calls)):
        prompt, score = BUILDERS[real.task](real.kind, shape, random.Random(f"{seed}:{index}"))
        job = read_prompt(prompt)
        if job is None or job.kind != real.kind:
            raise ValueError(f"the sim read a {real.task} {real.kind} prompt as {job}")
        rng = random.Random(f"{seed}:{index}:answer")
        kinds = score(job.write(model.slips(job, rng), rng, model.error))
        errors.append(sum(kinds.values()))
        points.update(kinds)
    n = len(errors)
    return Replayed(n, sum(e == 0 for e in errors) / n, sum(errors) / n, dict(points))


def spread(shapes: dict[str, int], n: int) -> list[str]:
    """n shapes in the given proportions (largest remainders first), in a fixed order."""
    total = sum(shapes.values())
    share = {s: n * c / total for s, c in shapes.items()}
    counts = {s: int(v) for s, v in share.items()}
    for s in sorted(share, key=lambda s: counts[s] - share[s])[: n - sum(counts.values())]:
        counts[s] += 1
    return [s for s, c in counts.items() for _ in range(c)]


def _sorting(kind: str, shape: str, rng: random.Random) -> tuple[str, Scorer]:
    task = SortingTask()
    items = [rng.randrange(10) for _ in range(int(shape))]  # digits, as the paper's sets
    if kind == "merge":
        a, b = sorted(items[: len(items) // 2]), sorted(items[len(items) // 2 :])
        values = {"result_a": task.render(a), "result_b": task.render(b)}
        prompt = task.prompts["paper_merge"].render(values)
    else:
        prompt = task.prompts["io"].render({"input": task.render(items)})

    def score(text: str) -> Kinds:
        return sorting_kinds(items, task.parse(text))

    return prompt, score


def sorting_kinds(reference: list[int], reply: list[int]) -> Kinds:
    """A sorting reply's slips against its input, by kind; the fit (scripts/fit_profiles.py)
    counts real replies with the same function, so the replay and the fit measure alike."""
    want, have = Counter(reference), Counter(reply)
    return {
        "lost": sum(max(0, n - have[v]) for v, n in want.items()),
        "repeated": sum(max(0, n - want[v]) for v, n in have.items() if v in want),
        "stray": sum(n for v, n in have.items() if v not in want),
        "inversions": sum(x > y for x, y in pairwise(reply)),
    }


def _sets(kind: str, shape: str, rng: random.Random) -> tuple[str, Scorer]:
    task = SetIntersectionTask()
    if kind == "merge":
        items = rng.sample(range(1, 10 * int(shape) + 20), int(shape))
        a, b = items[: len(items) // 2], items[len(items) // 2 :]
        values = {"result_a": task.render(a), "result_b": task.render(b)}
        prompt, want = task.prompts["paper_merge"].render(values), set(items)
    else:
        n1, n2, common = (int(x) for x in shape.split())
        pool = rng.sample(range(1, 10 * (n1 + n2) + 20), n1 + n2 - common)
        set1, set2 = pool[:common] + pool[common:n1], pool[:common] + pool[n1:]
        rng.shuffle(set1)
        rng.shuffle(set2)
        problem = SetProblem(tuple(set1), tuple(set2))
        prompt = task.prompts["io"].render({"input": task.render(problem)})
        want = set(pool[:common])

    def score(text: str) -> Kinds:
        have = Counter(task.parse(text))
        return {
            "missing": len(want - set(have)),
            "extra": sum(1 for v in have if v not in want),
            "duplicates": sum(n - 1 for n in have.values()),
        }

    return prompt, score


def _counts(text: str) -> dict[str, int]:
    """The task's reading of a count answer; a bare `{}` (no country named) is an empty count
    (the task's parser refuses a dictionary with no pair)."""
    try:
        return KeywordCountingTask().parse(text)
    except ParseError:
        if re.search(r"\{\s*\}", text):
            return {}
        raise


def _keywords(kind: str, shape: str, rng: random.Random) -> tuple[str, Scorer]:
    task = KeywordCountingTask()
    places = rng.sample(_PLACES, len(shape.split()))
    truth = {c: int(n) for c, n in zip(places, shape.split(), strict=True)}
    if kind == "merge":
        a = {c: n for i, (c, n) in enumerate(truth.items()) if i % 2 == 0}
        b = {c: n for c, n in truth.items() if c not in a}
        values = {"result_a": task.render(a), "result_b": task.render(b)}
        prompt = task.prompts["paper_merge"].render(values)
    else:
        text = " ".join(f"We spoke of {c} once more." for c, n in truth.items() for _ in range(n))
        text = text or "Nobody travelled anywhere that year."
        assert count_countries(text) == truth
        prompt = task.prompts["cot"].render({"input": text})

    def score(answer: str) -> Kinds:
        have = _counts(answer)
        both = [c for c in truth if have.get(c, 0)]
        return {
            "missed": sum(n for c, n in truth.items() if not have.get(c, 0)),
            "extra": sum(abs(n) for c, n in have.items() if not truth.get(c, 0)),
            "miscounted": sum(abs(have[c] - truth[c]) for c in both),
        }

    return prompt, score


BUILDERS: dict[str, Callable[[str, str, random.Random], tuple[str, Scorer]]] = {
    "sorting": _sorting,
    "set-intersection": _sets,
    "keyword-counting": _keywords,
}
