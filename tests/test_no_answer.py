"""No answer is not an answer: a pair whose every model request failed or raised is counted apart.

The defect this guards: a `py:` model that raised on long prompts made io's median the unparsed
placeholder's errors on the rows it never answered, inside the medians, intervals, paired tests
and figure. Now such a pair is a `no_answer` count: left out of those, shown under its box, and
not solved.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from thoughtgraph.engine.result import ResultStatus
from thoughtgraph.evaluation.report import summarise, to_markdown
from thoughtgraph.evaluation.runner import PairResult

from .conftest import run_cli

MODELS = '''
import json


def numbers_of(prompt):
    return json.loads(prompt.rsplit("<input>", 1)[1].split("</input>")[0])


def short_only(prompt):
    """Sorts a short list; raises on a long one (a context window too small)."""
    numbers = numbers_of(prompt)
    if len(numbers) > 6:
        raise ValueError("prompt too long for this model")
    return json.dumps(sorted(numbers))


def always(prompt):
    return json.dumps(sorted(numbers_of(prompt)))
'''

LONG = ([9, 3, 7, 1, 8, 2, 6, 4], [15, 11, 13, 12, 14, 10, 16], [30, 10, 20, 50, 40, 60, 70])
ROWS = [[3, 1, 2], [5, 4], *LONG]


@pytest.fixture
def mod(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    name = f"shortmodels_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(MODELS)
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps({"input": row}) + "\n" for row in ROWS))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.delitem(sys.modules, name, raising=False)
    return __import__(name)


def run_eval(capsys, mod: ModuleType, model: str, out: Path) -> tuple[int, str, str]:
    return run_cli(
        capsys, "eval", "sorting", "--data", "rows.jsonl", "--schemes", "io,cot",
        "--model", f"py:{mod.__name__}:{model}", "--out", str(out), "--no-progress",
    )  # fmt: skip


def table(path: Path) -> dict[str, dict[str, str]]:
    with path.open() as handle:
        return {row.get("scheme") or row["a"]: row for row in csv.DictReader(handle)}


def test_pairs_the_model_never_answered_are_counted_apart_not_scored(capsys, mod, tmp_path):
    out = tmp_path / "e"
    code, stdout, err = run_eval(capsys, mod, "short_only", out)
    assert code == 2 and "Traceback" not in err  # pairs not done: a rerun retries them
    lines = [line for line in err.splitlines() if "no answer" in line]
    assert lines == [
        "error: 6 of 10 pairs got no answer from the model (every request failed or raised), "
        "so they are counted apart (no_answer), left out of the medians, intervals, pairs and "
        "the figure, and not solved: io#3, io#4, io#5, cot#3, cot#4, cot#5 (run the same "
        "command again to retry them)"
    ]
    io = table(out / "summary.csv")["io"]
    assert io["samples"] == "5" and io["no_answer"] == "3"
    # the two rows it answered, both sorted: not a median of the placeholder's errors
    assert float(io["median_error"]) == 0 and float(io["q3_error"]) == 0
    assert float(io["median_ci_low"]) == 0 and float(io["median_ci_high"]) == 0
    assert io["solved"] == "2" and float(io["solved_rate"]) == pytest.approx(2 / 5)
    assert "| io |  | 5 | 3 | 0 |" in stdout  # the summary.md column, after samples
    assert "No answer: runs whose every model request failed or raised" in stdout
    pair = table(out / "pairs.csv")["io"]
    assert pair["samples"] == "2" and (pair["no_answer_a"], pair["no_answer_b"]) == ("3", "3")
    assert "Runs left out because the model never answered them: io 3, cot 3." in stdout
    svg = (out / "errors.svg").read_text()
    assert 'id="box-io-' in svg and 'id="answered-io-' in svg and "2 of 5" in svg


def test_a_scheme_never_answered_has_no_box_and_no_median(capsys, mod, tmp_path):
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps({"input": row}) + "\n" for row in LONG))
    out = tmp_path / "e"
    code, stdout, _ = run_eval(capsys, mod, "short_only", out)
    assert code == 2
    io = table(out / "summary.csv")["io"]
    assert io["no_answer"] == "3" and io["median_error"] == "" and io["median_ci_low"] == ""
    assert io["solved"] == "0"
    assert "| io |  | 3 | 3 | n/a |" in stdout
    svg = (out / "errors.svg").read_text()
    assert 'id="box-io-' not in svg and 'id="answered-io-' in svg and "0 of 3" in svg


def test_an_eval_the_model_answered_throughout_shows_no_such_column(capsys, mod, tmp_path):
    out = tmp_path / "e"
    code, stdout, err = run_eval(capsys, mod, "always", out)
    assert code == 0, err
    assert table(out / "summary.csv")["io"]["no_answer"] == "0"
    assert "no answer" not in stdout.lower()
    assert "answered-io" not in (out / "errors.svg").read_text()


def test_compare_counts_each_runs_unanswered_rows_and_leaves_them_out(capsys, mod, tmp_path):
    assert run_eval(capsys, mod, "always", tmp_path / "a")[0] == 0
    assert run_eval(capsys, mod, "short_only", tmp_path / "b")[0] == 2
    code, out, err = run_cli(
        capsys, "compare", str(tmp_path / "a"), str(tmp_path / "b"), "--format", "csv"
    )
    assert code == 0, err
    io = table_text(out)["io"]
    assert io["samples"] == "2" and io["solved_run"] == "2"  # on the rows both answered
    assert (io["no_answer_baseline"], io["no_answer_run"]) == ("0", "3")
    code, out, _ = run_cli(capsys, "compare", str(tmp_path / "a"), str(tmp_path / "b"))
    assert "never answered them (not solved): io at " in out


def table_text(text: str) -> dict[str, dict[str, str]]:
    return {row["scheme"]: row for row in csv.DictReader(text.splitlines())}


def pair(sample: int, *, answered: bool, solved: bool) -> PairResult:
    return PairResult(
        scheme="io", sample=sample, error=0.0 if solved else 4.0,
        clipped_error=0.0 if solved else 4.0, solved=solved, status=ResultStatus.CLEAN, requests=1,
        completions=1 if answered else 0, tokens=10, cost=0.0, wall_seconds=0.0, depth=1,
        volume=1, model="m", simulated=False, calls=1,
    )  # fmt: skip


def test_an_unanswered_pair_is_not_solved_even_if_its_placeholder_matches():
    """An already-sorted input echoed back by the placeholder equals the reference: still no
    answer of the model, so not solved, and not a 0-error measurement."""
    rows = [pair(0, answered=True, solved=False), pair(1, answered=False, solved=True)]
    (row,) = summarise(rows, ["io"], "sorting")
    assert row.solved == 0 and row.no_answer == 1 and row.median == 4.0
    assert "| io |  | 2 | 1 | 4 |" in to_markdown([row], "t", "", "sorting", 32)
