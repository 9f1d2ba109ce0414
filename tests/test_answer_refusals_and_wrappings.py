"""Six forms a small model writes that a careful reader reads one way (the 2026-12-03l batch,
read after its measurement):

- a reply asking for its input ("Please go ahead and provide the list") has solved nothing: a
  value it does not state as its result is no answer (`[32]` in its rambling);
- what prose says a program returns ("The output returned by the function is: [3, 11, 14]")
  is the program's output, as "The output of this code is" is;
- a value written inside its type, stated as the result ("so the output is `List([10, 26])`"),
  is that value: neither code passed to a call nor an aside in parentheses;
- a count object in doubled braces (`{{"USA": 2}}`, a format string's escaping) is the object;
- a fenced block in a programming or markup language (```html) holds no contract;
- with no <Merged> block, the document after "Here's the NDA:" is the merge, not the
  instruction restated before it (a presenting line with nothing after it presents nothing).
"""

from __future__ import annotations

import pytest

from thoughtgraph.tasks import ParseError, get_task

SORT_PROMPT = (
    "<task>Sort a list of 32 integers in ascending order.</task>\n<part>[0, 0, 7, 3, 4, 7]</part>\n"
    "Return only the result for this part, in the format: a list of integers in square "
    "brackets, ascending, such as [0, 1, 1, 4, 9]"
)
SET_PROMPT = (
    "<task>Find the intersection of two sets of integers.</task>\n"
    "<part>Set 1: [34, 2, 12, 10, 26, 41, 1]\nSet 2: [18, 41, 49, 1, 3]</part>\n"
    "Return only the result for this part, in the format: a list of integers in square "
    "brackets, such as [3, 11, 14]"
)
COUNT_PROMPT = (
    "<part>Anna from the United States studied the United States and Canada.</part>\n"
    "Return only the result, in the format: a JSON object mapping each country to its count, "
    'such as {"Peru": 2, "Chile": 1}'
)
MERGE_PROMPT = (
    "Merge the NDA documents in <documents> into a single NDA that keeps every piece of "
    "information and states each piece only once.\n<documents>\n<Doc1>\nThe parties agree to "
    "keep shared information confidential for three years.\n</Doc1>\n</documents>"
)


def sort(reply: str) -> object:
    return get_task("sorting").parse_reply(reply, None, SORT_PROMPT)


def intersect(reply: str) -> object:
    return get_task("set-intersection").parse_reply(reply, None, SET_PROMPT)


def merge(reply: str) -> object:
    return get_task("doc-merge").parse_reply(reply, None, MERGE_PROMPT)


def test_a_reply_asking_for_its_input_gives_no_answer_in_passing():
    reply = (
        "What a beautiful task. Please go ahead and provide the list of integers, then we can "
        "proceed.\n\nPlease use these [32] as many times as is possible, for example."
    )
    with pytest.raises(ParseError):
        sort(reply)


def test_a_reply_asking_for_more_still_gives_the_result_it_labels():
    reply = "Output: [0, 0, 3, 4, 7, 7]\n\nPlease go ahead and provide the next part."
    assert sort(reply) == [0, 0, 3, 4, 7, 7]


def test_what_the_function_is_said_to_return_is_its_output_not_the_answer():
    reply = (
        "```python\ndef find_intersection(numbers):\n    result = []\n    return result\n```\n"
        "The output returned by the function is: [3, 11, 14]."
    )
    with pytest.raises(ParseError):
        intersect(reply)


def test_a_value_written_inside_its_type_and_stated_as_the_output_is_read():
    assert intersect("`[5, 4]`, so the output is `List([10, 26])`.") == [10, 26]
    assert intersect("Output: set([41, 1])") == [1, 41]


def test_a_value_passed_to_a_call_is_still_code():
    with pytest.raises(ParseError):
        intersect("Use sorted(list([41, 1])) to get it.")


def test_a_count_object_in_doubled_braces_is_the_object():
    reply = 'Some markup <list>\nThe result is: {{"USA": 2, "Canada": 1}}, which is the output.'
    assert get_task("keyword-counting").parse_reply(reply, None, COUNT_PROMPT) == {
        "USA": 2,
        "Canada": 1,
    }


def test_a_count_object_inside_a_made_up_structure_is_still_a_piece_of_it():
    reply = 'The result is: {"output": {"USA": 2, "Canada": 1}}'
    with pytest.raises(ParseError):
        get_task("keyword-counting").parse_reply(reply, None, COUNT_PROMPT)


def test_a_fence_of_html_holds_no_merged_document():
    reply = (
        "Merge the NDA documents into a single NDA. Here is how you can do it:\n"
        "```html\n<nda_create ajax?\n```"
    )
    with pytest.raises(ParseError):
        merge(reply)


def test_a_fence_of_plain_text_still_holds_one():
    reply = "```text\nThe parties keep shared information confidential for three years.\n```"
    assert merge(reply).startswith("The parties keep")


def test_the_document_after_heres_the_nda_is_the_merge():
    reply = (
        "You can merge the documents into one NDA that keeps each piece of information.\n\n"
        "Here's the NDA:\n\n1. The parties keep information confidential for three years."
    )
    assert merge(reply) == "1. The parties keep information confidential for three years."


def test_a_presenting_line_with_nothing_after_it_leaves_the_reply_as_the_attempt():
    reply = (
        "The document has sections on confidentiality, which lasts three years.\n"
        "Here is a copy of the document and its content:"
    )
    assert merge(reply).startswith("The document has sections")
