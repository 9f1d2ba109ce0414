"""The choice rule of tasks/answers.py: a reply is read as a careful person reads it.

No answer is made up from code, from the model's own example for another input, from the input
restated under its label or from the pieces of a nested or looping list; a reply holding only
those is a ParseError (a scored failure). The cases are the ones that were invented from real
SmolLM2 replies (issue 19) and their near misses that must still parse.
"""

from __future__ import annotations

import pytest

from thoughtgraph.tasks import ParseError, get_task
from thoughtgraph.tasks.keywords import parse_counts
from thoughtgraph.tasks.sets import parse_set
from thoughtgraph.tasks.sorting import parse_int_list

SORTING = get_task("sorting")
KEYWORDS = get_task("keyword-counting")
SETS = get_task("set-intersection")
SORT_PROMPT = SORTING.prompts["io"].render({"input": "[3, 1, 2]"})
COUNT_PROMPT = KEYWORDS.prompts["io"].render(
    {"input": "Lena flew from Egypt to Jordan. In Jordan she met a guide from Egypt."}
)


@pytest.mark.parametrize(
    "text",
    [
        "result = [1, 2] + list(range(3))",  # the cases
        "assert f([-1, 2, 3]) == [-1]",
        "```python\nprint(sorted(x))  # Output: [1, 2, 3]\n```",
        "print(sorted([3, 1, 2]))",
        "sorted_list = [1, 2, 3]",
        "return [1, 2, 3]",
        "[1, 2] + [3]",
        "x = [3, 1, 2]\nx.sort()",
    ],
)
def test_code_is_never_the_answer(text: str):
    with pytest.raises(ParseError):
        SORTING.parse_reply(text, [3, 1, 2], SORT_PROMPT)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Output = [1, 2, 3]", [1, 2, 3]),  # a label, not a Python name
        ("Sorted list = [1, 2, 3]", [1, 2, 3]),
        ("```python\nprint(sorted([3, 1, 2]))\n```\n[1, 2, 3]", [1, 2, 3]),  # printed for *this*
        ("```\n[1, 2, 3]\n```", [1, 2, 3]),  # a fence holding a value is no program
        ("**Output: [1, 2, 3]**", [1, 2, 3]),  # markdown, not an operator
        ("The sorted list is [1, 2, 3].", [1, 2, 3]),
    ],
)
def test_near_misses_of_code_are_still_answers(text: str, expected: list[int]):
    assert SORTING.parse_reply(text, [3, 1, 2], SORT_PROMPT) == expected


@pytest.mark.parametrize(
    "text",
    [
        "For example, [9, 5, 7] sorted is [5, 7, 9].",
        "Input: [9, 4]\nOutput: [4, 9]",  # the model's own example
        "Here's the output for the example:\nOutput: [0, 0, 1, 1, 1, 1, 2, 3, 3]",
        # a few-shot example repeated with its output: for another input
        "Input: [5, 1, 0, 1, 2, 0, 4, 8, 1, 9, 5, 1, 3, 3, 9, 7]\n"
        "Output: [0, 0, 1, 1, 1, 1, 2, 3, 3, 4, 5, 5, 7, 8, 9, 9]",
        "```python\n# Example usage:\nnums = f([(0, 1), (4, 9)])\n```\n\nOutput: `[8, 17, 25]`",
        "A list such as [0 1 4  9] would return [0 1 4, 2 3].",
        "Input: [3, 1, 2]",  # the input restated is no answer
    ],
)
def test_an_example_for_another_input_is_never_the_answer(text: str):
    with pytest.raises(ParseError):
        SORTING.parse_reply(text, [3, 1, 2], SORT_PROMPT)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Input: [9, 4]\nOutput: [4, 9]\n\nOutput: [1, 2, 3]", [1, 2, 3]),  # a blank line ends it
        ("For example, [9, 5] gives [5, 9]. Input: [3, 1, 2]\nOutput: [1, 2, 3]", [1, 2, 3]),
        ("Input: [3, 1, 2]\nOutput: [1, 2, 3]", [1, 2, 3]),  # the real input restated
        ("[3, 1, 2]", [3, 1, 2]),  # the input copied bare: what the model answered
        ("[0, 1]\n<input> [6, 9, 8, 4, 5, 7]", [0, 1]),  # an answer, then a new input
    ],
)
def test_the_answer_for_the_real_input_is_found_around_examples(text, expected):
    assert SORTING.parse_reply(text, [3, 1, 2], SORT_PROMPT) == expected


