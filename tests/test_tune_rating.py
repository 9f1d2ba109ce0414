"""A model-scored task is tuned on the model's rating of the final answer, the measure eval
reports, not on the code's error count (0 for free text: nothing to check). Every trial graph is
judged as eval judges it, the tune minimises `scale - rating`, an unrated answer counts as the
worst and is counted, and the report names the objective."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.task_helpers import EXAMPLES, ScriptedServer, model_flags, play_summary, run_cli
from thoughtgraph.tuning import report
from thoughtgraph.tuning.jobs import Setup, _measure

TASK = str(EXAMPLES / "summary" / "task.yaml")
DATA = str(EXAMPLES / "summary" / "data.jsonl")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def test_a_model_scored_task_file_is_tuned_on_the_rating_eval_reports(capsys, tmp_path):
    """The scripted model rates a summary 2 a sentence: one part of the whole report gets 2,
    two parts get 4 (and cost more). An error-count tune sees 0 everywhere and picks the
    cheapest graph; a rating tune picks the better-rated one, and eval of its best.yaml
    reports the rating the tune measured."""
    pytest.importorskip("optuna")
    out = tmp_path / "tune"
    with ScriptedServer(play_summary) as served:
        code, stdout, err = run_cli(
            capsys, "tune", TASK, "--data", DATA, "--schemes", "got", "--trials", "4",
            "--pilot", "2", "--holdout", "1", "--out", str(out), *model_flags(served),
        )  # fmt: skip
        assert code == 0, err
        assert "objective: the model rating shortfall, 10 - the model's rating" in err
        assert "rating 4.00/10" in err and "rating 2.00/10" in err, err
        assert "| tune rating (0-10) |" in stdout and "tune error" not in stdout
        table = list(csv.DictReader((out / "front.csv").open()))
        pick = next(row for row in table if row["mark"] == "pick")
        assert float(pick["tune_rating"]) == 4.0 and "parts=2" in pick["graph"], table
        assert float(pick["holdout_rating"]) == 4.0 and pick["holdout_unrated"] == "0"
        # the cheaper one-part graph is on the front, and rated lower
        cheap = [r for r in table if r["mark"] == "front" and "parts=1" in r["graph"]]
        assert cheap and float(cheap[0]["tune_rating"]) == 2.0, table
        assert float(cheap[0]["tune_cost"]) < float(pick["tune_cost"])
        assert "model rating 4/10" in (out / "best.yaml").read_text().splitlines()[1]
        # the graph file has no judge of its own: eval adds it, and reports the same rating
        assert "judge" not in (out / "best.yaml").read_text()
        code, _, err = run_cli(
            capsys, "eval", TASK, "--data", DATA, "--schemes", "io", "--graph",
            str(out / "best.yaml"), "--out", str(tmp_path / "eval"), "--no-progress",
            *model_flags(served),
        )  # fmt: skip
        assert code == 0, err
    lines = (tmp_path / "eval" / "results.jsonl").read_text().splitlines()
    best = {r["sample"]: r for r in map(json.loads, lines) if r["scheme"] == "best"}
    assert {name: r["final_score"] for name, r in best.items()} == {
        "westfield": 4.0,
        "harbour": 4.0,
        "clinic": 4.0,
    }


def result(rating: float | None, scale: int | None = 10, errors: float = 0.0) -> SimpleNamespace:
    spend = SimpleNamespace(tokens=0, saved_tokens=0, cost=0.0, saved_cost=0.0, requests=3)
    return SimpleNamespace(
        spend=spend, completions=3, error_count=errors, output="text", clean=True,
        stop_reason=None, rating=rating, rating_scale=scale,
    )  # fmt: skip


def test_the_shortfall_is_scale_minus_rating_and_an_unrated_answer_is_the_worst():
    rated = Setup(task="summary", size=4, model_spec="m", rating_scale=10)
    assert _measure(rated, result(7.5), None)["error"] == 2.5
    unread = _measure(rated, result(None), None)
    assert unread["error"] == 10 and unread["unrated"] is True
    # the code's error count is not the objective of a rated task, nor the rating of another
    assert _measure(rated, result(10.0, errors=3), None)["error"] == 0
    counted = Setup(task="sorting", size=32, model_spec="m")
    assert _measure(counted, result(None, None, errors=3), None)["error"] == 3


def test_the_report_shows_ratings_and_counts_unrated_answers():
    rated = report.Objective(10)
    row = report.Row("trial 1", "got parts=2", graph=None, tune_error=2.5, tune_cost=6.0)  # type: ignore[arg-type]
    row.tune_unrated, row.holdout_error, row.holdout_cost, row.holdout_unrated = 1, 6.0, 6.0, 2
    text = report.table_markdown([row], "completions", "t", "note", rated)
    assert "| 7.5 (1 unrated) | 6 | 4 | 6 | 2 |" in text
    frame = list(csv.DictReader(report.table_csv([row], rated).splitlines()))
    assert frame[0]["tune_rating"] == "7.5" and frame[0]["holdout_unrated"] == "2"
    assert "tune_error" not in frame[0]
    assert rated.goal(8) == 2  # --target is the rating to reach


def test_a_target_above_the_scale_is_one_line(capsys, tmp_path):
    pytest.importorskip("optuna")
    code, _, err = run_cli(
        capsys, "tune", TASK, "--data", DATA, "--target", "11", "--pilot", "2", "--holdout", "1",
        "--out", str(tmp_path / "t"),
        "--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1",
    )  # fmt: skip
    assert code == 2 and err.count("\n") == 1, err
    assert "--target is the model rating the pick must reach on summary (0-10), got 11" in err


def test_got_searches_only_its_parts_where_code_checks_nothing():
    from thoughtgraph.tasks import get_task
    from thoughtgraph.tuning import space

    get_task(TASK)
    assert space.fixed("got", "summary") == {
        "got.max_regenerations": 0,
        "got.max_extra_merges": 0,
        "got.max_refines": 0,
    }
    assert space.fixed("got", "sorting") == {} and space.fixed("got_paper", "summary") == {}
    assert space.part_sizes(4, "summary") == [2, 4]
    assert Path(TASK).is_file()
