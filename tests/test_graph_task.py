"""Graph files say which task they were built for: `tune` writes `task:` (and `size:`) into
best.yaml and the fronts; `solve --graph` and `eval --graph` of another task refuse such a file
in one line, before any request; a graph file without the line runs on any task."""

from __future__ import annotations

from pathlib import Path

import pytest

from thoughtgraph.engine.graph import Graph
from thoughtgraph.errors import GraphError

from .conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
PEOPLE = ROOT / "examples" / "people"
REFUSED = (
    "was built for task 'sorting', not 'people': tune one for 'people', or drop its task: line "
    "to run it anyway\n"
)


@pytest.fixture(scope="module")
def best(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """best.yaml of a small tune of sorting at size 16 on the simulated model."""
    pytest.importorskip("optuna")
    folder = tmp_path_factory.mktemp("tune")
    from thoughtgraph.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(["tune", "sorting", "--size", "16", "--trials", "2", "--pilot", "2",
              "--holdout", "1", "--out", str(folder), "--schemes", "got"])  # fmt: skip
    assert stop.value.code in (0, None)
    return folder / "best.yaml"


@pytest.fixture
def no_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A `py:` model that fails the test if it is ever called."""
    (tmp_path / "never.py").write_text(
        "def answer(prompt):\n    raise AssertionError('the model was called')\n"
    )
    monkeypatch.chdir(tmp_path)
    return "py:never:answer"


def test_tune_writes_the_task_and_size_into_its_graph_files(best):
    graph = Graph.load(best)
    assert (graph.task, graph.size) == ("sorting", 16)
    assert best.read_text().count("task: sorting") == 1
    for front in best.parent.glob("front-*.yaml"):
        assert Graph.load(front).task == "sorting"


def test_solve_refuses_a_graph_of_another_task_in_one_line(capsys, best, no_calls):
    code, _, err = run_cli(
        capsys, "solve", str(PEOPLE / "task.yaml"), "--input-file", str(PEOPLE / "story.txt"),
        "--graph", str(best), "--model", no_calls, "--no-progress",
    )  # fmt: skip
    assert code == 2 and err == f"error: {best}: the graph {REFUSED}"


def test_eval_refuses_a_graph_of_another_task_before_any_request(capsys, tmp_path, best, no_calls):
    out = tmp_path / "out"
    code, _, err = run_cli(
        capsys, "eval", str(PEOPLE / "task.yaml"), "--data", str(PEOPLE / "data.jsonl"),
        "--schemes", "io", "--graph", str(best), "--model", no_calls, "--out", str(out),
        "--no-progress",
    )  # fmt: skip
    assert code == 2 and err == f"error: graph best {REFUSED}"
    assert not out.exists()


def test_a_graph_file_without_a_task_runs_on_any_task(capsys, tmp_path, best):
    untagged = tmp_path / "io.yaml"
    untagged.write_text(Graph.load(best).model_copy(update={"task": None}).to_yaml())
    assert "task:" not in untagged.read_text()
    code, _, err = run_cli(
        capsys, "solve", "sorting", "-i", "[3, 1, 2]", "--graph", str(untagged),
        "--model", "sim:error=0", "--no-progress",
    )  # fmt: skip
    assert code == 0, err


@pytest.mark.parametrize("task", ["", " sorting", 3, "a\nb"])
def test_a_task_line_that_names_no_task_is_one_line(task):
    with pytest.raises(GraphError, match=r'^"task" must be the name of a task'):
        Graph.from_dict({"task": task, "ops": [{"id": "a", "kind": "generate"}]})
