"""The user-defined task in docs/tasks.md runs as written (with a scripted model)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from thoughtgraph.testing import prompt_kind, section

DOC = Path(__file__).resolve().parents[1] / "docs" / "tasks.md"


def flawless_words_model(prompt: str) -> str:
    kind = prompt_kind(prompt)
    if kind == "part":
        words = json.loads(section(prompt, "part"))
    elif kind == "merge":
        words = json.loads(section(prompt, "a")) + json.loads(section(prompt, "b"))
    else:
        words = json.loads(section(prompt, "result"))
    return json.dumps(sorted(set(words)))


def python_block(heading: str) -> str:
    """The first Python block of docs/tasks.md after `heading`."""
    text = DOC.read_text().split(heading, 1)[1]
    return re.search(r"```python\n(.*?)```", text, re.DOTALL).group(1)


def test_the_documented_custom_task_runs_and_solves_cleanly(capsys):
    code = python_block("## Your own task in a few dozen lines")
    namespace = {"my_model": flawless_words_model}
    exec(compile(code, str(DOC), "exec"), namespace)
    result = namespace["result"]
    assert result.status == "clean"
    assert result.output == ["and", "cat", "dog", "log", "mat", "on", "sat", "the"]
    assert result.calls_by_kind["part"] == 2  # 39 words in parts of 20
    assert "clean" in capsys.readouterr().out


@pytest.mark.slow
def test_the_five_minute_python_block_runs_as_written(tmp_path, monkeypatch):
    """The 5-minute section of docs/tasks.md: evaluate, to_pandas, tune, the pick evaluated."""
    pytest.importorskip("pandas")
    pytest.importorskip("optuna")
    shutil.copytree(DOC.parents[1] / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    namespace: dict = {}
    exec(compile(python_block("## Your own problem in 5 minutes"), str(DOC), "exec"), namespace)
    results, found = namespace["results"], namespace["found"]
    assert results.schemes == ("io", "cot", "got") and len(results.results) == 18
    assert (tmp_path / "runs" / "people" / "summary.md").is_file()
    assert len(results.to_pandas()) == 18 and found.best.size is not None
