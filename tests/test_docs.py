"""The user-defined task in docs/tasks.md runs as written (with a scripted model)."""

from __future__ import annotations

import json
import re
from pathlib import Path

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


def test_the_documented_custom_task_runs_and_solves_cleanly(capsys):
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL).group(1)
    namespace = {"my_model": flawless_words_model}
    exec(compile(code, str(DOC), "exec"), namespace)
    result = namespace["result"]
    assert result.status == "clean"
    assert result.output == ["and", "cat", "dog", "log", "mat", "on", "sat", "the"]
    assert result.calls_by_kind["part"] == 2  # 39 words in parts of 20
    assert "clean" in capsys.readouterr().out
