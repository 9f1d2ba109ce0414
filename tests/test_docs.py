"""The user-defined task in docs/tasks.md runs as written (with a scripted model)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from thoughtgraph.testing import prompt_kind, section

from .conftest import run_cli

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


def shell_commands(heading: str) -> list[list[str]]:
    """The `thoughtgraph` commands of the first bash block of docs/tasks.md after `heading`, as
    argument lists (continued lines joined)."""
    text = DOC.read_text().split(heading, 1)[1]
    block = re.search(r"```bash\n(.*?)```", text, re.DOTALL).group(1)
    lines = block.replace("\\\n", " ").splitlines()
    return [shlex.split(line)[1:] for line in lines if line.startswith("thoughtgraph ")]


def test_the_task_class_of_the_five_minutes_runs_every_scheme_as_written(
    capsys, tmp_path, monkeypatch
):
    """`examples/products`: the commands run, and the solved counts are those the text gives."""
    shutil.copytree(DOC.parents[1] / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    commands = shell_commands("### A task class instead of a file")
    assert [c[0] for c in commands] == ["solve", "eval"]
    for command in commands:
        code, _, err = run_cli(capsys, *command)
        assert code == 0, err
    lines = (tmp_path / "runs" / "products" / "results.jsonl").read_text().splitlines()
    solved: dict[str, int] = {}
    for row in map(json.loads, lines):
        solved[row["scheme"]] = solved.get(row["scheme"], 0) + bool(row["solved"])
    assert solved == {"io": 2, "cot": 2, "tot": 4, "got": 6, "got_paper": 4}
    data = (tmp_path / "examples" / "products" / "data.jsonl").read_text().splitlines()
    references = [json.loads(line)["reference"] for line in data]
    assert all(sorted(r) != r for r in references)  # "by equality none would be solved"


def test_the_prompts_example_sends_its_own_prompts_and_the_baselines_for_the_rest(monkeypatch):
    monkeypatch.chdir(DOC.parents[1])
    monkeypatch.setattr(sys, "path", [str(DOC.parents[1]), *sys.path])
    namespace: dict = {}
    exec(compile(python_block("## Prompts"), str(DOC), "exec"), namespace)
    result = namespace["result"]
    assert result.output == ["Blue Mug", "Oak Board", "Tea Towel"]
    sent = {call.kind: call.prompt for call in result.state.calls.values()}
    assert sent["io"].endswith("Reply with a JSON list of strings, one product each, nothing else.")
    assert sent["improve"].startswith("Each line of the order log names one product.")
    assert "<answer>" in sent["improve"] and "Reply with the corrected answer" in sent["improve"]
