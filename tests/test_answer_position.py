"""An answer stands in an answer position; three places where a value stands in none.

One principle for every task's reader (`tasks.answers.aside`, judged in `choose_in`): a reply
states its answer labelled, on a line of its own, opening the reply, after a short line label,
in its last statement, or after a result named in its sentence. Wherever it stands, a value is
in no answer position when it is

- inside parentheses, an aside to the words before it: a result named in them too, unless they
  close the reply (or open it), and a parenthesis the token limit cut off;
- introduced by a line of the prompt given back ("A previous attempt at this part had these
  errors:"): the prompt's words introduce the prompt's content; the reply's own words still
  introduce its answer;
- inside a numbered step another step follows, not on a line of its own or after a line label:
  a step of the method; the last step closes the reply and may state the answer.

The failing replies are shaped on SmolLM2 tune replies (2026-12-02g, one of 2026-12-02d) the
parser read as answers; the near misses beside them still read.
"""

from __future__ import annotations

import pytest

from thoughtgraph.tasks import ParseError, get_task

from .part_prompts import COUNT_PART, SET_PART, SORT_PART

SORTED = [0, 0, 1, 3, 4, 7, 9, 9]
COUNT_RETRY = COUNT_PART.replace(
    "\n\nReturn only",
    "\n\nA previous attempt at this part had these errors. Avoid them:\n<errors>the answer's"
    " dictionary holds no country: count pairs</errors>\n\nReturn only",
)


def read(task: str, reply: str, prompt: str) -> object:
    return get_task(task).parse_reply(reply, None, prompt)


@pytest.mark.parametrize(
    "reply",
    [
        "1. I help with sorting.\n2. 4567 is only one number (the actual result would be"
        " [0, 1, 1]) so I decided not to include it.",
        "You've already solved the task.\n<rem>The answer, in a list of integers with no"
        " duplicates (i.e., [0, 1, 2, 4] would return [6, 9])}</rem>",
        "This function filters the input and returns the elements without duplicates (except"
        " for [0, 1, ",
    ],
)
def test_a_value_inside_parentheses_is_an_aside(reply: str):
    with pytest.raises(ParseError):
        read("sorting", reply, SORT_PART)


@pytest.mark.parametrize(
    "reply",
    [
        f"I sorted the part (every number kept): {SORTED}",
        f"I sorted the part, every number kept (the result is {SORTED}).",
        f"The sorted part:\n{SORTED} (eight numbers)",
    ],
)
def test_parentheses_before_or_closing_with_a_result_keep_the_answer(reply: str):
    assert read("sorting", reply, SORT_PART) == SORTED


def test_a_value_introduced_by_the_prompts_line_given_back_is_no_answer():
    reply = 'A previous attempt at this part had these errors:\n```json\n{\n  "Japan": 1}'
    with pytest.raises(ParseError):
        read("keyword-counting", reply, COUNT_RETRY)


@pytest.mark.parametrize(
    "reply",
    [
        'Here is the corrected count for this part:\n```json\n{"Japan": 1, "China": 1}\n```',
        'Counting every country named in the part:\n{"Japan": 1, "China": 1}',
    ],
)
def test_the_replys_own_line_introduces_the_answer(reply: str):
    assert read("keyword-counting", reply, COUNT_RETRY) == {"Japan": 1, "China": 1}


def test_a_value_in_a_step_another_step_follows_is_a_step():
    reply = (
        "1. Remove duplicates: the list shrinks.\n2. Sort the list of integers:\nThis fails."
        " In this case, the output will be [0,2,3,4], which returns no duplicates.\n"
        "3. Return only the result of the original list."
    )
    with pytest.raises(ParseError):
        read("sorting", reply, SORT_PART)
    with pytest.raises(ParseError):
        read("set-intersection", reply.replace("[0,2,3,4]", "[9, 18]"), SET_PART)


@pytest.mark.parametrize(
    "reply",
    [
        f"1. Add the parts.\n2. Remove duplicates.\n3. Then you get this output as {SORTED}",
        f"1. Sort the first half.\n   List: {SORTED}\n2. Repeat the process.",
        f"1. Sort the part:\n{SORTED}\n2. Check every number is kept.",
    ],
)
def test_the_last_step_a_line_label_or_a_line_of_its_own_still_state_it(reply: str):
    assert read("sorting", reply, SORT_PART) == SORTED


