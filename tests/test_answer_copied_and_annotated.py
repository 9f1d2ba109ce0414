"""Two ways a small model writes a real answer that a careful reader still reads.

- The prompt's sets restated only as far as the model got (`Set 1: [48, 50, 19, ..., 38, 4]`,
  cut short, its last number cut with it), then `Output: [...]`: the real problem restated, so
  the output answers it. A made-up `Set 1:` beside such a copy still states another problem.
- A list whose items carry notes in words (`[49 (from Set 1), 67 (from Set 2)]`): its numbers.
"""

from __future__ import annotations

import pytest

from thoughtgraph.tasks import ParseError, get_task

SET1 = [48, 50, 19, 59, 57, 63, 49, 61, 14, 11, 29, 39, 43, 17]
SET2 = [50, 12, 30, 23, 11, 61, 17, 58, 19, 55, 62, 43]
PROMPT = (
    "Find the intersection of two sets of integers: list every number that is in both sets."
    " Reply only with the list.\n\n"
    f"<input>Set 1: {SET1}\nSet 2: {SET2}</input>"
)


def read(reply: str) -> object:
    return get_task("set-intersection").parse_reply(reply, None, PROMPT)


def test_the_sets_copied_as_far_as_the_model_got_then_its_output_answer():
    reply = f"Set 1: {[*SET1[:8], 4]}\nSet 2: {SET2[:9]}\nOutput: [50, 12"  # 4: 43 cut with it
    assert read(reply) == [12, 50]
    assert read(reply + ", 11]") == [11, 12, 50]


def test_a_made_up_set_beside_a_copy_of_the_real_one_is_still_another_problem():
    reply = f"Set 1: [5, 0]\nSet 2: {SET2[:9]}\nOutput: [14, 11, 4, 5]"
    with pytest.raises(ParseError):
        read(reply)


def test_a_copy_too_short_to_tell_is_not_taken_for_the_real_input():
    reply = f"Set 1: {[*SET1[:3], 7]}\nSet 2: [1, 2, 3]\nOutput: [1, 2]"  # 3 numbers copied
    with pytest.raises(ParseError):
        read(reply)


@pytest.mark.parametrize(
    ("reply", "numbers"),
    [
        ("The resulting list will be:\n[49 (from Set 1), 67 (from Set 2)]", [49, 67]),
        ("Output: [11 (in both), 17 (in both), 50]", [11, 17, 50]),
    ],
)
def test_a_list_of_numbers_with_notes_in_words_is_its_numbers(reply: str, numbers: list[int]):
    assert read(reply) == numbers


def test_a_number_in_parentheses_is_no_note():
    sort_prompt = "Sort the list in <input>.\n\n<input>[7, 6, 1, 7, 1, 4, 3, 9]</input>"
    task = get_task("sorting")
    assert task.parse_reply("[1, 1, 3, 4, 6, 7, 9]", None, sort_prompt) == [1, 1, 3, 4, 6, 7, 9]
    with pytest.raises(ParseError):
        task.parse_reply("Return the counts: [2 (6), 9].", None, sort_prompt)