def test_without_a_prompt_a_restated_input_is_taken_for_the_real_one():
    assert parse_int_list("Unsorted: [3, 2] ... here is the answer: [2, 3]") == [2, 3]


@pytest.mark.parametrize(
    "text",
    [
        "[[1, 2], [3, 4]]",
        "Output: [[1, 2],\n [3, 4]]",
        "[the result is [the result is [the result is [1, 2, 3",  # a looping model
        "[the result is [1, 2, 3]]",
        "Sorted: [1, 8, 3], [4, 5, 9], [7, 6, 7], [1, 2, 3], [4, 3]",  # a loop of lists
    ],
)
def test_pieces_of_a_nested_or_looping_list_are_never_the_answer(text: str):
    with pytest.raises(ParseError):
        SORTING.parse_reply(text, [3, 1, 2], SORT_PROMPT)


def test_a_clean_answer_before_a_loop_of_lists_is_the_answer():
    text = (
        "Output: [0, 12, 3]\nSorted: [1, 8, 3], [4, 5, 9], [7, 6, 7]\n"
        "Output: [1, 8, 3], [4, 3], [2]"
    )
    assert SORTING.parse_reply(text, [1, 8, 3], SORT_PROMPT) == [0, 12, 3]


def test_two_lists_offered_as_either_or_commit_to_neither():
    text = "The part only contains the desired output of [1, 2, 3] or any repetitions of [0, 4]."
    with pytest.raises(ParseError):
        SORTING.parse_reply(text, [3, 1, 2], SORT_PROMPT)
    assert parse_int_list("[2, 3] or not, the answer: [1, 2, 3]\nOutput: [1, 2, 3]") == [1, 2, 3]


def test_a_bracket_left_open_above_a_blank_line_holds_nothing_below():
    assert parse_int_list("Note [see below\n\nOutput: [1, 2, 3]") == [1, 2, 3]


@pytest.mark.parametrize(
    "text",
    [
        '{"count": 2}\n\nOutput: {"Egypt": 2, "Jordan": 2}',
        'Output: {"Egypt": 2, "Jordan": 2}\n{"count": 2}',
        '{"Egypt": 2, "Jordan": 2} has {"total": 4}',
    ],
)
def test_an_object_naming_no_place_is_not_a_count_of_countries(text: str):
    assert KEYWORDS.parse_reply(text, None, COUNT_PROMPT) == {"Egypt": 2, "Jordan": 2}


@pytest.mark.parametrize(
    "text",
    [
        "result = {}",  # the case: no "no countries" made up from code
        "```python\nresult = {}\nfor w in text.split():\n    pass\n```",
        '{"count": 2}',
        'data = {"Egypt": 2}',
        'Text: Tom went to Peru.\nOutput: {"Peru": 1}',  # the model's own example
        "```python\nif not found:\n    return None  # no countries\n```",
    ],
)
def test_keyword_replies_with_no_answer_are_parse_errors(text: str):
    with pytest.raises(ParseError):
        KEYWORDS.parse_reply(text, None, COUNT_PROMPT)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{}", {}),
        ("Output: {}", {}),
        ("No country is named in the text.", {}),
        ("None", {}),
        ('{"egypt": 2, "jordan": 2}', {"egypt": 2, "jordan": 2}),  # keys as written
        ('Text: Lena flew from Egypt to Jordan.\nOutput: {"Egypt": 2, "Jordan": 2}', None),
    ],
)
def test_keyword_answers_that_are_answers(text: str, expected):
    want = {"Egypt": 2, "Jordan": 2} if expected is None else expected
    assert KEYWORDS.parse_reply(text, None, COUNT_PROMPT) == want


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('JSON\n```json\n{"peru": 2, "chile": 1}', {"peru": 2, "chile": 1}),  # format example
        ('{"egypt": 2, "the Jordan": 2}', {"egypt": 2, "the Jordan": 2}),
        ('{" EGYPT ": 2, "Jordan": 2}', {"EGYPT": 2, "Jordan": 2}),
    ],
)
def test_count_keys_are_read_as_written(text: str, expected):
    """A key is what the reply writes: `peru` is not rewritten `Peru` (the fixture's labels
    keep keys as written; the corpus's `{"peru": 2, "chile": 1}` and `{"china": 2, ...}`
    were misread so). Only quotes and spaces around it go."""
    assert KEYWORDS.parse_reply(text, None, COUNT_PROMPT) == expected


