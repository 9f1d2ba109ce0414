"""Paper-style prompts for set intersection (IO, CoT, ToT fix, the paper's GoT), in our own words.

The few-shot examples are drawn from a fixed seed and their answers computed in code, so every
example is right by construction. Inputs appear as `Set 1: [...]` / `Set 2: [...]` lines.
"""

from __future__ import annotations

import random

from thoughtgraph.tasks.intlists import show_ints
from thoughtgraph.tasks.prompts import PromptTemplate


def _example(seed: int, size: int) -> tuple[list[int], list[int]]:
    rng = random.Random(seed)
    first = rng.sample(range(2 * size), size)
    second = rng.sample(range(2 * size), size)
    return first, second


_EXAMPLES = [_example(11, 12), _example(12, 16)]


def _common(first: list[int], second: list[int]) -> list[int]:
    return [x for x in second if x in set(first)]


def _pairs() -> str:
    return "\n\n".join(
        f"Set 1: {show_ints(a)}\nSet 2: {show_ints(b)}\nOutput: {show_ints(_common(a, b))}"
        for a, b in _EXAMPLES
    )


def _cot_example() -> str:
    first, second = _EXAMPLES[1]
    half = len(second) // 2
    left, right = second[:half], second[half:]
    return (
        f"Set 1: {show_ints(first)}\nSet 2: {show_ints(second)}\n"
        f"First half of Set 2: {show_ints(left)} in both sets: {show_ints(_common(first, left))}\n"
        f"Second half of Set 2: {show_ints(right)} in both sets: {show_ints(_common(first, right))}\n"
        f"Output: {show_ints(_common(first, second))}"
    )


IO = PromptTemplate(
    "Find the intersection of the two sets of numbers in <input>: every number that is in both "
    "sets. Write each common number once, in any order. Reply only with the list of common "
    "numbers, with no other text.\n\nExamples:\n\n" + _pairs() + "\n\n<input>{{input}}</input>"
)

COT = PromptTemplate(
    "Find the intersection of the two sets of numbers in <input>: every number that is in both "
    "sets, each once. Work step by step: cut Set 2 into two halves, find which numbers of each "
    "half are also in Set 1, then join the two lists. Show your steps, then give the answer on a "
    'last line that starts with "Output: ".\n\nExample:\n\n'
    + _cot_example()
    + "\n\n<input>{{input}}</input>"
)


def _wrong() -> list[int]:
    """The first example's intersection with one number lost, one stray and one repeated."""
    first, second = _EXAMPLES[0]
    right = _common(first, second)
    stray = next(x for x in second if x not in first)
    return right[:2] + right[3:] + [stray, right[0]]


_WRONG = _wrong()

IMPROVE = PromptTemplate(
    "The list in <incorrect> was meant to hold exactly the numbers that are in both sets in "
    "<input>, but it has mistakes: it may miss common numbers, hold numbers that are in only one "
    "set, or list a number twice. Check every number of Set 2 against Set 1 and write the correct "
    'intersection, each number once. Reply only with a line "Output: [...]".\n\nExample:\n\n'
    f"Set 1: {show_ints(_EXAMPLES[0][0])}\nSet 2: {show_ints(_EXAMPLES[0][1])}\n"
    f"Incorrect: {show_ints(_WRONG)}\nOutput: {show_ints(_common(*_EXAMPLES[0]))}\n\n"
    "<input>{{original}}</input>\n<incorrect>{{current}}</incorrect>"
)

SPLIT = PromptTemplate(
    "Split Set 2 of <input> into <parts>{{parts}}</parts> lists of about {{length}} numbers "
    "each, without changing their order: the first list holds the first numbers of Set 2, the "
    'second the next ones, and so on. Leave Set 1 alone. Reply only with JSON such as {"List 1": '
    '[...], "List 2": [...]}, with no other text.\n\n<input>{{input}}</input>'
)

PAPER_MERGE = PromptTemplate(
    "The lists in <a> and <b> hold the numbers in both sets for two different parts of Set 2. "
    "Join them into one list by writing the numbers of <b> after those of <a>. Reply only with "
    "the joined list.\n\n<a>{{result_a}}</a>\n<b>{{result_b}}</b>"
)

PROMPTS = {"io": IO, "cot": COT, "improve": IMPROVE, "split": SPLIT, "paper_merge": PAPER_MERGE}
