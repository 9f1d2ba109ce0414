"""What a program prints is the answer when it prints the result of the prompt's input, even
if the prompt's example stands in the program too (a test of the function, a comment).

`sorting._printed_elsewhere` sets aside what a program on the prompt's example prints
(`sort_list([0, 1, 1, 4, 9], numbers)` after the input): only when the program turns to the
example after its input, not when the example comes first or sits beside the input.
"""

from __future__ import annotations

import pytest

from thoughtgraph.tasks import ParseError, get_task

from .part_prompts import SORT_PART

SORTED = [0, 0, 1, 3, 4, 7, 9, 9]


def read(reply: str) -> object:
    return get_task("sorting").parse_reply(reply, None, SORT_PART)


@pytest.mark.parametrize(
    "program",
    [
        "```python\ndef sort_list(xs):\n    return sorted(xs)\n\nassert sort_list([4, 1, 0, 9, 1])"
        " == [0, 1, 1, 4, 9]\nprint(sort_list([7, 9, 4, 0, 1, 9, 3, 0]))\n```\n\nThis will"
        " output: ",
        "```python\nprint(sorted([7, 9, 4, 0, 1, 9, 3, 0]))  # like [0, 1, 1, 4, 9]\n```\n"
        "Output:\n",
    ],
)
def test_a_program_printing_the_inputs_result_beside_the_example_answers(program: str):
    assert read(program + str(SORTED)) == SORTED


def test_a_program_turning_to_the_example_after_the_input_still_does_not():
    program = (
        "```python\nnumbers = [7, 9, 4, 0, 1, 9, 3, 0]\nresult = sort_list([0, 1, 1, 4, 9],"
        " numbers)\nprint(result)\n```\n\nThis will output: "
    )
    with pytest.raises(ParseError):
        read(program + "[1, 2, 3, 4, 5, 6, 7, 8, 9]")
