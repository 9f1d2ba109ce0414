"""A task from anywhere: a user's module (import string), an installed plugin (entry point) and
a task file each run through `solve` against the loopback OpenAI-compatible server; every way
naming a task can go wrong is one `error:` line, exit 2, and no request sent."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.task_helpers import (
    ScriptedServer,
    play_evens,
    play_people,
    run_solve,
    solve_example,
    write_module,
    write_plugin,
)
from thoughtgraph.tasks import get_task

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@pytest.fixture
def evens_server() -> Iterator[ScriptedServer]:
    with ScriptedServer(play_evens) as server:
        yield server


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    """A user's working directory holding a module of tasks under a fresh name."""
    name = f"user_tasks_{uuid.uuid4().hex[:8]}"
    write_module(tmp_path, name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])
    yield tmp_path, name
    sys.modules.pop(name, None)


@pytest.mark.parametrize("attribute", ["EvensTask", "TASK", "make_task"])
def test_a_task_class_instance_or_factory_in_the_users_module_runs_through_solve(
    capsys, evens_server, user_dir, attribute
):
    _, module = user_dir
    code, out, err = run_solve(
        capsys, evens_server, f"{module}:{attribute}", "--input", "[1, 2, 3, 4, 6, 7]", "--json"
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["output"] == [2, 4, 6] and result["status"] == "clean"
    assert result["task"] == "evens"
    assert len(evens_server.requests) >= 3  # three parts of two, each asked of the server


def test_an_installed_plugin_adds_a_task_name(capsys, evens_server, tmp_path, monkeypatch):
    package = f"tg_plugin_{uuid.uuid4().hex[:8]}"
    from tests.task_helpers import EVENS_MODULE

    write_plugin(tmp_path, package, {"evens-plugin": f"{package}:make_task"}, EVENS_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        code, out, err = run_solve(capsys, evens_server, "evens-plugin", "--input", "[2, 5, 8]")
        assert code == 0, err
        assert "[2, 8]" in out
        # the plugin's name is listed with the built-ins when a name is unknown
        code, _, err = run_solve(capsys, evens_server, "evenz", "--input", "[2]")
        assert code == 2 and "evens-plugin" in err and "sorting" in err
    finally:
        sys.modules.pop(package, None)


def test_a_task_file_runs_through_solve_with_its_reference(capsys, tmp_path):
    story = (EXAMPLES / "people" / "story.txt").read_text()
    row = json.loads((EXAMPLES / "people" / "data.jsonl").read_text().splitlines()[0])
    given = tmp_path / "row.json"
    given.write_text(json.dumps({"input": story, "reference": row["reference"]}))
    with ScriptedServer(play_people) as server:
        code, out, err = solve_example(
            capsys,
            server,
            "people",
            str(given),
            "--json",
        )
    assert code == 0, err
    result = json.loads(out)
    assert sorted(result["output"]) == sorted(row["reference"])
    assert result["status"] == "clean" and result["task"] == "people"


def test_a_reference_scored_task_file_without_reference_runs_and_says_so(capsys):
    with ScriptedServer(play_people) as server:
        code, out, err = solve_example(
            capsys,
            server,
            "people",
            str(EXAMPLES / "people" / "story.txt"),
            "--scheme",
            "io",
        )
    assert code == 0, err
    assert "note: task 'people' is scored against a reference and this input has none" in err
    assert "Ines Delacroix" in out


def test_the_graph_command_takes_every_form_of_task(capsys, user_dir):
    from tests.conftest import run_cli

    _, module = user_dir
    code, out, err = run_cli(
        capsys, "graph", "got", "--task", str(EXAMPLES / "people" / "task.yaml"), "--size", "5"
    )
    assert code == 0, err
    ops = json.loads(out)["ops"]
    assert sum(op["kind"] == "select" for op in ops) == 5  # part_size 1: a part a paragraph
    code, out, err = run_cli(capsys, "graph", "got", "--task", f"{module}:EvensTask", "--size", "6")
    assert code == 0, err
    assert sum(op["kind"] == "select" for op in json.loads(out)["ops"]) == 3  # part_size 2


BAD_MODULE = "raise RuntimeError('the database is down')\n"


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        ("no_such_module_zz:Task", "cannot load task 'no_such_module_zz:Task': no module named"),
        ("{module}:Missing", "has no attribute 'Missing'"),
        ("{module}:NotATask", "is not a task: NotATask lacks"),
        ("{module}:Broken", "calling it raised RuntimeError: cannot start"),
        ("{bad}:Task", "importing {bad} raised RuntimeError: the database is down"),
        ("{module}:", "unknown task"),
        ("juggling", "unknown task 'juggling' (known: doc-merge, "),
        ("missing/task.yaml", "cannot read task file missing/task.yaml: no such file"),
    ],
)
def test_each_bad_task_name_is_one_line_exit_2_and_no_request(
    capsys, evens_server, user_dir, task, expected
):
    folder, module = user_dir
    bad = f"bad_{uuid.uuid4().hex[:8]}"
    (folder / f"{bad}.py").write_text(BAD_MODULE)
    task = task.format(module=module, bad=bad)
    expected = expected.format(module=module, bad=bad)
    code, out, err = run_solve(capsys, evens_server, task, "--input", "[1, 2]")
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert expected in err, err
    assert "Traceback" not in err
    assert evens_server.requests == []
    sys.modules.pop(bad, None)


def test_a_plugin_that_cannot_load_is_one_line(capsys, evens_server, tmp_path, monkeypatch):
    write_plugin(tmp_path, "tg-broken-plugin", {"brokenplug": "tg_nowhere_module:Task"}, None)
    monkeypatch.syspath_prepend(str(tmp_path))
    code, _, err = run_solve(capsys, evens_server, "brokenplug", "--input", "[1]")
    assert code == 2 and err.count("\n") == 1
    assert "cannot load task plugin 'brokenplug' (tg_nowhere_module:Task)" in err
    assert "no module named 'tg_nowhere_module'" in err
    assert evens_server.requests == []


def test_the_simulated_model_refuses_a_task_file_instead_of_pretending(capsys):
    from tests.conftest import run_cli

    code, out, err = run_cli(
        capsys,
        "solve",
        str(EXAMPLES / "people" / "task.yaml"),
        "--input-file",
        str(EXAMPLES / "people" / "story.txt"),
    )
    assert code == 2 and out == ""
    assert "the simulated model only plays the built-in tasks" in err and "'people'" in err


def test_a_loaded_task_may_not_take_a_built_in_name(tmp_path):
    from thoughtgraph.errors import UnknownNameError

    path = tmp_path / "sorting.yaml"
    text = (EXAMPLES / "people" / "task.yaml").read_text().replace("name: people", "name: sorting")
    path.write_text(text)
    with pytest.raises(UnknownNameError, match="a built-in task's name"):
        get_task(str(path))


def test_a_loaded_task_is_found_again_by_its_name():
    task = get_task(str(EXAMPLES / "summary" / "task.yaml"))
    assert get_task("summary") is task
