"""Capable models' replies are read as a careful person reads them (issue 29).

Each class of misreading below was found in gpt-3.5-turbo's and Llama-3-70B-Instruct's replies
of the Tree of Problems release (tests/fixtures/real_answers/top/ holds the labelled sample;
bench/parse_agreement.py measures it), here shortened; each case failed before its fix. Every
class is checked on the built-in tasks and on the task-file answer types alike.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thoughtgraph.tasks import ParseError, get_task
from thoughtgraph.tasks.filetask import FileTask, parse_count_map, parse_string_list
from thoughtgraph.tasks.sets import parse_set
from thoughtgraph.tasks.sorting import parse_int_list

from .task_helpers import COUNTS_FILE

SORTING = get_task("sorting")
SETS = get_task("set-intersection")
KEYWORDS = get_task("keyword-counting")

# A merge prompt as the release sent it: the second input is garbled (a child's reply cut badly).
MERGE_PROMPT = (
    "Combine the following 2 dictionaries into a single dictionary:\n"
    '{\n    "Brazil": 3,\n    "Argentina": 3\n}\n'
    'Output: {\n    "Japan": 2,\n    "China": 2\n}\n\n'
    "Let's think step by step."
)
REFUSAL = (
    "Let's combine the two dictionaries.\n\nWe are given the first dictionary:\n"
    '{\n    "Brazil": 3,\n    "Argentina": 3\n}\n\n'
    "But we are not given the second dictionary. The output is provided, but we need the "
    "second dictionary to combine them.\n\n"
    "Please provide the second dictionary, and I'll be happy to help you combine them."
)


def counts_task(tmp_path: Path) -> FileTask:
    path = tmp_path / "counts.yaml"
    path.write_text(COUNTS_FILE)
    task = get_task(str(path))
    assert isinstance(task, FileTask)
    return task


def test_a_reply_asking_for_its_input_holds_no_answer(tmp_path: Path):
    """The refusal restates its first input and asks for the second: reading the restated
    input as the answer invented one (it was scored, and could become a part's best)."""
    with pytest.raises(ParseError):
        KEYWORDS.parse_reply(REFUSAL, None, MERGE_PROMPT)
    with pytest.raises(ParseError):  # a task file's counts alike
        counts_task(tmp_path).parse_reply(REFUSAL, None, MERGE_PROMPT)
    with pytest.raises(ParseError):  # and a list of integers
        SORTING.parse_reply(
            "We are given the first list: [1, 3, 5]\nThe second list is missing: could you "
            "please provide it?",
            None,
            "Merge the following two lists into one sorted list:\n1. [1, 3, 5]\n2. Output:",
        )
    with pytest.raises(ParseError):  # and a list of strings
        parse_string_list(
            'We are given ["tea", "jam"] only. Please provide the second list.',
            'Merge ["tea", "jam"] with the second list.',
        )
    with pytest.raises(ParseError):  # the empty input restated is no empty answer either
        KEYWORDS.parse_reply(
            "The second dictionary is:\n{}\n\nPlease provide it.", None, MERGE_PROMPT
        )


def test_a_stated_answer_stands_beside_a_request(tmp_path: Path):
    """A reply that states its answer under a label and then asks or offers more has answered;
    so has one whose answer repeats nothing of the prompt."""
    stated = (
        'Combined Output: {\n    "Brazil": 3,\n    "Argentina": 3\n}\n\n'
        "This output doesn't match the one you provided. Could you please clarify?"
    )
    assert KEYWORDS.parse_reply(stated, None, MERGE_PROMPT) == {"Brazil": 3, "Argentina": 3}
    assert counts_task(tmp_path).parse_reply(stated, None, MERGE_PROMPT) == {
        "Brazil": 3,
        "Argentina": 3,
    }
    own = "[1, 2, 3]\n\nIf you have more lists, please provide them."
    assert parse_int_list(own, "Sort [3, 1, 2]: reply like [0, 1, 1, 4, 9]") == [1, 2, 3]


def test_lower_case_keys_are_kept_as_written():
    """gpt-3.5 counted the word "country": dropping `"country": 1` scored the answer better
    than it is, and a Combined Output of that key alone was no answer at all."""
    text = 'Combined Output: {\n    "Russia": 1,\n    "Cuba": 2,\n    "country": 1\n}'
    assert KEYWORDS.parse_reply(text, None, "") == {"Russia": 1, "Cuba": 2, "country": 1}
    assert KEYWORDS.parse_reply('Combined Output: {\n    "country": 1\n}', None, "") == {
        "country": 1
    }
    with pytest.raises(ParseError):  # an object of field names, unlabelled, is still data
        KEYWORDS.parse_reply('{"count": 2}', None, "")


@pytest.mark.parametrize(
    ("task", "text", "expected"),
    [
        (
            KEYWORDS,
            "Paragraphs:\nThis stirred his interest in other nations such as South Korea and "
            'North Korea.\nSublists:\n{\n    "South Korea": 1,\n    "North Korea": 1\n}\n'
            'Output: \n{\n    "South Korea": 1,\n    "North Korea": 1\n}',
            {"South Korea": 1, "North Korea": 1},
        ),
        (
            KEYWORDS,
            "Paragraphs:\nThe ties of Canada and Mexico were examples of how the world was "
            'intertwined.\nOutput: {"Canada": 1, "Mexico": 1}',
            {"Canada": 1, "Mexico": 1},
        ),
        (SORTING, "It holds small numbers, such as 1 and 2.\nOutput: [1, 2, 3]", [1, 2, 3]),
    ],
)
def test_an_example_marker_in_prose_marks_no_example(task, text, expected):
    """ "such as" / "examples" in a restated passage opened an example to the next blank line
    and discarded the real `Output:` after it; an example now ends with its sentence."""
    assert task.parse_reply(text, None, "") == expected


def test_an_example_marker_still_marks_its_own_sentence():
    with pytest.raises(ParseError):
        parse_int_list("For example, [9, 5, 7] sorted is [5, 7, 9]. That is how.")
    with pytest.raises(ParseError):
        parse_int_list("A list such as e.g. [0, 4] would give [0, 4].")
    assert parse_int_list("For example, [9, 5] gives [5, 9]. Output: [1, 2, 3]") == [1, 2, 3]


FEW_SHOT = (
    "Count the countries.\n\nInput:\nJourneying westward, she admired Italy and France.\n"
    'Sublists:\n{\n    "Italy": 1,\n    "France": 1\n}\n'
    'Output: \n{\n    "Italy": 1,\n    "France": 1\n}\n\nInput:\nAfter France, Italy was next.'
)


def test_a_labelled_answer_that_repeats_the_prompt_beats_its_own_pieces(tmp_path: Path):
    """The echo rule passed over `Output: {"France": 1, "Italy": 1}` (it equals a few-shot
    sublist) and took the step `{"Italy": 1}` before it: a fragment for a right answer."""
    text = (
        'Sublists:\n{\n    "France": 1\n}\n{\n    "Italy": 1\n}\n'
        'Output: \n{\n    "France": 1,\n    "Italy": 1\n}'
    )
    assert KEYWORDS.parse_reply(text, None, FEW_SHOT) == {"France": 1, "Italy": 1}
    assert counts_task(tmp_path).parse_reply(text, None, FEW_SHOT) == {"France": 1, "Italy": 1}
    merge = "Merge the two lists:\n1. [1, 2, 3]\n2. []\nOutput: [0, 1, 1, 4, 9] is the format"
    assert SORTING.parse_reply("Step: [1]\nStep: [1, 2]\nMerged list: [1, 2, 3]", None, merge) == [
        1,
        2,
        3,
    ]


def test_the_echo_rule_still_passes_over_a_parroted_example():
    """Where the rival is no piece of the echo, the model's own list wins as before."""
    prompt = "Sort <input>[8, 3, 2]</input>. Write " + SORTING.format()
    assert SORTING.parse_reply("[2, 3, 8]\nOutput: [0, 1, 1, 4, 9]", [8, 3, 2], prompt) == [2, 3, 8]
    assert SORTING.parse_reply("[2, 3]\n[8, 3, 2]", [8, 3, 2], prompt) == [2, 3]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[], [14, 24, 20]", [14, 20, 24]),  # Llama-3's merge of [] and [14, 24, 20]
        ("[], [42, 7, 10, 3, 33, 4, 59, 15]", [3, 4, 7, 10, 15, 33, 42, 59]),
        ("Output: [3], [1, 2]", [1, 2, 3]),
        ("[, 14, 24]", [14, 24]),  # a merge of [] and [14, 24], its comma left in
    ],
)
def test_lists_written_side_by_side_in_a_set_reply_are_its_numbers(text, expected):
    prompt = "List 1: []\nList 2: [14, 24, 20]\nMerge the lists by appending them."
    assert SETS.parse_reply(text, None, prompt) == expected


