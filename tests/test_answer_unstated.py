"""What a reply does not state is no answer: four structural readings, and their near misses.

- a list named is no result named: "a list of integers that ...: [0, 1, 2, 3] in this case"
  states a list, any list; a result noun ("the result is", "the sorted list is") states one;
- words the prompt holds on either side of "no country" are the prompt's (a retry's errors
  quoted back, the quotation mark breaking one side), not the model saying none is named;
- an object that is an element of a list (`json_data = [{"China": 2}, {"Italy": 3}]`) is a
  piece of a made-up structure, as an object inside an object is;
- "none" asked in a condition ("Check if both sets have no common elements") states nothing.

The failing replies are shaped on SmolLM2 tune replies the parser read as answers.
"""

from __future__ import annotations

import pytest

from thoughtgraph.tasks import ParseError, get_task

from .part_prompts import SET_PART, SORT_PART

COUNT_RETRY = (
    "Solve this part of a larger task.\n<part>Japan traded with China.</part>\n\nA previous"
    " attempt at this part had these errors. Avoid them:\n<errors>the answer's dictionary holds"
    " no country: count pairs</errors>\n\nReturn only the result for this part, in the format: a"
    ' JSON object mapping each country to its count, such as {"Peru": 2, "Chile": 1}'
)


def read(task: str, reply: str, prompt: str) -> object:
    return get_task(task).parse_reply(reply, None, prompt)


@pytest.mark.parametrize(
    "reply",
    [
        "1. To implement the task, you need a list of integers that contain every other number"
        " exactly twice: [0, 1, 2, 3] in this case.\n2. Use a list comprehension for it.\n3.",
        "2. Now, use filter to return only those lists with duplicate numbers present: [1, 7] in"
        " this case.\n\nYou can optimize this code further with a comprehension.",
    ],
)
def test_a_list_named_is_no_result_named(reply: str):
    with pytest.raises(ParseError):
        read("sorting", reply, SORT_PART)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("The sorted list is [0, 0, 1, 3] as asked. More text follows here.", [0, 0, 1, 3]),
        ("So the final list is [0, 1, 3, 4] for this part. It keeps duplicates.", [0, 1, 3, 4]),
        ("The result for this part is [0, 1, 4, 9] here. Every number is kept.", [0, 1, 4, 9]),
    ],
)
def test_a_result_named_with_a_list_still_states_it(reply: str, expected: list[int]):
    assert read("sorting", reply, SORT_PART) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "A previous attempt at this part had these errors:\n- \"The answer's dictionary holds no"
        ' country" instead of the expected "a JSON object"',
        '<rem>Instead of "The answer\'s dictionary holds no country: count pairs" it should say'
        " something else.\n</rem>",
    ],
)
def test_a_retry_error_quoted_back_says_no_country_is_not_the_model_saying_it(reply: str):
    with pytest.raises(ParseError):
        read("keyword-counting", reply, COUNT_RETRY)


def test_no_country_in_the_models_own_words_is_still_the_empty_count():
    assert read("keyword-counting", "The text names no country at all.", COUNT_RETRY) == {}


def test_an_object_in_a_list_is_a_piece_of_a_structure():
    reply = (
        'import json\njson_data = [\n    {"China": 2, "India": 1},\n    {\'Italy\': 3}\n]\n'
        "response = json.dumps(json_data)"
    )
    with pytest.raises(ParseError):
        read("keyword-counting", reply, COUNT_RETRY)


def test_an_object_after_a_closed_list_is_still_the_answer():
    reply = 'The part is [1] of three parts.\n{"Japan": 1, "China": 1}'
    assert read("keyword-counting", reply, COUNT_RETRY) == {"Japan": 1, "China": 1}
    reply = '[Japan, China] are named once each.\n\n{"Japan": 1, "China": 1}'
    assert read("keyword-counting", reply, COUNT_RETRY) == {"Japan": 1, "China": 1}


def test_none_asked_in_a_condition_states_nothing():
    reply = (
        "Here is a method:\n\n1. Find the union of both sets.\n2. Check if both sets have no"
        " common elements: use the `set.issuperset()` method on the union."
    )
    with pytest.raises(ParseError):
        read("set-intersection", reply, SET_PART)
    reply = "First check whether the text names no country, then count the rest one by one."
    with pytest.raises(ParseError):
        read("keyword-counting", reply, COUNT_RETRY)


def test_none_stated_is_still_the_empty_answer():
    assert read("set-intersection", "The two sets have no common elements.", SET_PART) == []
    reply = "I checked every set. There are no common numbers, so the answer is empty."
    assert read("set-intersection", reply, SET_PART) == []
    assert read("keyword-counting", "This part names no country.", COUNT_RETRY) == {}
