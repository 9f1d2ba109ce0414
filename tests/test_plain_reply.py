"""A plain reply (exactly one list, maybe fenced or after `Output:`) is read without the careful
scans, and reads the same as the careful reader would (tasks/sorting.py `_plain_list`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from thoughtgraph.tasks import ParseError, get_task, sorting
from thoughtgraph.tasks.sets import parse_set
from thoughtgraph.tasks.sorting import _plain_list, careful_int_list, parse_int_list

FIXTURES = Path(__file__).parent / "fixtures" / "real_answers"
PROMPT = "Sort the list. Example: [0, 1, 1, 4, 9]\n<input>[3, 1, 2]</input>"


def _reading(read: Any, *args: Any) -> Any:
    try:
        return read(*args)
    except ParseError:
        return ParseError


@pytest.mark.parametrize(
    "reply",
    [
        "[1, 2, 3]",
        "  [1, 2, 3]\n",
        "[1,2,3]",
        "['1', '2', '3']",
        "```\n[1, 2, 3]\n```",
        "```json\n[1,2,3]\n```\n",
        "Output: [1, 2, 3]",
        "Answer:\n[1, 2, 3]",
        "```python\nResult: [1, 2, 3]\n```",
        "Here is the result:\n```\n[1, 2, 3]\n```",
        "Here's my answer: [1, 2, 3]",
    ],
)
def test_the_fast_path_reads_a_plain_reply(reply: str) -> None:
    assert _plain_list(reply) == [1, 2, 3]
    assert parse_int_list(reply, PROMPT) == careful_int_list(reply, PROMPT) == [1, 2, 3]


@pytest.mark.parametrize(
    "reply",
    [
        "Input: [1, 2, 3]",  # a restated input
        "Example output: [1, 2, 3]",  # for another input
        "```example\n[1, 2, 3]\n```",
        "result = [1, 2, 3]",  # code
        "[1, 2, 3] or [2, 3]",  # alternatives
        "[1, 2,\n3 4]",  # a list over lines: a line of bare numbers inside it
        "[[1, 2], [3]]",  # fragments
        "[1, 2, 3].sort()",
        "[1, x, 3]",
        "Here is an example:\n```\n[1, 2, 3]\n```",
        "Here is the input: [1, 2, 3]",
    ],
)
def test_the_fast_path_leaves_the_rest_to_the_careful_reader(reply: str) -> None:
    assert _plain_list(reply) is None
    assert _reading(lambda: parse_int_list(reply, PROMPT)) == _reading(
        lambda: careful_int_list(reply, PROMPT)
    )


@pytest.mark.parametrize("reply", ["[0, 1, 1, 4, 9]", "[3, 1, 2]", "[2, 1, 3]", "[]"])
@pytest.mark.parametrize("unordered", [False, True])
def test_a_plain_echo_reads_as_the_careful_reader_reads_it(reply: str, unordered: bool) -> None:
    """An echo of the prompt (its format example, the input copied) or an empty list, alone in
    the reply, is what the model answered: the careful reader takes it too."""
    fast = _plain_list(reply)
    assert fast is not None
    assert fast == careful_int_list(reply, PROMPT, unordered=unordered)
    assert parse_int_list(reply, PROMPT, unordered=unordered) == fast


def test_a_list_beside_its_echo_is_still_read_carefully() -> None:
    """Two lists: the careful reader passes over the echo for the other one."""
    reply = "[1, 2, 3]\n[3, 1, 2]"
    assert _plain_list(reply) is None
    assert parse_int_list(reply, PROMPT) == [1, 2, 3]


def _corpus() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(FIXTURES.glob("*.json")) + sorted(FIXTURES.glob("top/*.json")):
        corpus = json.loads(path.read_text())
        for case in corpus["answers"]:
            if "prompt" not in case:
                template = corpus["templates"][case["prompt_of"]].strip()
                case = {**case, "prompt": template.format(**case["fields"])}
            found.append((corpus["task"], case))
    return found


def test_every_real_reply_reads_the_same_with_and_without_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every real-answer corpus entry (SmolLM2's and the Tree of Problems sample), through
    its task's `parse_reply`: the fast path on, then off (the careful reader alone)."""
    cases = _corpus()
    assert len(cases) > 300

    def readings() -> list[Any]:
        out = []
        for name, case in cases:
            task = get_task(name)
            problem = task.parse_input(case["input"]) if "input" in case else None
            out.append(_reading(task.parse_reply, case["answer"], problem, case["prompt"]))
        return out

    fast = readings()
    monkeypatch.setattr(sorting, "_plain_list", lambda *args: None)
    assert readings() == fast
    assert sum(value is not ParseError for value in fast) > 200