# The answer positions, continued (shaped on the 2026-12-03h replies, read after their one
# measurement, and the tune replies they share a form with: 2026-12-02c, d and e): a lone number
# opening the reply is one; a tag naming the output opening its line is a line label; inside
# the prompt's own `<errors>` element, in a `<pre>` program, or set against another value
# ("instead of") is none.
SET_RETRY = SET_PART.replace(
    "\n\nReturn only",
    "\n\nA previous attempt at this part had these errors. Avoid them:\n<errors>the answer"
    " states no list of integers (only code, examples for other inputs, the input restated or"
    " pieces of nested lists)</errors>\n\nReturn only",
)
SET_IO = (
    "Find the numbers in both sets of <input>.\n\nSet 1: [30, 8, 21, 16, 29, 11]\nSet 2: [9, 14,"
    " 11, 16]\nOutput: [11, 16]\n\n<input>Set 1: [9, 22, 57, 5, 18]\nSet 2: [33, 18, 9]</input>"
)


@pytest.mark.parametrize(
    ("task", "reply", "expected"),
    [
        (
            "set-intersection",
            "1\n<remarks>2. This part has the same errors as before.</remarks>",
            [1],
        ),
        ("sorting", "1\n82.543679808307 - 9 = 83", [1]),
        (
            "set-intersection",
            "10\n\nYou've already included the correct output: 42 is not in it.",
            [10],
        ),
    ],
)
def test_a_lone_number_opening_the_reply_is_its_answer(task: str, reply: str, expected: list[int]):
    assert read(task, reply, SET_RETRY if task == "set-intersection" else SORT_PART) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "1. \nA list of integers in sorted order must keep every number.",  # a step's number
        "192 \nSet 1: [3,11,14]\nSet 2: [56,0,60,7]",  # before the problem is stated
    ],
)
def test_a_steps_number_or_a_number_before_the_problem_is_no_answer(reply: str):
    with pytest.raises(ParseError):
        read("set-intersection", reply, SET_RETRY)


def test_a_tag_naming_the_output_is_a_line_label():
    reply = (
        "A previous attempt at this part had these errors:\n<errors>Japan is named 1 time but"
        ' is missing</errors>\n<json_output>{\n  "Japan": 1,\n   "China": 1\n}'
    )
    assert read("keyword-counting", reply, COUNT_RETRY) == {"Japan": 1, "China": 1}


def test_a_value_inside_the_prompts_errors_element_is_the_prompts():
    reply = (
        "To find the intersection we check each number:\n<errors>the answer states no list of"
        " integers, so you can return any result - however in the original code it returns [32]"
        " when set has 32 numbers but not all values."
    )
    with pytest.raises(ParseError):
        read("set-intersection", reply, SET_RETRY)
    near = "<errors>the answer states no list of integers</errors>\nThe intersection is [9, 18]."
    assert read("set-intersection", near, SET_RETRY) == [9, 18]


def test_the_prompts_errors_and_example_quoted_do_not_make_the_echo_another_inputs():
    reply = (
        "Here's an alternative:\n<errors>the answer states no list of integers (only code,"
        " examples for other inputs)</errors><response>The output is: [3, 11, 14]. The problem"
        ' statement was "return only the result in format a list of integers in square brackets,'
        ' such as [3, 11, 14]." You are using a nested list.'
    )
    assert read("set-intersection", reply, SET_RETRY) == [3, 11, 14]


def test_a_value_set_against_another_commits_to_neither():
    reply = (
        "1. Add the correct number of spaces.\n2. The original code returns a list with all"
        " duplicates. If you wanted only those numbers again, use: [0, 1, 4] instead of [1, 2]."
    )
    with pytest.raises(ParseError):
        read("sorting", reply, SORT_PART)
    cut = "2. To get the length, use `*`. So, the output will be: [9, 57, 20] instead of [49, 61"
    with pytest.raises(ParseError):
        read("set-intersection", cut, SET_RETRY)


def test_a_comment_in_a_pre_program_is_code():
    reply = (
        "Here is a more accurate solution:\n<rem>1. Remove duplicates</rem><pre>let numbers ="
        ' [3, 14, 56, 7]; let results = sum(numbers); println("Result: " + results);\n'
        "// The output is [2, 89, 46].}"
    )
    with pytest.raises(ParseError):
        read("set-intersection", reply, SET_RETRY)
    assert read("set-intersection", "The intersection:\n<pre>[9, 18]</pre>", SET_RETRY) == [9, 18]


def test_made_up_sets_with_an_unreadable_second_set_state_another_problem():
    reply = "Set 1: [30, 8, 21, 16, 29]\nSet 2: [45, 17, 23, 0; 62, 11, 4]; \nOutput: {8, 8, 21}"
    with pytest.raises(ParseError):
        read("set-intersection", reply, SET_IO)
    real = "Set 1: [9, 22, 57, 5, 18]\nSet 2: [33, 18, 9]\nOutput: [9, 18]"
    assert read("set-intersection", real, SET_IO) == [9, 18]
