"""A value mentioned in passing is no answer (tasks.answers.aside), and stated ones still are.

The rule is structural: a candidate that nothing states (no answer label, not on a line of its
own, not opening the reply, not after a short label opening its line, not in the reply's last
statement, no result named in its sentence before it) is one of the model's steps, asides or
illustrations. The failing replies below are shaped on SmolLM2 tune replies it read as answers.
"""

from __future__ import annotations

import pytest

from thoughtgraph.tasks import ParseError, get_task

from .part_prompts import COUNT_PART, SET_PART, sort_part

SORT_PART = sort_part([6, 4, 5, 0, 8, 3, 9, 7])

ASIDES = [
    (
        "sorting",
        SORT_PART,
        "Here's a guide:\n\n1. Check if the input list has one element, which is already in"
        " ascending order (i.e., [4,9]).\n2. If it does not, create a new list.\n3. Return it.",
    ),
    (
        "sorting",
        SORT_PART,
        "To fix this we remove the extra digits from the original list of integers [4, 9]. In"
        " Python lists, only numbers with one digit are allowed.\nHere's how:\n```python\ndef f(",
    ),
    (
        "sorting",
        SORT_PART,
        "1. Keep only the numbers 6 and 7 that are divisible by 3, which would result in lists"
        " [2, 4].\n\n2. Use a dictionary to store them.",
    ),
    (
        "set-intersection",
        SET_PART,
        "1. Use list concatenation with square brackets (`**`) like this: `[42, 51]`. But we avoid"
        " those extra lines of code.\n2. Iterate over the elements and return them",
    ),
    (
        "keyword-counting",
        COUNT_PART,
        'Produced by the app, this object will contain a key named "Peru" with two values:'
        ' {"chile": 1}. This means'
        " that each country was counted in the text, one by one.",
    ),
]


@pytest.mark.parametrize(("task", "prompt", "reply"), ASIDES)
def test_a_value_mentioned_in_passing_is_no_answer(task: str, prompt: str, reply: str):
    with pytest.raises(ParseError):
        get_task(task).parse_reply(reply, None, prompt)


STATED = [
    # a result named in its sentence, even with words after it
    (
        "The list is sorted by keeping every duplicate. The result will be [0, 3, 4] as many"
        " times as possible using a counter.\nMore text follows here.",
        [0, 3, 4],
    ),
    ("The answer to this part is [3, 4, 5]. I checked every number twice, as asked.", [3, 4, 5]),
    # a short label opening its line
    ("A: [0, 3, 4, 5]\nThis is because every number was kept.", [0, 3, 4, 5]),
    ("Steps done.\n<output>[0, 3, 4]</output> and nothing more was needed here.", [0, 3, 4]),
    # the reply's last statement, its first words, a line of its own
    ("I sorted the part by hand, and what I got is [0, 3, 8].", [0, 3, 8]),
    ("[0, 3, 4, 5] is the part sorted. It keeps every duplicate, as asked.", [0, 3, 4, 5]),
    ("I sorted it:\n[0, 3, 4, 5]\nEvery number is kept.", [0, 3, 4, 5]),
    # an answer label
    ("We sort each number in turn. Sorted list: [0, 3, 4] and so on for the rest.", [0, 3, 4]),
]


@pytest.mark.parametrize(("reply", "expected"), STATED)
def test_a_stated_value_is_still_the_answer(reply: str, expected: list[int]):
    assert get_task("sorting").parse_reply(reply, None, SORT_PART) == expected


def test_an_aside_gives_way_to_the_stated_answer():
    reply = "First drop the repeats (i.e., [4, 9]) from the list.\nOutput: [0, 3, 4, 5]"
    assert get_task("sorting").parse_reply(reply, None, SORT_PART) == [0, 3, 4, 5]
    reply = "Compare the part with the example (i.e., [4, 9]), then keep going.\n[0, 3, 4]"
    assert get_task("sorting").parse_reply(reply, None, SORT_PART) == [0, 3, 4]


def test_counts_stated_in_a_sentence_are_still_the_answer():
    reply = 'The counts for this part are {"Japan": 1, "China": 1} as I read the text. Done.'
    assert get_task("keyword-counting").parse_reply(reply, None, COUNT_PART) == {
        "Japan": 1,
        "China": 1,
    }