_INT = st.integers(-50, 50)
_LEADS = [
    "",
    "",
    "",
    "",
    " ",
    "\n",
    "```\n",
    "```json\n",
    "```python\n",
    "```example\n",
    "```input\n",
]
_LABELS = [
    "",
    "",
    "",
    "",
    "",
    "",
    "Output: ",
    "output:\n",
    "Answer: ",
    "Result:",
    "Input: ",
    "Output = ",
    "print(",
    "Example output: ",
    "Set 1: ",
    "sorted(",
    "x = ",
    "Sorted list: ",
    "> ",
    "1. ",
]
_TAILS = [
    "",
    "",
    "",
    "",
    "",
    "",
    "\n",
    "\n```",
    "\n```\n",
    " ",
    ".",
    ")",
    " or [1, 2]",
    ".sort()",
    "[0]",
    ", [4, 5]",
    "\nPlease provide the input.",
    "\n\n[1, 2]",
    " + [3]",
    "```",
    "\n1, 2, 3",
]


@st.composite
def _replies(draw: st.DrawFn) -> tuple[str, list[int]]:
    values = draw(st.lists(_INT, max_size=8))
    sep = draw(st.sampled_from([", ", ",", " ", ",\n", " , ", "; "]))
    quote = draw(st.sampled_from(["", "'", '"']))
    body = sep.join(f"{quote}{v}{quote}" for v in values)
    if draw(st.booleans()):
        body = draw(st.sampled_from(["", " ", "x, ", "1.0, ", "[", "`"])) + body
    reply = (
        draw(st.sampled_from(_LEADS))
        + draw(st.sampled_from(_LABELS))
        + "["
        + body
        + "]"
        + draw(st.sampled_from(_TAILS))
    )
    echoed = draw(st.sampled_from([[], values, sorted(values), [0, 1, 1, 4, 9]]))
    return reply, echoed


@settings(max_examples=400, deadline=None)
@given(_replies(), st.booleans(), st.booleans())
def test_the_fast_path_agrees_with_the_careful_reader(
    drawn: tuple[str, list[int]], unordered: bool, asked: bool
) -> None:
    reply, echoed = drawn
    prompt = f"Example: [0, 1, 1, 4, 9]\n<input>{echoed}</input>"
    answers = [echoed] if asked else []
    careful = _reading(
        lambda: careful_int_list(reply, prompt, unordered=unordered, answers=answers)
    )
    fast = _plain_list(reply)
    if fast is not None:
        assert fast == careful
    assert (
        _reading(lambda: parse_int_list(reply, prompt, unordered=unordered, answers=answers))
        == careful
    )


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="[]0123456789, -\n`:Outpa=x", max_size=40))
def test_the_fast_path_agrees_on_any_text(reply: str) -> None:
    fast = _plain_list(reply)
    if fast is not None:
        assert fast == careful_int_list(reply, PROMPT)


def test_sets_in_braces_take_the_fast_path_and_read_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prompt = "<input>Set 1: [1, 2, 3]\nSet 2: [2, 3, 4]</input>"
    fast = parse_set("{3, 2}", prompt)
    monkeypatch.setattr(sorting, "_plain_list", lambda *args: None)
    assert parse_set("{3, 2}", prompt) == fast == [2, 3]


def _through_the_regex(text: str) -> list[int] | None:
    """`_plain_list` as it read every reply before bare lists skipped its regex."""
    match = sorting._PLAIN.fullmatch(text)
    return None if match is None else sorting._items(match.group(1))


_BARE_PIECES = [
    "[",
    "]",
    "1",
    "-2",
    "+3",
    "007",
    "1.0",
    "2.5",
    " ",
    "\t",
    "\r",
    "\u00a0",
    ",",
    ", ",
    ";",
    "'4'",
    '"5"',
    "true",
    "null",
    "x",
    "\n",
    "`",
    "9" * 30,
    "1e3",
    "[]",
]


@given(st.lists(st.sampled_from(_BARE_PIECES), max_size=10))
@settings(max_examples=600, deadline=None)
def test_a_bare_list_reads_as_the_regex_read_it(pieces: list[str]) -> None:
    for text in ("[" + "".join(pieces) + "]", "".join(pieces)):
        assert _plain_list(text) == _through_the_regex(text), text


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        "[ ]",
        "[1]",
        "[1, 2, 3]",
        "[1,2,]",
        "[ 1 , 2 ]",
        "[1.0, 2]",
        "[true, 1]",
        "[1,\r2]",
        "[\u00a01]",
        "['1', '2']",
        "[1 2 3]",
        "[1, [2]]",
        "[1]\n",
        "[1] ",
        " [1]",
        "[1`]",
    ],
)
def test_bare_list_edge_cases_read_as_before(text: str) -> None:
    assert _plain_list(text) == _through_the_regex(text)
