"""A user's task from a module (import string) and from an installed plugin runs through `eval`
and `tune` on a `--data` file, against the loopback OpenAI-compatible server, as it does through
`solve` (tests/test_task_sources.py)."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.task_helpers import (
    EVENS_MODULE,
    ScriptedServer,
    model_flags,
    play_evens,
    run_cli,
    write_module,
    write_plugin,
)

ROWS = [{"id": f"r{i}", "input": [(5 * i + j) % 13 for j in range(6)]} for i in range(4)]


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(play_evens) as served:
        yield served


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


@pytest.fixture
def module_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """`user_tasks_XXXX:EvensTask` in the working directory (imported from there)."""
    name = f"user_tasks_{uuid.uuid4().hex[:8]}"
    write_module(tmp_path, name)
    monkeypatch.chdir(tmp_path)
    yield f"{name}:EvensTask"
    sys.modules.pop(name, None)


@pytest.fixture
def plugin_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A task name that an installed distribution's `thoughtgraph.tasks` entry point adds."""
    package = f"tg_plugin_{uuid.uuid4().hex[:8]}"
    task = f"evens-{package[-8:]}"
    write_plugin(tmp_path, package, {task: f"{package}:make_task"}, EVENS_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield task
    sys.modules.pop(package, None)


@pytest.mark.parametrize("source", ["module_task", "plugin_task"])
def test_a_users_task_runs_through_eval_on_a_data_file(capsys, request, server, data, source):
    task = request.getfixturevalue(source)
    out = data.parent / "eval"
    code, stdout, err = run_cli(
        capsys, "eval", task, "--data", str(data), "--schemes", "got", "--out", str(out),
        "--no-progress", *model_flags(server),
    )  # fmt: skip
    assert code == 0, err
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(str(row["sample"]) for row in rows) == [row["id"] for row in ROWS]
    # the scripted server keeps the even numbers exactly: every row is solved with no error
    assert all(row["error"] == 0 for row in rows), rows
    assert "| got |" in stdout
    assert len(server.requests) >= len(ROWS)


@pytest.mark.parametrize("source", ["module_task", "plugin_task"])
def test_a_users_task_runs_through_tune_on_a_data_file(capsys, request, server, data, source):
    pytest.importorskip("optuna")
    task = request.getfixturevalue(source)
    out = data.parent / "tune"
    code, _, err = run_cli(
        capsys, "tune", task, "--data", str(data), "--trials", "2", "--pilot", "2",
        "--holdout", "1", "--schemes", "got", "--out", str(out), *model_flags(server),
    )  # fmt: skip
    assert code == 0, err
    assert (out / "best.yaml").is_file()
    assert len(server.requests) > 0


@pytest.mark.parametrize("command", ["eval", "tune"])
def test_a_users_task_that_cannot_be_found_is_one_line_and_no_request(
    capsys, server, data, tmp_path, monkeypatch, command
):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(
        capsys, command, "no_such_module_xyz:Task", "--data", str(data), "--schemes", "got",
        "--out", str(tmp_path / command), *model_flags(server),
    )  # fmt: skip
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert len(server.requests) == 0


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("example", ["people", "summary"])
def test_each_shipped_task_file_runs_through_eval_on_its_shipped_data(capsys, tmp_path, example):
    from tests.task_helpers import play_people

    out = tmp_path / example
    rows = (EXAMPLES / example / "data.jsonl").read_text().splitlines()
    with ScriptedServer(play_people) as served:
        code, stdout, err = run_cli(
            capsys, "eval", str(EXAMPLES / example / "task.yaml"), "--data",
            str(EXAMPLES / example / "data.jsonl"), "--schemes", "io,got", "--out", str(out),
            "--no-progress", *model_flags(served),
        )  # fmt: skip
        assert code == 0, err
        assert len(served.requests) > 0
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(results) == 2 * len(rows)
    assert {row["scheme"] for row in results} == {"io", "got"}
    assert "| got |" in stdout


def test_a_task_file_tunes_on_its_data_and_its_best_graph_runs_in_eval_and_solve(capsys, tmp_path):
    """examples/people through `tune` on every shipped row (museum has 3 paragraphs, the others
    4): the baselines and the front run on every held-out row, and best.yaml then runs unchanged
    in `eval --graph` beside the schemes and in `solve --graph` on one row."""
    pytest.importorskip("optuna")
    import csv

    from tests.task_helpers import play_people

    task, rows = str(EXAMPLES / "people" / "task.yaml"), str(EXAMPLES / "people" / "data.jsonl")
    out = tmp_path / "tune"
    with ScriptedServer(play_people) as served:
        code, stdout, err = run_cli(
            capsys, "tune", task, "--data", rows, "--trials", "3", "--pilot", "3",
            "--holdout", "3", "--schemes", "got", "--out", str(out), *model_flags(served),
        )  # fmt: skip
        assert code == 0, err
        assert "failed" not in stdout, stdout
        table = {row["name"]: row for row in csv.DictReader((out / "front.csv").open())}
        # the default got is built for each row as eval builds it: 3 parts on museum's 3
        # paragraphs, 4 on the others'
        assert float(table["got (default)"]["holdout_error"]) < float("inf"), table
        assert "parts=3-4" in table["got (default)"]["graph"]
        code, stdout, err = run_cli(
            capsys, "eval", task, "--data", rows, "--schemes", "io", "--graph",
            str(out / "best.yaml"), "--out", str(tmp_path / "eval"), "--no-progress",
            *model_flags(served),
        )  # fmt: skip
        assert code == 0, err
        lines = (tmp_path / "eval" / "results.jsonl").read_text().splitlines()
        best = [r for r in map(json.loads, lines) if r["scheme"] == "best"]
        assert len(best) == 6, best
        assert all(r["completions"] > 0 and r["stop_reason"] is None for r in best), best
        assert "| best |" in stdout
        code, stdout, err = run_cli(
            capsys, "solve", task, "--data", rows, "--id", "museum", "--graph",
            str(out / "best.yaml"), "--no-progress", *model_flags(served),
        )  # fmt: skip
        assert code == 0, err
        assert "output matches the reference" in stdout


def test_a_users_task_also_tries_its_own_part_size_and_one_part():
    from thoughtgraph.tasks import get_task
    from thoughtgraph.tuning.space import part_sizes

    get_task(str(EXAMPLES / "people" / "task.yaml"))  # loaded: its part_size is 1 paragraph
    assert part_sizes(3, "people") == [1, 2, 3]
    assert part_sizes(32, "sorting") == [2, 4, 8, 16]  # a built-in's space is unchanged
