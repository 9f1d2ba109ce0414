"""What the simulated model's prompt readers share: the `Job` they return and how they read.

A `Job` knows the correct answer and how to write it with given slips (how many, and the mix
their kinds are drawn from). Why its own module: each reader (`sorting.py`, `sets.py`, ...)
imports these, and `readers.py`'s `read_prompt` imports the readers; kept in `readers.py` they
would import each other.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from thoughtgraph.records import quick_init
from thoughtgraph.sim.laws import Mix

# the innermost <tag>...</tag> (instructions may name a tag before the tagged data); runs of
# text without '<' are taken whole (atomic), not tested char by char: prompts can be long
SECTION = re.compile(r"<(\w+)>((?:(?>[^<]+)|<(?!\1>))*?)</\1>", re.DOTALL)
_NDA = re.compile(r"\bNDA")
_COUNTRY = re.compile(r"(?i)\bcountr(?:y|ies)\b")
_SORT = re.compile(r"(?i)\bsort")


@quick_init
@dataclass(frozen=True, slots=True)
class Slips:
    """The slips of one answer: how many, and the mix each one's kind is drawn from (when the
    answer makes it: the draws interleave with where each slip lands, in the writer)."""

    count: int
    mix: Mix


Writer = Callable[[Slips, random.Random, float], str]


@quick_init
@dataclass(frozen=True, slots=True)
class Job:
    """One answer to write. `write(slips, rng, error)` returns the answer text with those
    slips (`error` scales anything else that is noisy, such as a scorer's numbers)."""

    task: str
    kind: str  # solve, cot, part, merge, refine, fix, split, score
    length: int  # units of output the answer must get right
    write: Writer
    reads: int | None = None  # units of input it reads, when a law measures those (both sets)

    def measure(self, which: str) -> int:
        """The length a law reads: `output` (what it writes) or `input` (what it reads)."""
        return self.reads if which == "input" and self.reads is not None else self.length


def sections(prompt: str) -> dict[str, str]:
    """Tag -> body for every tagged section (the last one wins when a tag repeats)."""
    return {name: body for name, body in SECTION.findall(prompt)}


def is_cot(prompt: str) -> bool:
    return "step by step" in prompt


def poisson(mean: float, rng: random.Random) -> int:
    """A Poisson draw (normal approximation above a mean of 50)."""
    if mean <= 0:
        return 0
    if mean > 50:
        return max(0, round(rng.gauss(mean, math.sqrt(mean))))
    limit, k, p = math.exp(-mean), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def known_task(prompt: str) -> str | None:
    """Which built-in task a text is for, by its words; None for any other. The readers fall
    back to sorting (a bare list in a spec prompt is read as one to sort), so a task's own
    description is checked with this before a run (`api`)."""
    # cheap substring tests before the regexes: prompts can hold thousands of numbers
    if "<Doc1>" in prompt or ("NDA" in prompt and _NDA.search(prompt)):
        return "doc-merge"
    if "countr" in prompt.lower() and _COUNTRY.search(prompt):
        return "keyword-counting"
    if "Set 2" in prompt or "both sets" in prompt:
        return "set-intersection"
    if _says_sort(prompt):
        return "sorting"
    return None


def _says_sort(prompt: str) -> bool:
    """`_SORT` is in the prompt: first tried where "Sort" or "sort" first stands (its first
    words, mostly), as the case-blind scan tests every character before its first match."""
    for word in ("Sort", "sort"):
        at = prompt.find(word)
        if at >= 0 and _SORT.match(prompt, at):  # `\b` reads the character before `at`
            return True
    return _SORT.search(prompt) is not None
