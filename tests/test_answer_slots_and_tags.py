"""Three forms a small model writes that a careful reader reads one way (the 2026-12-06a batch,
read after its measurement):

- the prompt's format line given back and closed by a colon, then a value of the reply's own on
  the next lines ("A JSON object mapping each country to its count, such as:" then an object of
  the text's countries): the reply fills the format's slot, and that value is its answer. Run on
  into a value on the same line, or with the prompt's own example, the line still gives an
  example of the format;
- a value under an answer tag (`<output>[1, 2, 3]`) is labelled: not code offered ("with a
  list comprehension:"), and it beats a later list in passing;
- the prompt's own value in the last statement with the sentence running on past it ("2. Remove
  the first occurrence of [0, 1, 4, 9] from each merged output list") is a word of that
  sentence, not a result.
"""

from __future__ import annotations

import pytest

from thoughtgraph.tasks import ParseError, get_task

COUNT_PROMPT = (
    "<task>Count how many times each country is named.</task>\n<part>Merchants from Portugal "
    "travelled to Spain, and Spain welcomed them.</part>\n\nReturn only the result for this "
    'part, in the format: a JSON object mapping each country to its count, such as {"Peru": 2, '
    '"Chile": 1}'
)
SORT_PROMPT = (
    "<task>Sort a list of 16 integers in ascending order.</task>\n<part>[6, 6, 9, 1]</part>\n\n"
    "Return only the result for this part, in the format: a list of integers in square "
    "brackets, ascending, such as [0, 1, 1, 4, 9]"
)
MERGE_PROMPT = (
    "Combine the two partial results below into one result for the task.\n\n<task>Sort a list "
    "of 16 integers in ascending order.</task>\n<a>[0, 1, 4, 9]</a>\n<b>[1, 4, 9]</b>\n\nReturn "
    "only the merged result, in the format: a list of integers in square brackets, ascending, "
    "such as [0, 1, 1, 4, 9]"
)


def count(reply: str) -> object:
    return get_task("keyword-counting").parse_reply(reply, None, COUNT_PROMPT)


def sort(reply: str, prompt: str = SORT_PROMPT) -> object:
    return get_task("sorting").parse_reply(reply, None, prompt)


def test_the_format_line_given_back_then_an_object_of_its_own_is_the_answer():
    reply = (
        "A JSON object mapping each country to its count, such as:\n{\n"
        '    "Spain": 2,\n    "Portugal": 1\n  }'
    )
    assert count(reply) == {"Spain": 2, "Portugal": 1}


def test_the_format_line_run_on_into_a_value_still_gives_an_example():
    reply = 'A JSON object mapping each country to its count, such as {"Spain": 104}'
    with pytest.raises(ParseError):
        count(reply)


def test_a_reply_of_its_own_example_after_such_as_is_still_an_example():
    with pytest.raises(ParseError):
        count('Countries are counted in many ways, such as:\n{"Spain": 2}\nis one of them.')


def test_a_value_under_an_output_tag_is_labelled_not_code_offered():
    reply = (
        "You can achieve this part with a list comprehension:\n<output>[1, 2, 3]\n"
        "This will return the result as [0, 1, 4, 9]."
    )
    assert sort(reply) == [1, 2, 3]


def test_code_offered_under_an_html_tag_is_still_code():
    with pytest.raises(ParseError):
        sort("You can do it with a list comprehension:\n<pre>[x for x in [6, 6, 9, 1]]")


def test_an_input_named_in_a_step_that_runs_on_is_no_merged_result():
    reply = (
        "To merge the two partial results into a single output, you need to:\n"
        "1. Remove duplicates from each input list.\n"
        "2. Remove the first occurrence of [0, 1, 4, 9] from each merged output list and "
        "return it as a new list."
    )
    with pytest.raises(ParseError):
        sort(reply, MERGE_PROMPT)


def test_a_merge_whose_result_is_an_input_still_reads_when_it_ends_the_sentence():
    assert sort("The two merge into [0, 1, 4, 9].", MERGE_PROMPT) == [0, 1, 4, 9]
    assert sort("So the merged list is [0, 1, 4, 9] in the end.", MERGE_PROMPT) == [0, 1, 4, 9]
