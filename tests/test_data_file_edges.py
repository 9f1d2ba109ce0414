"""`--data FILE` as users' tools write it: a spreadsheet's byte-order mark, Windows line ends,
quoted newlines; what cannot be read is one line naming the row, before any request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import run_cli

BOM = "\ufeff"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("rows.csv", 'id,input,reference\r\nc,"[3, 2,\r\n1]","[1, 2, 3]"\r\n'),
        ("rows.jsonl", '{"id": "c", "input": [3, 2, 1], "reference": [1, 2, 3]}\r\n\r\n'),
        ("rows.json", '[{"id": "c", "input": [3, 2, 1], "reference": [1, 2, 3]}]\r\n'),
    ],
    ids=["csv", "jsonl", "json"],
)
def test_a_data_file_with_a_byte_order_mark_reads_as_without(capsys, tmp_path, name, text):
    """Excel's "CSV UTF-8" and Notepad start the file with a BOM: the first column is still
    `id` (it was silently renamed, and the row took its number as id) and JSON still reads."""
    data = tmp_path / name
    data.write_text(BOM + text, encoding="utf-8")
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--data", str(data), "--id", "c", "--model", "sim:error=0",
        "--scheme", "io", "--json", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert result["output"] == [1, 2, 3] and result["matches_reference"] is True


def test_a_task_file_with_a_byte_order_mark_loads(tmp_path: Path):
    from thoughtgraph.tasks import get_task

    toml = 'name = "toml-with-bom"\ndescription = "d"\njoin = "union"\n'
    toml += '[answer]\ntype = "strings"\n[split]\nby = "lines"\n[score]\nby = "reference"\n'
    (tmp_path / "t.toml").write_text(BOM + toml, encoding="utf-8")
    assert get_task(str(tmp_path / "t.toml")).name == "toml-with-bom"


EVENS_FILE = """\
name: evens-items
description: Keep the even numbers of the list, in order.
answer: {type: integers, ordered: true, from_input: true}
split: {by: items, part_size: 2}
join: concatenate
score: {by: reference}
"""


@pytest.mark.parametrize(
    ("given", "item"),
    [
        ([[1, 2], 3, 4], "item 1 is [1, 2]"),
        ([1, None, 4], "item 2 is null"),
        ([1, 2.5, 4], "item 2 is 2.5"),
        ("[1, 2, true]", "item 3 is true"),
    ],
)
@pytest.mark.parametrize("command", ["solve", "eval"])
def test_an_item_that_is_no_number_or_string_is_refused_before_any_request(
    capsys, tmp_path, monkeypatch, command, given, item
):
    """A nested list among a row's items crashed the split with a traceback."""
    from tests.task_helpers import ScriptedServer, play_evens

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tmp_path / "evens.yaml").write_text(EVENS_FILE)
    data = tmp_path / "rows.jsonl"
    data.write_text(
        json.dumps({"input": [2, 4], "reference": [2, 4]})
        + "\n"
        + json.dumps({"input": given, "reference": [4]})
        + "\n"
    )
    extra = ["--no-progress"] if command == "solve" else ["--out", str(tmp_path / "out")]
    extra += ["--sample", "2"] if command == "solve" else []
    with ScriptedServer(play_evens) as server:
        code, _, err = run_cli(
            capsys, command, str(tmp_path / "evens.yaml"), "--data", str(data), "--model",
            "openai:m", "--base-url", server.base_url, "--max-retries", "0", *extra,
        )  # fmt: skip
        assert server.requests == []
    assert code == 2 and err.count("\n") == 1, err
    assert err == (
        f"error: rows.jsonl row 2: the input must be a list of whole numbers or strings: {item}\n"
    )


