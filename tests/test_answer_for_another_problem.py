"""A value is an answer only when the reply states it for the prompt's problem.

One check in the reader every task shares (`tasks.answers.own_task`, judged in `choose_in`),
taking the prompt's input as evidence: a value the reply states in its own statement of the
task ("Task: [...]", "The task is ...", "You must return ...: [...]", "The input will be
[...]", "Return [...]") that is not the prompt's input is a value of a task the reply made up;
every value of that paragraph is that task's, and the reader abstains when nothing else is
left. So too what a program is said to print when it works on the prompt's example
(`sort_list([0, 1, 1, 4, 9], numbers)`), or on no input at all (a fence opening with its
language, ```` ```python ````, is markup before the claimed output), and a count whose name is
the prompt's instruction given back ("A JSON object mapping each country to its count: 14").

The failing replies are shaped on SmolLM2 tune replies (2026-12-02g, 2026-12-03h, 2026-12-03i)
the parser read as answers; the near misses beside them still read, wrong answers included.
"""

from __future__ import annotations

import pytest

from thoughtgraph.tasks import ParseError, get_task
from thoughtgraph.tasks.filetask import parse_count_map, parse_string_list

from .part_prompts import COUNT_PART, SET_PART, SORT_PART

SORTED = [0, 0, 1, 3, 4, 7, 9, 9]


def read(task: str, reply: str, prompt: str) -> object:
    return get_task(task).parse_reply(reply, None, prompt)


@pytest.mark.parametrize(
    "reply",
    [
        "Task: [0, 1, 4, 9]\nReturn a list of integers in square brackets, such as [0, 1, 1,"
        " 4, 3, 5, 6].",
        "The task is to sort a list of 16 integers in ascending order. You must return the"
        " result only when all numbers are equal and repeated exactly once: [0,1,4,9].",
        "<response>\n1. The first part of the task is to sort a list of 16 integers in"
        " ascending order, which cannot contain duplicates: [0, 1, 4]",
        "Task: Sorting a list of integers, keeping every duplicate.\nOutputs: a list of integers"
        " in ascending order.\n\n[9, 7, 2]\nReturn [8, 4, 5].",
        "In this task, you must sort a list of integers. The input will be [0, 1, 1, 4, 9] and"
        " your output should be [3, 2, 7].",
    ],
)
def test_a_value_of_a_task_the_reply_states_itself_is_no_answer(reply: str):
    with pytest.raises(ParseError):
        read("sorting", reply, SORT_PART)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("The answer to this task is [0, 1, 4]", [0, 1, 4]),  # a result named: wrong, read
        (
            "The task is to sort the part: [7, 9, 4, 0, 1, 9, 3, 0]\n\nThe sorted list is"
            f" {SORTED}",
            SORTED,
        ),
        (
            "In this task, you must sort a list of integers by keeping every duplicate. The"
            " result will be [0, 1, 2] as many times as possible.",
            [0, 1, 2],
        ),
        (f"Task: sort the part, keeping every duplicate.\n\nOutput: {SORTED}", SORTED),
        (f"The input is [7, 9, 4, 0, 1, 9, 3, 0] and the output is {SORTED}.", SORTED),
    ],
)
def test_the_task_restated_with_the_prompts_input_or_no_data_keeps_the_answer(
    reply: str, expected: list[int]
):
    assert read("sorting", reply, SORT_PART) == expected


def test_the_last_step_returning_a_value_still_states_it():
    reply = (
        "To find the intersection of two sets:\n1. Create a new set.\n2. Add each common"
        " element.\n3. Return this list of integers (where possible), which is [9, 18]."
    )
    assert read("set-intersection", reply, SET_PART) == [9, 18]


def test_what_a_program_on_the_prompts_example_prints_is_no_answer():
    program = (
        "```python\nnumbers = [7, 9, 4, 0, 1, 9, 3, 0]\nresult = sort_list([0, 1, 1, 4, 9],"
        " numbers)\nprint(result)\n```\n\nThis will output: "
    )
    with pytest.raises(ParseError):
        read("sorting", program + "[1, 2, 3, 4, 5, 6, 7, 8, 9]", SORT_PART)
    on_input = "```python\nprint(sorted([7, 9, 4, 0, 1, 9, 3, 0]))\n```\n\nThis will output: "
    assert read("sorting", on_input + str(SORTED), SORT_PART) == SORTED


def test_a_fence_opening_with_its_language_is_markup_before_a_claimed_output():
    reply = (
        "```python\nset_1 = [x for x in Set1 if x % 2 == 0]\nprint(list(map(lambda x: x + 3,"
        " set_1)))\n```\n\nThis will output:\n\n```python\n[49, 56, 72, 82]\n```\n\nA more"
        " direct approach would be a loop."
    )
    with pytest.raises(ParseError):
        read("set-intersection", reply, SET_PART)
    assert read("set-intersection", "The intersection:\n\n```python\n[9, 18]\n```", SET_PART) == [
        9,
        18,
    ]


def test_a_count_named_by_the_prompts_instruction_is_no_count():
    reply = "A JSON object mapping each country to its count: 14\nThis is a very accurate map."
    with pytest.raises(ParseError):
        read("keyword-counting", reply, COUNT_PART)
    assert read("keyword-counting", "Japan: 1\nChina: 1", COUNT_PART) == {"Japan": 1, "China": 1}


def test_the_task_file_readers_share_the_check():
    prompt = (
        "List the people named in <input>Ada met Bo.</input>\n\nReturn a JSON object mapping"
        " each name to its count"
    )
    with pytest.raises(ParseError):
        parse_string_list('Task: ["Cy", "Di"]', prompt)
    assert parse_string_list('Answer: ["Ada", "Bo"]', prompt) == ["Ada", "Bo"]
    with pytest.raises(ParseError):
        parse_count_map("A JSON object mapping each name to its count: 3", prompt)
    assert parse_count_map("Ada: 1\nBo: 1", prompt) == {"Ada": 1, "Bo": 1}
