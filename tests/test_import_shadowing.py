"""A task file's folder (and the current directory) never shadow installed packages
(io/imports.py): they go last on `sys.path`. Put first, a file `orjson.py` beside a task file
replaced the real orjson for everything imported after it, the lean transport's request body
included. The server is tests/fake_openai.py on 127.0.0.1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from thoughtgraph.tasks import get_task

from .fake_openai import FakeOpenAI
from .test_resume import cli_env

TASK = """\
name: things
description: List the things.
answer:
  type: strings
split:
  by: lines
join: union
score:
  by: function
  function: {module}:score
"""


@pytest.mark.slow
def test_an_orjson_py_beside_a_task_file_does_not_replace_orjson(tmp_path: Path) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir(), elsewhere.mkdir()
    (project / "orjson.py").write_text("raise RuntimeError('the orjson.py beside the task')\n")
    (project / "thing_score.py").write_text("def score(answer, problem):\n    return 0\n")
    (project / "things.yaml").write_text(TASK.format(module="thing_score"))
    with FakeOpenAI() as server:
        argv = [
            sys.executable,
            "-m",
            "thoughtgraph.cli.main",
            "solve",
            str(project / "things.yaml"),
        ]
        argv += ["--input", "a\nb", "--model", "openai:m", "--base-url", server.base_url]
        run = subprocess.run(
            [*argv, "--max-retries", "0", "--no-progress"],
            cwd=elsewhere,
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        sent = len(server.requests)
    assert "Traceback" not in run.stderr and "orjson.py beside" not in run.stderr, run.stderr
    assert run.returncode in (0, 1) and sent > 0


def test_a_module_named_like_an_installed_one_is_named_in_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "json.py").write_text("def score(answer, problem):\n    return 0\n")
    (tmp_path / "t.yaml").write_text(TASK.format(module="json"))
    with pytest.raises(LookupError) as info:
        get_task(str(tmp_path / "t.yaml"))
    assert str(info.value).endswith(
        f"module 'json' has no attribute 'score' (the installed module 'json' was imported, "
        f"not {tmp_path / 'json.py'}: an installed module comes first; rename the file)"
    )
