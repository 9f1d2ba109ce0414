"""The sorting reader calls json's C scanner without `json.loads`'s wrappers (tasks/sorting.py
`_json_array`, `_json_object`): it must read every text as `json.loads` does, a failure
included, and a perfect answer must score as the full error scope does."""

from __future__ import annotations

import json

import pytest

from thoughtgraph.tasks import ParseError
from thoughtgraph.tasks.sorting import _json_array, _json_object, error_scope

ARRAYS = [
    "[1, 2, 3]",
    "[ 1 ,\t2,\n3 ]",
    "[-0, 7]",
    "[01, 2]",
    "[+1]",
    "[1.0, 2]",
    "[1e3]",
    "[NaN, Infinity]",
    "[true, null]",
    '["1", "2"]',
    "[1], [2]",
    "[1]  ]",
    "[1,,2]",
    "[1, 2",
    "[" + "9" * 5000 + "]",
    '[{"a": 1}]',
    "[]",
]


def _loads(text: str) -> object:
    try:
        return ("read", json.loads(text))
    except ValueError as exc:  # JSONDecodeError, or an integer past the digit limit
        return ("raised", type(exc).__name__ == "JSONDecodeError" or "digits" in str(exc))


@pytest.mark.parametrize("text", ARRAYS)
def test_an_array_reads_as_json_loads_reads_it(text: str) -> None:
    expected = _loads(text)
    got = _json_array(text)
    if expected[0] == "read":
        assert got == expected[1] and type(got) is list
    else:
        assert got is None


OBJECTS = [
    '{"List 1": [1, 2], "List 2": [3]}',
    '{"List 1": [1]} trailing }',
    '{"a": [1]} {"b": [2]}',
    "{bad}",
    '{"List 1": [1], "List 1": [2]}',
    "{" * 50 + "}" * 50,
]


@pytest.mark.parametrize("text", OBJECTS)
def test_an_object_reads_as_json_loads_reads_it_or_is_one_parse_error(text: str) -> None:
    expected = _loads(text)
    if expected[0] == "read":
        assert _json_object(text) == expected[1]
    else:
        with pytest.raises(ParseError, match="not valid JSON"):
            _json_object(text)


def test_an_integer_past_the_digit_limit_still_raises_as_json_loads_does() -> None:
    with pytest.raises(ValueError, match="digits"):
        _json_object('{"List 1": [' + "9" * 5000 + "]}")


@pytest.mark.parametrize(
    ("expected", "output"),
    [
        ([3, 1, 2], [1, 2, 3]),
        ([3, 1, 2], [1, 2]),
        ([3, 1, 2], [2, 1, 3]),
        ([1, 1], [1]),
        ([], []),
        ([2, 2, 1], [1, 2, 2, 2]),
    ],
)
def test_the_error_scope_is_zero_exactly_for_the_sorted_input(
    expected: list[int], output: list[int]
) -> None:
    score = error_scope(expected, output)
    assert (score.value == 0) == (output == sorted(expected))
    assert score.perfect == (score.value == 0 and not score.errors)
