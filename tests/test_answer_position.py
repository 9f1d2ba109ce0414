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
