"""Labels from the run's own record: the summaries, the figures and `compare` name each row with
the settings its run recorded in eval.json (not the task's built-in defaults), a data file's
size is the range of its rows' sizes, and a folder written before the record still loads."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

import thoughtgraph
from thoughtgraph import schemes
from thoughtgraph.tasks import loading

from .conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
PEOPLE = ROOT / "examples" / "people"


def names(prompt: str) -> str:
    """The people example's stand-in model: every capitalised pair of words of the text."""
    text = prompt.rsplit("<input>", 1)[-1]
    return "Output: " + json.dumps(sorted(set(re.findall(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b", text))))


def eval_people(out: Path) -> None:
    thoughtgraph.evaluate(
        str(PEOPLE / "task.yaml"),
        data=str(PEOPLE / "data.jsonl"),
        schemes="io,tot,cot_sc,tot:k=3",
        model=names,
        out=out,
    )


@pytest.fixture
def two_people_runs(tmp_path, monkeypatch):
    pytest.importorskip("scipy.stats")
    eval_people(tmp_path / "a")
    eval_people(tmp_path / "b")
    # `thoughtgraph compare` runs in a process of its own, which never loaded the task file
    monkeypatch.setattr(loading, "_LOADED", {})
    return tmp_path


def test_compare_labels_a_task_files_rows_with_what_they_ran(two_people_runs, capsys):
    pytest.importorskip("matplotlib")
    root = two_people_runs
    figure = root / "side.svg"
    code, out, err = run_cli(
        capsys, "compare", str(root / "a"), str(root / "b"), "--figure", str(figure)
    )
    assert code == 0, err
    svg = figure.read_text()
    # the task file's ToT is k = 5 (its own configuration); the built-in defaults say k = 20
    assert "ToT (L=2, k=5)" in svg and "ToT (L=2, k=3)" in svg and "CoT-SC (k=5)" in svg
    assert "k=20" not in svg
    # the people rows are 3 and 4 paragraphs long: a range, not the longest row as the size
    assert "P = 3-4" in svg and "P = 4" not in svg
    assert "| tot | 3-4 | 6 |" in out
    code, out, _ = run_cli(capsys, "compare", str(root / "a"), str(root / "b"), "--format", "json")
    assert {row["size"] for row in json.loads(out)["rows"]} == {"3-4"}


def test_the_manifest_records_each_rows_builder_and_keywords(two_people_runs):
    manifest = json.loads((two_people_runs / "a" / "eval.json").read_text())
    assert manifest["rows"]["tot"] == {
        "scheme": "tot",
        "settings": {"k": 5, "levels": 2, "prompt": "io", "score_samples": 0},
    }
    assert manifest["rows"]["tot:k=3"]["settings"]["k"] == 3
    assert manifest["problem_sizes"] == [3, 4]


def test_a_folder_from_before_the_record_still_compares(two_people_runs, capsys):
    root = two_people_runs
    for run in ("a", "b"):
        path = root / run / "eval.json"
        manifest = json.loads(path.read_text())
        del manifest["rows"], manifest["problem_sizes"]
        path.write_text(json.dumps(manifest))
    code, out, err = run_cli(capsys, "compare", str(root / "a"), str(root / "b"))
    assert code == 0, err
    assert "| tot | rows | 6 |" in out  # the rows' sizes are not known: never "4"
    code, out, _ = run_cli(capsys, "compare", str(root / "a"), str(root / "b"), "--format", "csv")
    assert {r["size"] for r in csv.DictReader(io.StringIO(out))} == {"rows"}


def test_a_damaged_record_is_one_line(two_people_runs, capsys):
    root = two_people_runs
    path = root / "a" / "eval.json"
    manifest = json.loads(path.read_text())
    manifest["rows"]["tot"] = "L=2"
    path.write_text(json.dumps(manifest))
    code, _, err = run_cli(capsys, "compare", str(root / "a"), str(root / "b"))
    assert code == 2 and err == f"error: {path}: row 'tot' is not a recorded row\n"


def test_rows_of_several_sizes_show_the_range_of_the_settings_they_ran(tmp_path):
    # sorting's ToT has L = 2 at size 32 and L = 4 at 64: rows of 8 and 64 items ran both
    rows = [
        {"id": "short", "input": list(range(8, 0, -1))},
        {"id": "long", "input": list(range(64, 0, -1))},
    ]
    found = thoughtgraph.evaluate(
        "sorting",
        data=rows,
        schemes="io,tot",
        graphs={"tot2": schemes.build("io")},
        model="sim",
        out=tmp_path / "out",
    )
    assert "| tot | L=2-4, k=20 |" in found._repr_markdown_()
    summary = list(csv.DictReader((tmp_path / "out" / "summary.csv").open()))
    # a graph file named tot2 is its own row, not the scheme tot2 (L=3, k=10)
    assert {r["scheme"]: r["settings"] for r in summary} == {
        "io": "",
        "tot": "L=2-4, k=20",
        "tot2": "",
    }
    pytest.importorskip("matplotlib")
    svg = (tmp_path / "out" / "errors.svg").read_text()
    assert "ToT (L=2-4, k=20)" in svg and "ToT2" not in svg
