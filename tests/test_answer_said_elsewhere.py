"""Where a value stands decides what it is: six structural readings, and their near misses.

- a line of code is code on any line of the reply, not only its first (`print(d)  # {...}`);
- what a program prints is the first value after the words saying so ("This will output:
  `[[2982, 7], [14]]`"); a labelled value after that one ("So the correct output would be:")
  is the reply's own statement;
- an HTML `<code>` block holding a program is a program, as a fence is: what is written right
  under it is what it prints (a `<code>` holding just a value is no program);
- the count reader applies the printed-output rule too: a program quoting no sentence of the
  text counts data of its own, and what it prints ("The output is a JSON object ...") is none;
- a value in parentheses of its own ("square brackets (`[0, 1, 4]`)") is an aside, wherever
  it stands, unless the parentheses name a result or open the reply;
- a value the reply gives as another problem's (its own made-up input, or what it calls an
  example) is that value again wherever it is repeated, under `Output:` too.

The failing replies are shaped on SmolLM2 tune replies (the 2026-12-02f batch, one of
2026-12-02d) the parser read otherwise than the labels.
"""

from __future__ import annotations

import pytest

from thoughtgraph.tasks import ParseError, get_task

from .part_prompts import COUNT_PART, SET_PART, SORT_PART

SORTED = [0, 0, 1, 3, 4, 7, 9, 9]


def read(task: str, reply: str, prompt: str) -> object:
    return get_task(task).parse_reply(reply, None, prompt)


def test_a_line_of_code_is_code_on_any_line():
    reply = 'Counting them now.\nprint(json_data["japan"])  # {"Japan": 2, "China": 1}'
    with pytest.raises(ParseError):
        read("keyword-counting", reply, COUNT_PART)
    with pytest.raises(ParseError):
        read("sorting", "Here are my steps.\nsorted_list = [0, 1, 3, 4, 7]", SORT_PART)


def test_a_value_on_a_later_line_of_prose_is_still_read():
    reply = 'Counting them now.\n{"Japan": 1, "China": 1}'
    assert read("keyword-counting", reply, COUNT_PART) == {"Japan": 1, "China": 1}
    assert read("sorting", f"Here are my steps.\nResult = {SORTED}", SORT_PART) == SORTED


PROGRAM = "```python\nnums = [5, 2, 8]\nprint(sorted(nums))\n```\n"


def test_a_labelled_value_after_the_printed_one_is_the_replys_own():
    reply = f"{PROGRAM}This will output: `[[2, 5], [8]]`\nSo the correct output would be:\n[18, 9]"
    assert read("set-intersection", reply, SET_PART) == [9, 18]


def test_the_value_the_claim_is_for_is_still_what_the_program_prints():
    with pytest.raises(ParseError):
        read("sorting", f"{PROGRAM}This will output:\n[2, 5, 8]", SORT_PART)
    with pytest.raises(ParseError):  # labelled, but nothing else after the claim
        read("sorting", f"{PROGRAM}This will output: [2, 5, 8]", SORT_PART)


def test_a_program_in_html_code_tags_is_a_program():
    reply = (
        "Steps:\n1. Merge the halves.\n<pre><code>\ndef sort_list(lst):\n    return sorted(lst)\n\n"
        "print(sorted([5, 1, 0, 1]) + sorted([3, 4]))\n</code>\nOutput: [0, 7, 8, 9, 1,"
    )
    with pytest.raises(ParseError):
        read("sorting", reply, SORT_PART)


def test_html_code_tags_around_a_value_or_a_program_on_the_input_keep_the_answer():
    assert read("sorting", f"The answer: <code>{SORTED}</code>", SORT_PART) == SORTED
    reply = f"<pre><code>\nprint(sorted([7, 9, 4, 0, 1, 9, 3, 0]))\n</code></pre>\nOutput: {SORTED}"
    assert read("sorting", reply, SORT_PART) == SORTED


def test_a_value_in_parentheses_is_an_aside_even_in_the_last_statement():
    reply = (
        "Here's how it works:\n\n1. It takes the list.\n2. It returns the integers whose square"
        " brackets (`[0, 1, 4, 9]`) match.\n3. It iterates over the values (`[0, 1, 4]`).\n"
    )
    with pytest.raises(ParseError):
        read("sorting", reply, SORT_PART)


@pytest.mark.parametrize(
    "reply",
    [
        f"I sorted the part. Every number is kept (the result is {SORTED}).",
        f"(`{SORTED}`)",
        f"The sorted part, every number kept:\n{SORTED} (16 numbers in all)",
    ],
)
def test_parentheses_naming_a_result_or_opening_the_reply_still_state_it(reply: str):
    assert read("sorting", reply, SORT_PART) == SORTED


def test_a_value_the_reply_calls_an_example_is_one_where_it_is_repeated():
    reply = (
        "We take the combinations [0, 1, 2] and [3, 4] and add them to the result list:\n"
        "[0, 1, 2, 3, 4]\n\nThe output of this step is a list such as [0, 1, 2, 3, 4]."
    )
    with pytest.raises(ParseError):
        read("sorting", reply, SORT_PART)


def test_a_made_up_set_repeated_under_output_is_that_set_again():
    reply = (
        "1. First, cut and match the two sets:\ncut-set 1 = [30, 8, 21, 16]\n"
        "match-set 2 = [7, 55, 4]\n\nThe output is:\n\nOutput:\n[30, 8, 21, 16]"
    )
    with pytest.raises(ParseError):
        read("set-intersection", reply, SET_PART)


def test_an_answer_beside_a_made_up_problem_is_still_the_answer():
    reply = (
        "1. First, cut and match the two sets:\ncut-set 1 = [30, 8, 21, 16]\n"
        "match-set 2 = [7, 55, 4]\n\nOutput:\n[9, 18]"
    )
    assert read("set-intersection", reply, SET_PART) == [9, 18]
    # the answer first, then an example of its own whose output is the same list: the example's
    # output is not its input, so the opening answer stands
    reply = f"{SORTED}\nInput: [3, 1, 2, 4, 7]\nOutput: {SORTED}"
    assert read("sorting", reply, SORT_PART) == SORTED


def test_what_a_count_program_on_its_own_data_prints_is_no_answer():
    reply = (
        '```python\nimport json\n\njson_data = \'{"Peru": 2, "Chile": 1}\'\n'
        "result = json.loads(json_data)\nreturn result\n```\nThis code turns the string into a"
        " dictionary. The output is a JSON object with these values as shown below:\n"
        "```python\n{\n    'Peru': 2,\n    'Chile': 1}"
    )
    with pytest.raises(ParseError):
        read("keyword-counting", reply, COUNT_PART)


def test_what_a_count_program_on_the_text_prints_is_still_the_answer():
    reply = (
        "```python\ntext = 'Japan traded with China.'\nprint(count(text))\n```\n"
        'The output is:\n{"Japan": 1, "China": 1}'
    )
    assert read("keyword-counting", reply, COUNT_PART) == {"Japan": 1, "China": 1}