def test_counts_written_otherwise_score_and_check_as_ours():
    """The score and the reference check read a key under our spelling (case, a leading
    "the"), so keeping keys as written changes no score: `egypt` counts as `Egypt`, and one
    country written two ways adds up."""
    problem = KEYWORDS.parse_input(
        "Lena flew from Egypt to Jordan. In Jordan she met a guide from Egypt."
    )
    written = {"egypt": 1, "Egypt": 1, "the Jordan": 2}
    assert KEYWORDS.score(problem, written).value == 0
    assert KEYWORDS.matches_reference(problem, written, KEYWORDS.reference(problem))
    assert not KEYWORDS.matches_reference(problem, {"egypt": 2}, KEYWORDS.reference(problem))
    assert KEYWORDS.score(problem, {"peru": 2}).value == 6
    us = KEYWORDS.parse_input("Ada left the United States. The United States won. United States!")
    assert KEYWORDS.score(us, {"united states": 1, "The United States": 2}).value == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("There are no common numbers.", []),
        ("The intersection is empty.", []),
        ("None", []),
    ],
)
def test_no_common_number_said_in_words_is_an_empty_answer(text: str, expected):
    assert parse_set(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "```python\ndef f(a, b):\n    return None\n```",
        "None of the numbers are sorted here.",
        "First create an empty set, then add every number found in both lists.",
        "Set 1: [5, 49]\nSet 2: [31, 11, 60, 1]",  # made-up sets restated: no answer
        "Set 1: [3, 24, 5, 7]\nset-2: [6, 9, 8]",
    ],
)
def test_set_replies_with_no_answer_are_parse_errors(text: str):
    prompt = SETS.prompts["io"].render({"input": "Set 1: [1, 2, 3]\nSet 2: [2, 3, 4]"})
    with pytest.raises(ParseError):
        SETS.parse_reply(text, None, prompt)


def test_a_reply_of_thousands_of_examples_and_nested_brackets_is_read_in_one_pass():
    """Every new check reads a window or a per-reply index: no reply is read twice per
    candidate (a hang here is the regression; no time is asserted)."""
    looping = "[the result is " * 20_000 + "[1, 2, 3"
    with pytest.raises(ParseError):
        parse_int_list(looping)
    examples = "Input: [9, 4]\nOutput: [4, 9]\n" * 5_000 + "\nOutput: [1, 2, 3]"
    assert SORTING.parse_reply(examples, [3, 1, 2], SORT_PROMPT) == [1, 2, 3]
    code = "x = [1, 2] + [3]\n" * 10_000 + "\nOutput: [1, 2, 3]"
    assert parse_int_list(code) == [1, 2, 3]
    after_a_program = "```python\nx = 1\n```\n" + "[2, 1] " * 20_000 + "\nOutput: [1, 2]"
    assert parse_int_list(after_a_program) == [1, 2]
    objects = '{"count": 2} ' * 10_000 + '\nOutput: {"Peru": 1}'
    assert parse_counts(objects, places=True) == {"Peru": 1}


def test_a_task_counting_other_things_keeps_lower_case_keys():
    """Task files count anything (`{"tea": 3}`): only keyword counting asks for places, and
    even there an object naming a place is read with every key as written (issue 29: dropping
    gpt-3.5's `"country": 1` scored its answer better than it was)."""
    assert parse_counts('Here: {"tea": 3, "jam": 1}') == {"tea": 3, "jam": 1}
    assert parse_counts('Here: {"Tea": 3, "jam": 1}', places=True) == {"Tea": 3, "jam": 1}
    assert parse_counts('Here: {"tea": 3, "jam": 1}\nOutput: {"Peru": 1}', places=True) == {
        "Peru": 1
    }  # an object of field names alone is no count of places


def test_a_merged_block_holding_no_word_of_its_own_is_no_merged_document():
    """A real reply restated the prompt's instruction, whose words name the <Merged> tag."""
    doc_merge = get_task("doc-merge")
    text = (
        "The merged NDA for this document is:\n<Documents>Merge the NDA into a single NDA. Reply "
        "only with the merged NDA between the tags <Merged>.</Document>"
    )
    with pytest.raises(ParseError):
        doc_merge.parse_reply(text, None, "Merge the NDAs.")
    assert doc_merge.parse_reply("<Merged>Both parties keep it secret.</Merged>", None, "") == (
        "Both parties keep it secret."
    )


