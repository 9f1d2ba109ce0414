"""Four forms a small model writes that a careful reader reads one way (the 2026-12-06b batch,
read after its measurement):

- a count of 0 is kept as written (`"Saudi Arabia": 0`), in the built-in count task and a task
  file's counts alike; the score and the reference check read it as naming nothing, so a right
  answer with a zero in it is still right;
- a list after "in the format" shows the format ("return it in the format [0, 1, 2]");
- what prose after a program says it "then prints out" is the program's output;
- a value the reply claims as its result right after it ("`[0, 1, 2]`, which is the result we
  are expected to get") is its own statement, even under a program; "which is the result of
  multiplying ..." claims nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thoughtgraph.tasks import ParseError, get_task
from thoughtgraph.tasks.filetask import FileTask

from .task_helpers import COUNTS_FILE

KEYWORDS = get_task("keyword-counting")
SORT_PROMPT = (
    "<task>Sort a list of 16 integers in ascending order.</task>\n<part>[9, 0, 6, 6]</part>\n\n"
    "Return only the result for this part, in the format: a list of integers in square "
    "brackets, ascending, such as [0, 1, 1, 4, 9]"
)
ZEROS = '<output>\n{\n    "Egypt": 2,\n    "Saudi Arabia": 0\n}</output>'


def sort(reply: str) -> object:
    return get_task("sorting").parse_reply(reply, None, SORT_PROMPT)


def test_a_count_of_zero_is_kept_as_written_and_names_nothing():
    assert KEYWORDS.parse_reply(ZEROS, None, "") == {"Egypt": 2, "Saudi Arabia": 0}
    problem = KEYWORDS.parse_input("Lena flew from Egypt to Cairo. Egypt was hot.")
    read = KEYWORDS.parse_reply(ZEROS, None, "")
    assert KEYWORDS.score(problem, read).value == 0
    assert KEYWORDS.matches_reference(problem, read, KEYWORDS.reference(problem))


def test_a_task_files_counts_keep_a_zero_and_score_it_as_nothing(tmp_path: Path):
    path = tmp_path / "counts.yaml"
    path.write_text(COUNTS_FILE)
    task = get_task(str(path))
    assert isinstance(task, FileTask)
    assert task.parse_reply(ZEROS, None, "") == {"Egypt": 2, "Saudi Arabia": 0}
    assert task.reference_errors({"Egypt": 2}, {"Egypt": 2, "Saudi Arabia": 0}).value == 0


def test_a_list_after_in_the_format_shows_the_format():
    reply = (
        "No, I will not stop at nothing.\nI'll use the code to get a list of numbers that "
        "contain every duplicate and return it in the format [0, 1, 2]."
    )
    with pytest.raises(ParseError):
        sort(reply)


PROGRAM = (
    "```python\ndef find_unique(input):\n    return sorted(input)\n\n"
    "print(find_unique([-2]))\n```\n"
)


def test_what_prose_says_a_program_then_prints_out_is_its_output():
    reply = (
        PROGRAM + "\nThe list contains duplicates so it filters them out and then prints out "
        "all the lists sorted, which is [1, 2, 3] since the first is prime."
    )
    with pytest.raises(ParseError):
        sort(reply)


def test_a_value_claimed_as_the_result_under_a_program_is_the_answer():
    reply = PROGRAM + "Output:\n`[0, 6, 6, 9]`, which is the result we are expected to get."
    assert sort(reply) == [0, 6, 6, 9]


def test_the_result_of_a_computation_claims_nothing():
    reply = PROGRAM + "This will print: `[0, 2, 6]`, which is the result of finding all numbers."
    with pytest.raises(ParseError):
        sort(reply)
