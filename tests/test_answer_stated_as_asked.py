"""A reply that says what the task asks for and gives the result in the same breath answers.

`answers.own_task` sets aside a value stated in the reply's own statement of the task when that
task is not the prompt's. Its openings ("Return [...]", "We need to ...", "You should ...", "In
this task, ...", "The task is to ...", "Task: ...", "The input is ...") also open the plainest
answers: a result never is the prompt's input (an intersection, counts, a wrong sort), so
"not the input" alone read "Return [9, 18]." as a made-up task's. A statement of what is asked
is another task's only when its value does not draw on the input; a statement of the task's
data ("The input is Set 1: [...] and Set 2: [...], so ...") is judged by that data.
"""

from __future__ import annotations

import pytest

from thoughtgraph.tasks import ParseError, get_task
from thoughtgraph.tasks.filetask import parse_count_map, parse_string_list
from thoughtgraph.tasks.sorting import parse_int_list

from .part_prompts import COUNT_PART, SET_PART, SORT_PART


def read(task: str, reply: str, prompt: str) -> object:
    return get_task(task).parse_reply(reply, None, prompt)


@pytest.mark.parametrize(
    "reply",
    [
        "Return [9, 18]",
        "Return [18, 9].",
        "We need to find the elements in both sets: [9, 18]",
        "You should return the common elements, [9, 18].",
        "In this task, the common elements are [9, 18].",
        "The task is to intersect Set 1 and Set 2, which gives [9, 18].",
        "Task: intersect the sets -> [9, 18]",
        "My input is Set 1: [9, 22, 57, 5, 18] and Set 2: [33, 18, 9], so the result is [9, 18].",
    ],
)
def test_an_intersection_stated_as_what_the_task_asks_for_is_the_answer(reply: str):
    assert read("set-intersection", reply, SET_PART) == [9, 18]


@pytest.mark.parametrize(
    "reply",
    [
        "We need to sort the list in ascending order: [0, 0, 1, 3, 4, 7, 9]",
        "Return [0, 0, 1, 3, 4, 7, 9]",
        "Task: sort [7, 9, 4, 0, 1, 9, 3, 0] -> [0, 0, 1, 3, 4, 7, 9]",
    ],
)
def test_a_wrong_sort_stated_as_what_the_task_asks_for_is_still_an_answer(reply: str):
    assert read("sorting", reply, SORT_PART) == [0, 0, 1, 3, 4, 7, 9]  # a 9 lost: scored


@pytest.mark.parametrize(
    "reply",
    [
        'We need to count each country: {"Japan": 1, "China": 1}',
        'Return {"Japan": 1, "China": 1}',
        'You should return: {"Japan": 1, "China": 1}',
        'In this task, the counts are {"Japan": 1, "China": 1}',
        'Task: count the countries -> {"Japan": 1, "China": 1}',
    ],
)
def test_counts_stated_as_what_the_task_asks_for_are_the_answer(reply: str):
    assert read("keyword-counting", reply, COUNT_PART) == {"Japan": 1, "China": 1}


@pytest.mark.parametrize(
    "reply",
    [
        "We need to return the common elements: [9, 18]\n\nThat is all.",
        "We need to find the elements in both sets: [9, 18]\n\nI hope this helps!",
        "You must return the numbers in both: [9, 18]. Nothing else is common.",
    ],
)
def test_a_result_stated_as_what_is_asked_is_the_answer_with_words_after_it(reply: str):
    """Words after the sentence ("That is all.") take the last statement away from it: the
    sentence saying what is asked still states the result, as "The result is" does."""
    assert read("set-intersection", reply, SET_PART) == [9, 18]


def test_the_task_file_readers_read_them_too():
    people = (
        "List every person named in the text.\n\nReply only with the answer, in the format: a"
        ' JSON list of strings, such as ["first", "second"]\n\n<input>\nAda Byron met Bo Chen'
        " at the dock.\n</input>"
    )
    assert parse_string_list('You must list them: ["Ada Byron", "Bob Chen"]', people) == [
        "Ada Byron",
        "Bob Chen",
    ]
    counts = people.replace("List every", "Count how often each").replace(
        'a JSON list of strings, such as ["first", "second"]',
        'a JSON object mapping each name to its count, such as {"first": 2, "second": 1}',
    )
    assert parse_count_map('Return {"Ada Byron": 2, "Bo Chen": 1}', counts) == {
        "Ada Byron": 2,
        "Bo Chen": 1,
    }


@pytest.mark.parametrize(
    "reply",
    [
        "The input will be [1, 2] and the output is [9, 18].",  # data of its own, then its result
        "Return [3, 11, 14].",  # the prompt's example given back
        "Task: Intersect two sets.\n\n[4, 7]\nReturn [7].",  # an input of its own, its result
        "You need to return the result: [3, 11, 14]\n\nThat is all.",  # the example, words after
        "The input is [4, 7], so this one is easy.\n\nThat is all.",  # data of its own, mid-prose
    ],
)
def test_a_task_of_the_replys_own_is_still_no_answer(reply: str):
    with pytest.raises(ParseError):
        read("set-intersection", reply, SET_PART)


def test_a_task_files_answer_need_not_draw_on_the_input():
    """A task file's answer may be words or numbers of its own (themes, squares): stated as
    what is asked, it is still the answer."""
    themes = (
        "List the themes of the text.\n\nReply only with the answer, in the format: a JSON list"
        ' of strings, such as ["first", "second"]\n\n<input>\nThe ferry left at dawn.\n</input>'
    )
    assert parse_string_list('Return ["travel", "morning"]', themes) == ["travel", "morning"]
    squares = (
        "Square each number.\n\nReply only with the answer, in the format: a JSON list of"
        " integers, such as [4, 8, 15]\n\n<input>\n[1, 2, 3]\n</input>"
    )
    assert parse_int_list("We need to square each one: [1, 4, 9]", squares) == [1, 4, 9]
    kinds = themes.replace("List the themes", "Count the words of each kind").replace(
        'a JSON list of strings, such as ["first", "second"]',
        'a JSON object mapping each name to its count, such as {"first": 2, "second": 1}',
    )
    assert parse_count_map('Return {"nouns": 2, "verbs": 1}', kinds) == {"nouns": 2, "verbs": 1}
