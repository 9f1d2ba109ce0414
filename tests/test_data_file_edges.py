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