PART_PROMPT = SORTING.prompts["io"].render({"input": "[4, 0, 9, 1]"})


@pytest.mark.parametrize(
    "text",
    [
        # tune replies of the corpus (2026-12-02b): what a program on data of its own prints,
        # said in the prose after it or written right under it, was read as the answer
        "```python\nnumbers = [23, 89, 567]\nprint(f(numbers))\n```\n\n"
        "The output of this code would be:\n`[3, 1, 567]`",
        "```python\ndef f(x):\n    return x\n```\nWhen you run this code, it sorts the input "
        "list `[0, 1, 4, 9]` in ascending order: [0, 1, 3, 8]",
        "```python\ndef f(nums):\n    return nums\n```\nIt returns an iterator to print the "
        "result:\n\n `[7, 8, 9, 6]`.",
        "```python\nresult = [x for x in set(range(8))]\nprint(result)\n```\n\nOutput: `[1, 4]`",
    ],
)
def test_what_a_program_on_its_own_data_prints_is_no_answer(text: str):
    with pytest.raises(ParseError):
        SORTING.parse_reply(text, None, PART_PROMPT)


def test_what_a_program_on_the_input_prints_is_still_the_answer():
    text = (
        "```python\nprint(sorted([4, 0, 9, 1]))\n```\n\nThe output of this code is:\n[0, 1, 4, 9]"
    )
    assert SORTING.parse_reply(text, None, PART_PROMPT) == [0, 1, 4, 9]
    after = "```python\ndef f(x):\n    return x\n```\nIt returns a list.\n\nOutput: [0, 1, 4, 9]"
    assert SORTING.parse_reply(after, None, PART_PROMPT) == [0, 1, 4, 9]  # not said printed


def test_a_list_right_after_the_format_named_shows_the_format():
    # a tune reply of the corpus (2026-12-02b): 'always square brackets [0, 1] (where ...)'
    # in a numbered step naming the format was read as the answer
    steps = "4. Make sure each output is always square brackets [0, 1] (where the list has one)"
    with pytest.raises(ParseError):
        SORTING.parse_reply(steps, None, PART_PROMPT)
    labelled = "The sorted list in square brackets: [0, 1, 4, 9]"
    assert SORTING.parse_reply(labelled, None, PART_PROMPT) == [0, 1, 4, 9]


@pytest.mark.parametrize(
    "text",
    [
        # tune replies (held out until 2026-12-02, read after its measurement): what code prints
        # said in other words, a call or an output comment in a fence, the instruction or an
        # input of the model's own restated before a list
        "```python\nnumbers = [23, 89, 567]\nprint(sorted(numbers))\n```\n\n"
        "This script will output:\n[23, 89, 567]",
        "```python\nnumbers = [23, 89, 567]\nprint(sorted(numbers))\n```\nIt sorts them.\n\n"
        "The output:\n[23, 89, 567]",
        "```python\nnumbers = [23, 89, 567]\nprint(sorted(numbers))\n```\n"
        "Running it would result in: [23, 89, 567]",
        "```\nsorted([21, 30])\n# returns [21, 30]\n```",
        "```python\n[0, 1, 4, 3, 7, 9]\n# Output: [0, 1, 4, 9]\n```",
        "Sort the list of numbers in ascending order: [4, 0, 9]",
        "First, sum every integer in the input list [0, 1, 2, 3, 4, 5, 6].",
    ],
)
def test_code_output_in_other_words_and_restated_tasks_are_no_answer(text: str):
    with pytest.raises(ParseError):
        SORTING.parse_reply(text, None, PART_PROMPT)


def test_near_misses_of_those_still_answer():
    printed = (
        "```python\nprint(sorted([4, 0, 9, 1]))\n```\n\nThis script will output:\n[0, 1, 4, 9]"
    )
    assert SORTING.parse_reply(printed, None, PART_PROMPT) == [0, 1, 4, 9]  # on the input
    assert SORTING.parse_reply("```\n[0, 1, 4, 9]\n```", None, PART_PROMPT) == [0, 1, 4, 9]
    assert SORTING.parse_reply("Sorted list: [0, 1, 4, 9]", None, PART_PROMPT) == [0, 1, 4, 9]
    said = "The input [4, 0, 9, 1] sorted is [0, 1, 4, 9]"
    assert SORTING.parse_reply(said, None, PART_PROMPT) == [0, 1, 4, 9]