def test_side_by_side_lists_are_no_sorted_answer():
    """Sorting keeps reading two lists on a line as two candidates (a loop of three or more
    as none): only a set's merge appends."""
    assert parse_int_list("[3, 1], [1, 2, 3]") == [1, 2, 3]


def test_a_set_or_a_count_naming_none_is_empty(tmp_path: Path):
    """gpt-3.5 wrote `{"None"}` for "no country named" (and ToP's own reader took `None` as
    an empty set): unread, it was scored as no answer."""
    assert parse_set('{"None"}') == []
    assert SETS.parse_reply('Output: ["None"]', None, "") == []
    assert (
        KEYWORDS.parse_reply('Sublists:\n{\n    "None"\n}\nOutput: \n{\n    "None"\n}', None, "")
        == {}
    )
    assert counts_task(tmp_path).parse_reply('Output: {"None"}', None, "") == {}


@pytest.mark.parametrize(
    "text",
    [
        "We then build the final dictionary\n{}\n",
        "Paragraph 1:\n{} (no countries mentioned)",
        "The counts:\n```json\n{}\n```\nNothing to count here.",
    ],
)
def test_a_bare_empty_object_on_its_line_is_the_empty_count(tmp_path: Path, text: str):
    assert KEYWORDS.parse_reply(text, None, "") == {}
    assert parse_count_map(text) == {}
    assert counts_task(tmp_path).parse_reply(text, None, "") == {}


@pytest.mark.parametrize("text", ["result = {}", "Use a dict {} to count.", 'print(f"{} {x}")'])
def test_an_empty_object_in_code_or_prose_is_still_no_answer(text: str):
    with pytest.raises(ParseError):
        KEYWORDS.parse_reply(text, None, "")


@pytest.mark.parametrize(
    "text",
    [
        "[]\n\nPlease let me know if you have other sets.",
        "The intersection is empty: []. Could you clarify whether the sets may repeat?",
    ],
)
def test_an_offer_of_more_help_is_no_request_for_input(text: str):
    """Only a request for the input makes a reply's restatements no answer: an empty answer
    followed by an offer of help is still the empty answer."""
    prompt = "Set 1: [1, 2]\nSet 2: [3, 4]\nOutput the intersection, like []"
    assert SETS.parse_reply(text, None, prompt) == []
