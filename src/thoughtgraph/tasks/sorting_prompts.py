"""Paper-style prompts for sorting (IO, CoT, ToT fixes, the paper's GoT), in our own words.

The spec's Part/Merge/Refine prompts (`thoughtgraph.tasks.prompts`) drive the `got` scheme; these drive
the baselines and `got_paper`. Few-shot examples are computed from fixed inputs, so every example
answer is right by construction.
"""

from __future__ import annotations

from thoughtgraph.tasks.intlists import show_ints
from thoughtgraph.tasks.prompts import PromptTemplate

_EXAMPLES = [
    [5, 1, 0, 1, 2, 0, 4, 8, 1, 9, 5, 1, 3, 3, 9, 7],
    [
        3,
        7,
        0,
        2,
        8,
        1,
        2,
        2,
        2,
        4,
        7,
        8,
        5,
        5,
        3,
        9,
        4,
        3,
        5,
        6,
        6,
        4,
        4,
        5,
        2,
        0,
        9,
        3,
        3,
        9,
        2,
        1,
    ],
]


def _pairs() -> str:
    return "\n\n".join(f"Input: {show_ints(x)}\nOutput: {show_ints(sorted(x))}" for x in _EXAMPLES)


def _cot_example() -> str:
    items = _EXAMPLES[0]
    half = len(items) // 2
    left, right = sorted(items[:half]), sorted(items[half:])
    return (
        f"Input: {show_ints(items)}\n"
        f"First half: {show_ints(items[:half])} sorted: {show_ints(left)}\n"
        f"Second half: {show_ints(items[half:])} sorted: {show_ints(right)}\n"
        f"Merged, {len(items)} numbers in all: {show_ints(sorted(items))}\n"
        f"Output: {show_ints(sorted(items))}"
    )


IO = PromptTemplate(
    "Sort the list of numbers in <input> in ascending order. Keep every number as many times as "
    "it appears: the output has exactly as many numbers as the input. Reply only with the sorted "
    "list, with no other text.\n\nExamples:\n\n" + _pairs() + "\n\n<input>{{input}}</input>"
)

COT = PromptTemplate(
    "Sort the list of numbers in <input> in ascending order, keeping every duplicate. Work step "
    "by step: cut the list into two halves, sort each half, then merge the two sorted halves, "
    "checking that the count of every number is unchanged. Show your steps, then give the answer "
    'on a last line that starts with "Output: ".\n\nExample:\n\n'
    + _cot_example()
    + "\n\n<input>{{input}}</input>"
)

IMPROVE = PromptTemplate(
    "The list in <incorrectly_sorted> was meant to be the list in <input> sorted in ascending "
    "order, but it has mistakes: numbers may be missing, repeated too often, or out of order. "
    "Write the correct sorted version of the list in <input>, keeping every duplicate. Reply only "
    'with a line "Output: [...]".\n\nExample:\n\n'
    f"Input: {show_ints(_EXAMPLES[0])}\n"
    f"Incorrectly sorted: {show_ints([*sorted(_EXAMPLES[0])[:-3], 9, 8])}\n"
    f"Output: {show_ints(sorted(_EXAMPLES[0]))}\n\n"
    "<input>{{original}}</input>\n<incorrectly_sorted>{{current}}</incorrectly_sorted>"
)

SPLIT = PromptTemplate(
    "Split the list of numbers in <input> into <parts>{{parts}}</parts> lists of about {{length}} "
    "numbers each, without changing their order: the first list holds the first numbers, the "
    'second the next ones, and so on. Reply only with JSON such as {"List 1": [...], '
    '"List 2": [...]}, with no other text.\n\n<input>{{input}}</input>'
)

PAPER_MERGE = PromptTemplate(
    "Merge the two sorted lists in <a> and <b> into one sorted list that holds every number of "
    "both, each as many times as it appears in them. Go through both lists from the front and "
    "always take the smaller number next. Reply only with the merged list.\n\n"
    "<a>{{result_a}}</a>\n<b>{{result_b}}</b>"
)

PROMPTS = {"io": IO, "cot": COT, "improve": IMPROVE, "split": SPLIT, "paper_merge": PAPER_MERGE}