def test_counts_nested_in_a_made_up_structure_are_no_answer():
    nested = 'Output:\n```json\n{"output": {"file": {"Egypt": 2, "id": 1846}}}\n```'
    with pytest.raises(ParseError):
        KEYWORDS.parse_reply(nested, None, COUNT_PROMPT)
    cut = 'Output:\n{"data": [{"text": "x"}, {"Egypt": 2, "Jordan": 1'
    with pytest.raises(ParseError):
        KEYWORDS.parse_reply(cut, None, COUNT_PROMPT)
    flat = 'Output:\n```json\n{"Egypt": 2, "Jordan": 2}\n```'
    assert KEYWORDS.parse_reply(flat, None, COUNT_PROMPT) == {"Egypt": 2, "Jordan": 2}


DOC_MERGE = get_task("doc-merge")
DOC_PROMPT = DOC_MERGE.prompts["io"].render(
    {"input": DOC_MERGE.render(("The Supplier keeps the plans secret.", "Disputes go to court."))}
)
SET_PROMPT = "<input>Set 1: [27, 33, 14, 63, 0]\nSet 2: [56, 0, 60, 7, 27]</input>"


def test_the_instruction_given_back_in_other_words_is_no_merge():
    # tune replies of the corpus: the task's own sentence, a word or two changed ("it contains"
    # for "they contain"), was taken for the merged document (an invented answer)
    restated = (
        "Merge the NDA documents into one NDA that keeps every piece of information of the "
        "documents and states each piece only once."
    )
    with pytest.raises(ParseError):
        DOC_MERGE.parse_reply(restated, None, DOC_PROMPT)
    with pytest.raises(ParseError):
        DOC_MERGE.parse_reply(f"<Merged>{restated}</Merged>", None, DOC_PROMPT)
    # near misses: a clause of its own makes it a merge attempt; a clause of the documents is one
    own = restated + " The Supplier must return every drawing within ten days."
    assert DOC_MERGE.parse_reply(own, None, DOC_PROMPT) == own
    kept = "<Merged>The Supplier keeps the plans secret. Disputes go to court.</Merged>"
    assert DOC_MERGE.parse_reply(kept, None, DOC_PROMPT) == (
        "The Supplier keeps the plans secret. Disputes go to court."
    )
    assert DOC_MERGE.parse_reply("<Merged>NDA text</Merged>", None, DOC_PROMPT) == "NDA text"


def test_a_line_of_numbers_with_a_stray_closing_bracket_is_its_numbers():
    # tune replies of the corpus: '16, 25}' and 'The output is: 1, 4, 2]' were missed answers
    assert SORTING.parse_reply("16, 25}", None, PART_PROMPT) == [16, 25]
    assert SORTING.parse_reply("The output is: 1, 4, 2]", None, PART_PROMPT) == [1, 4, 2]
    # near miss: the last line of a list spread over lines is that list's, not a line of its own
    spread = "[0, 1,\n4, 9]"
    assert SORTING.parse_reply(spread, None, PART_PROMPT) == [0, 1, 4, 9]
    assert SORTING.parse_reply("[9, 4]\n1, 0)", None, PART_PROMPT) == [1, 0]  # nothing opened


def test_a_list_after_the_bracket_named_or_said_to_become_something_is_no_result():
    # tune replies of the corpus: the format example misquoted in prose ('in every square
    # bracket [0, 1, 4, 9]'; '[0, 1, 4, 9] in ascending order would result in: `[0, 1, 4, 9]`')
    for text in [
        "1. The input list must contain an integer in every square bracket [0, 1, 4, 9] once.",
        "Iterate one by one: [0, 1, 4, 9] in ascending order would result in: `[0, 1, 4, 9]`.",
    ]:
        with pytest.raises(ParseError):
            SORTING.parse_reply(text, None, PART_PROMPT)
    # near misses: the real input said to become the answer; the bracket named with a colon
    said = "[4, 0, 9, 1] in ascending order would result in: [0, 1, 4, 9]"
    assert SORTING.parse_reply(said, None, PART_PROMPT) == [0, 1, 4, 9]
    named = "The answer in square brackets: [0, 1, 4, 9]"
    assert SORTING.parse_reply(named, None, PART_PROMPT) == [0, 1, 4, 9]


