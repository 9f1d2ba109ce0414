"""A model-judged answer whose rating cannot be read is *unrated*: never a 0, never "clean".

The defect this guards: `eval examples/summary/task.yaml ...` against a real small model reported
every row "clean", error 0 and "median model score 0.00" when no reply held a rating. Now the run
is "not clean", `Result.rating` is None, the eval row says `unrated`, and summaries count such
rows apart instead of folding a placeholder 0 into the median.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.fake_openai import FakeOpenAI
from tests.task_helpers import ScriptedServer, model_flags, run_cli, run_solve
from thoughtgraph.tasks import get_task
from thoughtgraph.tasks.base import model_score

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "summary"
TASK = str(EXAMPLES / "task.yaml")
DATA = str(EXAMPLES / "data.jsonl")
SUMMARY = "The board met on 4 March and decided to repair the roof by 30 September."


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def rates(rating: str | None, *, only: str | None = None):
    """A model that summarises, and rates with `rating` (None: a reply holding no rating), or
    rates only the report whose text holds `only` and leaves the others unrated."""

    def play(prompt: str) -> str:
        if "Rate the answer" not in prompt:
            return SUMMARY
        if rating is None or (only is not None and only not in prompt):
            return "The summary is good and covers the report well."  # no rating in it
        return f"It keeps the decisions.\nScore: {rating}"

    return play


def run_eval(capsys, server: FakeOpenAI, out: Path) -> tuple[int, str, str, list[dict]]:
    code, stdout, err = run_cli(
        capsys, "eval", TASK, "--data", DATA, "--schemes", "io", "--out", str(out),
        "--no-progress", *model_flags(server),
    )  # fmt: skip
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return code, stdout, err, rows


def summary_row(out: Path) -> dict[str, str]:
    with (out / "summary.csv").open() as handle:
        return next(csv.DictReader(handle))


def test_eval_of_unreadable_ratings_reports_every_row_unrated_not_a_clean_zero(capsys, tmp_path):
    with ScriptedServer(rates(None)) as server:
        code, stdout, err, rows = run_eval(capsys, server, tmp_path / "e")
    assert code == 0, err
    assert len(rows) == 3
    for row in rows:
        assert row["unrated"] is True
        assert row["final_score"] is None  # not the placeholder 0
        assert row["status"] == "not clean"
    assert "| io |  | 3 | n/a | | n/a | 3 |" in stdout  # median n/a, 3 unrated
    assert "note: 3 of 3 pairs unrated" in err
    row = summary_row(tmp_path / "e")
    assert row["median_score"] == "" and row["unrated"] == "3"


def test_eval_medians_only_the_rated_rows_and_counts_the_others(capsys, tmp_path):
    with ScriptedServer(rates("8", only="Westfield")) as server:
        code, stdout, err, rows = run_eval(capsys, server, tmp_path / "e")
    assert code == 0, err
    by_id = {row["sample"]: row for row in rows}
    assert by_id["westfield"]["final_score"] == 8.0 and not by_id["westfield"]["unrated"]
    assert by_id["westfield"]["status"] == "clean"
    assert [by_id[s]["unrated"] for s in ("clinic", "harbour")] == [True, True]
    row = summary_row(tmp_path / "e")
    # the median of the one rated row, not of (8, 0, 0)
    assert float(row["median_score"]) == 8.0 and row["unrated"] == "2"
    assert "note: 2 of 3 pairs unrated" in err
    # the task file's own words, not doc-merge's
    assert "against the task file's rubric" in stdout and "redundancy" not in stdout


def test_eval_of_readable_ratings_has_no_unrated_rows(capsys, tmp_path):
    with ScriptedServer(rates("6")) as server:
        code, _, err, rows = run_eval(capsys, server, tmp_path / "e")
    assert code == 0, err
    assert all(row["final_score"] == 6.0 and not row["unrated"] for row in rows)
    assert summary_row(tmp_path / "e")["unrated"] == "0"
    assert "unrated" not in err


def test_a_failed_rating_request_leaves_the_answer_unrated(capsys, tmp_path):
    """The rating request fails (500, no retry): no rating arrived, so none is reported."""

    def ratings_fail(body) -> str | None:
        return "500" if "Rate the answer" in json.dumps(body) else None

    with FakeOpenAI(fault_when=ratings_fail) as server:
        code, _, err, rows = run_eval(capsys, server, tmp_path / "e")
    assert code == 0, err
    assert all(row["unrated"] and row["final_score"] is None for row in rows)


def test_solve_says_unrated_and_not_clean_when_no_rating_is_read(capsys, tmp_path):
    row = tmp_path / "row.json"
    row.write_text(
        json.dumps({"input": json.loads(Path(DATA).read_text().splitlines()[0])["input"]})
    )
    with ScriptedServer(rates(None)) as server:
        code, out, err = run_solve(
            capsys, server, TASK, "--input-file", str(row), "--scheme", "io", "--json"
        )
    assert code == 0, err  # a finished run: exit 1 is for a stopped one
    result = json.loads(out)
    assert result["status"] == "not clean"
    assert result["rating"] is None and result["rating_scale"] == 10
    assert any("no rating could be read" in e for e in result["errors"])
    with ScriptedServer(rates(None)) as server:
        code, out, _ = run_solve(capsys, server, TASK, "--input-file", str(row), "--scheme", "io")
    assert "rating:  none: the model's replies held no readable rating" in out


def test_solve_reports_the_rating_it_read(capsys, tmp_path):
    row = tmp_path / "row.json"
    row.write_text(
        json.dumps({"input": json.loads(Path(DATA).read_text().splitlines()[0])["input"]})
    )
    with ScriptedServer(rates("7")) as server:
        code, out, err = run_solve(
            capsys, server, TASK, "--input-file", str(row), "--scheme", "io", "--json"
        )
    assert code == 0, err
    result = json.loads(out)
    assert result["status"] == "clean" and result["rating"] == 7.0
    assert result["rating_scale"] == 10


def test_model_scores_mark_an_unreadable_or_missing_rating_unrated():
    docmerge = get_task("doc-merge")
    for task in (docmerge, get_task(TASK)):
        none_read = model_score(task, ["nothing to see here"])
        assert none_read.unrated and none_read.rated_by_model
        assert model_score(task, []).unrated  # the request failed: no reply at all
    read = model_score(get_task(TASK), ["Score: 4", "Score: 6"])
    assert read.value == 5.0 and read.rated_by_model and not read.unrated
