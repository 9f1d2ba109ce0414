"""A user's --data rows are not clipped at their count of units: a story of 4 paragraphs whose
answer invents 12 names has 12 + (missed) errors, and the figure's axis says errors, not
"clipped at 4" (the paper clips at the size of its datasets, where errors cannot exceed it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.task_helpers import ScriptedServer, model_flags, run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "people"
INVENTED = [f"Person Number{i}" for i in range(12)]


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def test_data_row_errors_are_not_clipped_at_the_rows_units(capsys, tmp_path):
    out = tmp_path / "e"
    with ScriptedServer(lambda prompt: json.dumps(INVENTED)) as server:
        code, _, err = run_cli(
            capsys, "eval", str(EXAMPLES / "task.yaml"), "--data",
            str(EXAMPLES / "data.jsonl"), "--schemes", "io", "--out", str(out), "--no-progress",
            *model_flags(server),
        )  # fmt: skip
    assert code == 0, err
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    paragraphs = [
        json.loads(line)["input"].count("\n\n") + 1
        for line in (EXAMPLES / "data.jsonl").read_text().splitlines()
    ]
    assert all(row["error"] >= len(INVENTED) > max(paragraphs) for row in rows)
    assert all(row["clipped_error"] == row["error"] for row in rows)
    pytest.importorskip("matplotlib")
    svg = (out / "errors.svg").read_text()  # matplotlib keeps each text as a comment
    assert "#errors; lower is better" in svg and "clipped at" not in svg