def test_a_made_up_input_with_its_output_on_one_line_is_another_problem():
    # a tune reply of the corpus: numbered steps holding 'Input: [3, 11, 14, 56, 70], Output:
    # [0, 289].' (a made-up example pair; one set alone, so it stated no problem) were read
    pair = "2. The output was not a list.\n   Input: [3, 11, 14, 56, 70], Output: [0, 289]."
    with pytest.raises(ParseError):
        SETS.parse_reply(pair, None, SET_PROMPT)
    # near miss: a lone made-up input, the output on a line of its own, answers the real problem
    lone = "Input: [3, 11, 14, 56, 70]\nOutput: [0, 27]"
    assert SETS.parse_reply(lone, None, SET_PROMPT) == [0, 27]


def test_a_list_offered_as_code_or_recounted_as_an_earlier_output_is_no_answer():
    # tune replies of the corpus: '... is to use the `map` function:\n<code>[14, 7]</code>' and
    # '1. The output was [3, 8] instead of ...' (a retry recounting an attempt) were read
    for text in [
        "A more efficient approach is to use the `map` function:\n<code>[14, 7]</code></p>",
        "Here's the code:\n[14, 7]",
        "1. The output was [3, 8] instead of the input a list with no elements.",
    ]:
        with pytest.raises(ParseError):
            SETS.parse_reply(text, None, SET_PROMPT)
    # near misses: a value alone in <code>; the output of the function as a label; the present
    assert SETS.parse_reply("<code>[27, 0]</code>", None, SET_PROMPT) == [0, 27]
    labelled = "Here is the output of the function: [27, 0]"
    assert SETS.parse_reply(labelled, None, SET_PROMPT) == [0, 27]
    assert SETS.parse_reply("The output was wrong.\nOutput: [0, 27]", None, SET_PROMPT) == [0, 27]
    assert SETS.parse_reply("The output is [27, 0]", None, SET_PROMPT) == [0, 27]


def test_the_instructions_order_given_back_is_no_merge_however_it_goes_on():
    # 2026-12-02c replies (held out, read after their measurement): the order of the
    # instruction given back, short or twisted, was taken for the merged document
    for text in [
        "Merge the NDA documents with this document.",
        "Merge the NDA documents into one NDA that includes only the original NDA and "
        "excludes the attached FDE.",
    ]:
        with pytest.raises(ParseError):
            DOC_MERGE.parse_reply(text, None, DOC_PROMPT)
    # near misses: a sentence of its own after the order; a clause opening with another verb
    twisted = (
        "Merge the NDA documents into one NDA that keeps only the parts about both parties. "
        "The new version will have all the necessary details about each piece separately."
    )
    assert DOC_MERGE.parse_reply(twisted, None, DOC_PROMPT) == twisted
    own = "Merger of the parties' plans is kept secret by the Supplier."
    assert DOC_MERGE.parse_reply(own, None, DOC_PROMPT) == own


def test_the_format_example_after_the_format_named_with_a_colon_shows_the_format():
    # 2026-12-02c replies (held out, read after their measurement): the prompt's format line
    # given back ('Return only the result ..., in the format: [0, 1, 1, 4, 9]', 'list the
    # integers in square brackets: `[3, 11, 14]`') was read as the answer
    prompt = (
        "Solve this part.\n\n<part>[4, 0, 9, 1]</part>\n\nReturn only the result for this part, "
        f"in the format: {SORTING.format()}"
    )
    line = "Return only the result for this part, in the format: [0, 1, 1, 4, 9]"
    with pytest.raises(ParseError):
        SORTING.parse_reply(line, None, prompt)
    set_prompt = SET_PROMPT + "\nin the format: a list in square brackets, such as [3, 11, 14]"
    with pytest.raises(ParseError):
        SETS.parse_reply("List them in square brackets: `[3, 11, 14]`.", None, set_prompt)
    # near misses: a list of its own after the colon answers; the example alone is still read
    assert SORTING.parse_reply("In the format: [0, 1, 4, 9]", None, prompt) == [0, 1, 4, 9]
    assert SORTING.parse_reply("Output: [0, 1, 1, 4, 9]", None, prompt) == [0, 1, 1, 4, 9]