def test_a_csv_cell_may_hold_a_whole_document(capsys, tmp_path):
    """A cell past the csv module's 128 KiB default was refused as "not valid CSV" (the same
    row as JSON Lines ran)."""
    numbers = list(range(40_000, 0, -1))  # about 240 KB of input in one cell
    data = tmp_path / "big.csv"
    data.write_text("id,input\nbig," + '"' + json.dumps(numbers) + '"\n')
    _, out, err = run_cli(
        capsys, "solve", "sorting", "--data", str(data), "--model", "sim:error=0",
        "--scheme", "io", "--json", "--no-progress", "--max-requests", "0",
    )  # fmt: skip
    assert "not valid CSV" not in err and "field limit" not in err, err
    assert json.loads(out)["requests"] == 0  # read, then stopped by the budget before a request


@pytest.mark.parametrize(("separator", "shown"), [(";", "';'"), ("\t", "tabs")])
def test_a_csv_with_another_separator_says_so(capsys, tmp_path, separator, shown):
    """Excel in many locales writes `;`: every row was `no "input"`, with no hint why."""
    data = tmp_path / "rows.csv"
    data.write_text(f"id{separator}input\n1{separator}[2, 1]\n")
    code, _, err = run_cli(capsys, "solve", "sorting", "--data", str(data), "--model", "sim")
    assert code == 2 and err.count("\n") == 1
    assert "rows.csv: the header is one column" in err and f"not {shown}" in err


def test_an_id_with_leading_zeros_stays_as_written(capsys, tmp_path):
    """`"007"` became the id 7, so `--id 007` found no row (and results named it 7)."""
    data = tmp_path / "rows.jsonl"
    data.write_text('{"id": "007", "input": [3, 1]}\n{"id": "7", "input": [9, 8]}\n')
    for given, output in (("007", [1, 3]), ("7", [8, 9])):
        code, out, err = run_cli(
            capsys, "solve", "sorting", "--data", str(data), "--id", given, "--model",
            "sim:error=0", "--scheme", "io", "--json", "--no-progress",
        )  # fmt: skip
        assert code == 0, err
        assert json.loads(out)["output"] == output


def test_an_id_of_other_digits_is_one_line(capsys, tmp_path):
    """`"²"` is a digit to str.isdigit but no number: int() raised a traceback."""
    data = tmp_path / "rows.jsonl"
    data.write_text('{"id": "²", "input": [3, 1]}\n')
    code, _, err = run_cli(capsys, "solve", "sorting", "--data", str(data), "--model", "sim")
    assert code == 2 and err.startswith("error: rows.jsonl row 1: \"id\" '²' must be letters")
    assert err.count("\n") == 1


PEOPLE_FILE = """\
name: people-rows
description: List every person named in the text.
answer: {type: strings, from_input: true}
split: {by: paragraphs}
join: union
score: {by: reference}
"""


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [{"id": "a", "input": "Ada Lovelace met Alan Turing.", "expected": ["Ada Lovelace"]}],
            "rows.jsonl: no row has a \"reference\", and task 'people-rows' is scored against "
            "the row's reference (its columns: id, input, expected; the reference's column "
            'must be named "reference")',
        ),
        (
            [
                {"input": "Ada Lovelace met Alan Turing.", "reference": ["Ada Lovelace"]},
                {"input": "Bob Smith left."},
            ],
            "rows.jsonl row 2: no \"reference\", and task 'people-rows' is scored against the "
            "row's reference (the other rows have one)",
        ),
    ],
    ids=["none", "one-forgotten"],
)
@pytest.mark.parametrize("command", ["eval", "solve"])
def test_rows_without_the_reference_a_task_scores_against_are_refused(
    capsys, tmp_path, monkeypatch, command, rows, message
):
    """Eval scored such rows clean with 0 errors (nothing was checked) and said nothing."""
    from tests.task_helpers import ScriptedServer, play_people

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tmp_path / "people.yaml").write_text(PEOPLE_FILE)
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    extra = ["--no-progress"] if command == "solve" else ["--out", str(tmp_path / "out")]
    with ScriptedServer(play_people) as server:
        code, _, err = run_cli(
            capsys, command, str(tmp_path / "people.yaml"), "--data", str(data), "--model",
            "openai:m", "--base-url", server.base_url, "--max-retries", "0", *extra,
        )  # fmt: skip
        assert server.requests == []
    assert (code, err) == (2, f"error: {message}\n")
