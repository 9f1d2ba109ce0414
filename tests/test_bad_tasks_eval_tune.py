"""Every way naming a task can go wrong is one `error:` line, exit 2 and no request sent in
`eval` and `tune` too, as it is in `solve` (tests/test_task_sources.py): a task file with a
mistake, a missing file, a module whose import raises, an object that is not a task."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.task_helpers import ScriptedServer, model_flags, play_evens, run_cli, write_module
from tests.test_task_files import BASE

BAD_FILE = BASE.replace("by: lines", "by: words")  # a valid task file, one mistake


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(play_evens) as served:
        yield served


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str, str]]:
    """The working directory: a module of tasks, a module whose import raises, a bad task file
    and a data file."""
    name, bad = f"user_tasks_{uuid.uuid4().hex[:8]}", f"bad_{uuid.uuid4().hex[:8]}"
    write_module(tmp_path, name)
    (tmp_path / f"{bad}.py").write_text("raise RuntimeError('the database is down')\n")
    (tmp_path / "bad.yaml").write_text(BAD_FILE)
    (tmp_path / "rows.jsonl").write_text(json.dumps({"input": [1, 2, 3]}) + "\n")
    monkeypatch.chdir(tmp_path)
    yield tmp_path, name, bad
    sys.modules.pop(name, None)
    sys.modules.pop(bad, None)


CASES = [
    ("bad.yaml", "task file bad.yaml: split.by: must be one of"),
    ("missing/task.yaml", "cannot read task file missing/task.yaml: no such file"),
    ("{bad}:Task", "importing {bad} raised RuntimeError: the database is down"),
    ("{module}:NotATask", "is not a task: NotATask lacks"),
    ("{module}:Missing", "has no attribute 'Missing'"),
]


@pytest.mark.parametrize("command", ["eval", "tune"])
@pytest.mark.parametrize(("task", "expected"), CASES)
def test_a_bad_task_is_one_line_exit_2_and_no_request(
    capsys, server, user_dir, command, task, expected
):
    folder, module, bad = user_dir
    task, expected = (s.format(module=module, bad=bad) for s in (task, expected))
    argv = [command, task, "--data", "rows.jsonl", "--schemes", "got", "--out", str(folder / "o")]
    argv += model_flags(server)
    code, out, err = run_cli(capsys, *argv)
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert expected in err, err
    assert "Traceback" not in err + out
    assert server.requests == []
