"""A `py:` model is keyed by its code: the answer cache never serves an edited function the old
function's answers, though the model's name (`py:mymod:answer`) stays the same."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import pytest

from thoughtgraph.io.sources import source_digest
from thoughtgraph.models.imported import ImportedModel

from .conftest import run_cli

MODEL = """
CALLS = []


def answer(prompt):
    CALLS.append(prompt)
    return "{reply}"


class Batch:
    def complete(self, prompt, n=1):
        return ["{reply}"] * n


BATCH = Batch()
"""


@pytest.fixture
def name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # an edit is read, never a stale .pyc
    return f"digested_{tmp_path.name.replace('-', '_')}"


def write(name: str, reply: str) -> None:
    """The user's file, edited; imported afresh, as a new process would."""
    Path(f"{name}.py").write_text(MODEL.format(reply=reply))
    sys.modules.pop(name, None)


def solve(capsys, name: str) -> dict[str, object]:
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--input", "[3, 1, 2]", "--scheme", "io", "--json",
        "--model", f"py:{name}:answer", "--cache", "answers.db", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    result: dict[str, object] = json.loads(out)
    return result


def test_an_edited_function_is_not_served_the_old_functions_cached_answer(capsys, name):
    write(name, "[3, 1, 2]")
    assert solve(capsys, name)["output"] == [3, 1, 2]
    write(name, "[1, 2, 3]")  # fixed
    assert solve(capsys, name)["output"] == [1, 2, 3]
    assert len(sys.modules[name].CALLS) == 1  # asked, not the cache's old answer
    write(name, "[1, 2, 3]")  # the same code again: its own answer is cached now
    assert solve(capsys, name)["output"] == [1, 2, 3] and sys.modules[name].CALLS == []


def test_a_py_models_code_is_among_its_settings(name):
    write(name, "a")
    before = ImportedModel.from_spec(f"{name}:answer", name).settings["code"]
    batch = ImportedModel.from_spec(f"{name}:BATCH", name).settings["code"]
    write(name, "a")
    assert ImportedModel.from_spec(f"{name}:answer", name).settings["code"] == before
    write(name, "b")
    assert ImportedModel.from_spec(f"{name}:answer", name).settings["code"] != before
    assert ImportedModel.from_spec(f"{name}:BATCH", name).settings["code"] != batch


def test_the_digest_is_of_what_defines_the_object():
    assert source_digest(json.dumps) == source_digest(json) == source_digest(json, json.dumps)
    assert source_digest(functools.partial(json.dumps, indent=1)) == source_digest(json.dumps)
    assert source_digest(json.JSONDecoder()) == source_digest(json.JSONDecoder)
    assert source_digest(json.dumps) != source_digest(functools.partial)
    assert source_digest(len) is None  # a builtin has no source to read
