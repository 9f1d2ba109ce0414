"""Sorting: the parser on what real models return, the paper's error scope, split/join, input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from thoughtgraph.errors import InputError
from thoughtgraph.tasks import ParseError, SortingTask, get_task
from thoughtgraph.tasks.sorting import error_scope, parse_int_list

TASK = SortingTask()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1, 2, 3]", [1, 2, 3]),
        ("[]", []),
        ("[1,2,3]", [1, 2, 3]),
        ("[ 1 2 3 ]", [1, 2, 3]),
        ("```\n[0, 0, 4]\n```", [0, 0, 4]),
        ("```json\n[0, 0, 4]\n```\nHope this helps!", [0, 0, 4]),
        ("Output: [1, 1, 2]", [1, 1, 2]),
        ("Reason: the input [3, 1] is short.\nOutput: [1, 3]", [1, 3]),
        ("The sorted list is [1, 2, 5]. Every duplicate is kept.", [1, 2, 5]),
        ("[4, 5, 6]\n\nNote: I double-checked the counts.", [4, 5, 6]),
        ("Unsorted: [3, 2] ... here is the answer: [2, 3]", [2, 3]),
        ("1, 2, 2, 3", [1, 2, 2, 3]),
        ('["1", "2", "3"]', [1, 2, 3]),
        ("[-3, -1, 2]", [-3, -1, 2]),
        ("Final answer: [1, 2]\n(Explanation: I moved [2] to the end.)", [1, 2]),
        ("[1.0, 2.0]", [1, 2]),
        ("Sorted result:\n1, 2, 3", [1, 2, 3]),
        ("1 2 3", [1, 2, 3]),
        ("The sorted list:\n1. 4\n2. 7\n3. 9\n", [4, 7, 9]),
        ("- 2\n- 3\n- 3", [2, 3, 3]),
        ("Output: [1, 2, 3, 4, 5, 6", [1, 2, 3, 4, 5, 6]),  # cut off by the token limit
        ("[3, 4]\nOutput: [1, 2, 3, 4, 5, 6", [3, 4]),  # a complete list beats a cut one
        ("```python\nnumbers = [3, 1, 2]\nprint(sorted(numbers))\n```\n[1, 2, 3]", [1, 2, 3]),
        ("Output: [1, 2, 3]\n\nExample: [5, 9]", [1, 2, 3]),  # labelled beats unlabelled
        ("[1, 2]\n7\n", [1, 2]),
        ("5", [5]),
    ],
)
def test_parser_copes_with_what_models_return(text, expected):
    assert parse_int_list(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Output: [0, 1, 1, 4, 9]\n\n[2, 3, 8]", [2, 3, 8]),  # the format example echoed
        ("[2, 3, 8]\nOutput: [0, 1, 1, 4, 9]", [2, 3, 8]),
        ("Input: [8, 3, 2]\nOutput: [2, 3, 8]", [2, 3, 8]),
        ("[2, 3]\n[8, 3, 2]", [2, 3]),  # the input echoed after an attempt
        ("Output: [0, 1, 1, 4, 9]", [0, 1, 1, 4, 9]),  # an echo only when nothing else
    ],
)
def test_a_candidate_that_repeats_the_prompt_is_a_poor_choice(text, expected):
    prompt = "Sort <input>[8, 3, 2]</input>. Write " + TASK.format()
    assert TASK.parse_reply(text, [8, 3, 2], prompt) == expected


def test_a_long_number_before_other_text_is_parsed_at_once():
    """Each digit could end one number and start the next: 64 digits were 2^64 ways to try
    (a 30-digit id in an answer hung the run)."""
    assert parse_int_list("Output: [1, 2]\n" + "7" * 64 + " is the run id") == [1, 2]
    assert parse_int_list("1 22 333\n" + "9" * 64 + " x") == [1, 22, 333]


def test_a_reply_looping_on_thousands_of_lists_is_read_in_one_pass():
    """Small models loop until the token limit. Each candidate rescanned its whole line and every
    fence: 20,000 lists on one line took over a minute to read."""
    assert parse_int_list("[3, 1] " * 20_000 + "Output: [1, 3]") == [1, 3]
    fenced = "```python\nx = 1\n" + "print([2, 1])\n" * 5_000 + "```\n[1, 2]"
    assert parse_int_list(fenced) == [1, 2]


def test_an_input_already_sorted_is_the_answer_not_an_echo():
    """Repeating an already sorted input is the right answer: the steps' short lists must not
    win over it (they did: `[3]` from a CoT answer on [1, 2, 3])."""
    prompt = TASK.prompts["cot"].render({"input": "[1, 2, 3]"})
    text = "First half: [1] sorted: [1]\nSecond half: [2, 3] sorted: [2, 3]\nOutput: [1, 2, 3]"
    assert TASK.parse_reply(text, [1, 2, 3], prompt) == [1, 2, 3]
    # an unsorted input stays an echo
    prompt = TASK.prompts["cot"].render({"input": "[3, 1, 2]"})
    assert TASK.parse_reply("[1, 2, 3]\nInput was [3, 1, 2]", [3, 1, 2], prompt) == [1, 2, 3]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sorted:\n-5, -3, 1", [-5, -3, 1]),
        ("-5 -3 1", [-5, -3, 1]),
        ("> -5, -3, 1", [-5, -3, 1]),
        ("- -5, -3, 1", [-5, -3, 1]),  # a bullet, then the list
        ("* -2 -1", [-2, -1]),
    ],
)
def test_a_bare_line_keeps_the_sign_of_its_first_number(text, expected):
    assert parse_int_list(text) == expected


@pytest.mark.parametrize("text", ["", "I cannot do that.", "[a, b]", '{"x": 1}', "[a, b"])
def test_parser_raises_parse_error_when_there_is_no_list(text):
    with pytest.raises(ParseError):
        parse_int_list(text)


@pytest.mark.parametrize(
    ("expected", "output", "value", "errors"),
    [
        ([3, 1, 2], [1, 2, 3], 0, ()),
        ([3, 1, 2], [1, 3, 2], 1, ("3 before 2 at positions 2-3",)),
        ([3, 1, 2], [1, 2], 1, ("missing one 3",)),
        ([3, 1, 2], [1, 2, 3, 3], 1, ("one extra 3",)),
        # the paper's kind of example: "missing one 1 and has two extra 9s" = 3 errors
        ([0, 1, 1, 9], [0, 1, 9, 9, 9], 3, ("missing one 1", "two extra 9s")),
        ([1, 2, 3, 4], [2, 1, 4], 2, ("2 before 1 at positions 1-2", "missing one 3")),
        ([5, 4, 3, 2, 1], [5, 4, 3, 2, 1], 4, None),
        ([7, 7, 7, 7], [], 4, ("missing four 7s",)),
        ([1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 12, ("12 extra 1s",)),
    ],
)
def test_error_scope_matches_hand_worked_examples(expected, output, value, errors):
    score = error_scope(expected, output)
    assert score.value == value
    if errors is not None:
        assert score.errors == errors
    assert score.perfect == (value == 0)


def test_error_strings_name_positions_one_based():
    output = [*range(11), 9, 4, 20]
    score = error_scope(sorted(output), output)
    assert "9 before 4 at positions 12-13" in score.errors


@given(st.lists(st.integers(-5, 5), max_size=40))
def test_sorted_output_always_scores_zero_and_error_scope_counts(items):
    assert error_scope(items, sorted(items)).value == 0
    if items:
        assert error_scope(items, sorted(items)[1:]).value == 1


def test_unparseable_answer_scores_worse_than_any_parsed_answer():
    problem = [3, 1, 2]
    assert TASK.score_unparsed(problem, "no list").value > TASK.score(problem, []).value


@given(st.lists(st.integers(0, 9), min_size=1, max_size=64), st.integers(1, 64))
def test_split_then_join_gives_back_the_input(items, parts):
    parts = min(parts, len(items))
    chunks = TASK.split(items, parts)
    assert len(chunks) == parts and TASK.join(chunks) == items
    assert max(map(len, chunks)) - min(map(len, chunks)) <= 1


def test_default_parts_are_chunks_of_eight():
    assert TASK.default_parts(list(range(32))) == 4
    assert TASK.default_parts(list(range(33))) == 5
    assert TASK.default_parts([1]) == 1


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("[]", "empty"),
        ("[1, x]", "item 2 is not an integer: 'x'"),
        ("[1, 2.5]", "item 2 is not an integer: 2.5"),
        ("[true]", "item 1 is not an integer"),
        ('{"a": 1}', "not an object"),
        ("", "empty"),
        ("[1, [2]]", "item 2 is not an integer: [2]"),
        ("[1, 2", "the input list is not closed"),
    ],
)
def test_bad_input_is_one_clear_error(raw, message):
    with pytest.raises(InputError, match=message.replace("[", r"\[")):
        TASK.parse_input(raw)


def test_input_formats():
    assert TASK.parse_input("[3, 1, 2]") == [3, 1, 2]
    assert TASK.parse_input("3 1 2") == [3, 1, 2]
    assert TASK.parse_input("3,1,2\n") == [3, 1, 2]
    assert TASK.parse_input([3, 1, 2]) == [3, 1, 2]


def test_split_rejects_bad_part_counts():
    with pytest.raises(InputError, match="at least 1"):
        TASK.split([1, 2], 0)
    with pytest.raises(InputError, match="cannot exceed"):
        TASK.split([1, 2], 3)


def test_get_task_by_name_or_object():
    assert isinstance(get_task("sorting"), SortingTask)
    assert get_task(TASK) is TASK
    with pytest.raises(LookupError, match="unknown task"):
        get_task("juggling")
