"""A scorer that raises (a task file's `score.function`, a task class's `score`) or returns what
is not a Score stops the run with one line naming the scorer's file:line, and in an evaluation
the row and the scheme it was scoring: never a traceback, never a silent score."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from thoughtgraph.tasks.scorer import ScorerFailed, scored

from .conftest import run_cli

TASK_FILE = """\
name: words
description: List the words of the text.
answer:
  type: strings
  from_input: true
split:
  by: lines
join: union
score:
  by: function
  function: {module}:score
"""

SCORER = """\
def score(answer, problem):
    if len(answer) > 2:
        raise ValueError("too many words")
    return 0
"""

TASK_CLASS = """\
import json

from thoughtgraph import BaseTask, Score


class Words(BaseTask):
    name = "words-class"

    def parse_input(self, raw):
        return raw.split()

    def describe(self, problem):
        return "List the words of the text."

    def format(self):
        return "a JSON list of strings"

    def render(self, value):
        return json.dumps(value)

    def parse(self, text):
        return json.loads(text)

    def score(self, problem, content):
        return check(content)


def check(content):
    if len(content) > 2:
        raise KeyError("boom")
    return Score(0.0) if content else "no words"
"""

MODEL = """\
import json


def three(prompt):
    return json.dumps(["a", "b", "c"])


def none(prompt):
    return "[]"
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding a scorer, a task file, a task class and a model, each under a module
    name of this test's own (no other test's module of that name is reused)."""
    tag = f"t{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"scorer_{tag}.py").write_text(SCORER)
    (tmp_path / "task.yaml").write_text(TASK_FILE.format(module=f"scorer_{tag}"))
    (tmp_path / f"words_{tag}.py").write_text(TASK_CLASS)
    (tmp_path / f"model_{tag}.py").write_text(MODEL)
    rows = [{"id": "first", "input": "a b c", "reference": ["a", "b"]}]
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.chdir(tmp_path)
    for name in (f"scorer_{tag}", f"words_{tag}", f"model_{tag}"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    return tmp_path


def tag_of(folder: Path) -> str:
    return next(folder.glob("words_*.py")).stem.removeprefix("words_")


def test_a_task_files_scorer_that_raises_names_row_scheme_and_line(capsys, folder):
    tag = tag_of(folder)
    code, _, err = run_cli(
        capsys, "eval", "task.yaml", "--data", "rows.jsonl", "--schemes", "io",
        "--model", f"py:model_{tag}:three", "--out", "out", "--no-progress",
    )  # fmt: skip
    assert code == 2
    assert err.splitlines()[-1] == (
        f"error: rows.jsonl row 1, scheme io: score.function scorer_{tag}:score raised "
        f"ValueError: too many words (scorer_{tag}.py:3)"
    )
    assert "Traceback" not in err


def test_a_task_class_whose_score_raises_is_one_line_in_solve_and_eval(capsys, folder):
    tag = tag_of(folder)
    raising = TASK_CLASS.splitlines().index('        raise KeyError("boom")') + 1  # in check()
    line = f"the score of task 'words-class' raised KeyError: 'boom' (words_{tag}.py:{raising})"
    code, _, err = run_cli(
        capsys, "solve", f"words_{tag}:Words", "-i", "a b c d", "--scheme", "io",
        "--model", f"py:model_{tag}:three", "--no-progress",
    )  # fmt: skip
    assert (code, err) == (2, f"error: {line}\n")  # the helper's line, where it raised
    code, _, err = run_cli(
        capsys, "eval", f"words_{tag}:Words", "--data", "rows.jsonl", "--schemes", "io,cot",
        "--model", f"py:model_{tag}:three", "--out", "out", "--no-progress",
    )  # fmt: skip
    assert code == 2 and "Traceback" not in err
    assert err.splitlines()[-1].startswith("error: rows.jsonl row 1, scheme ")
    assert err.splitlines()[-1].endswith(line)


def test_a_score_that_is_not_a_score_is_one_line(capsys, folder):
    tag = tag_of(folder)
    code, _, err = run_cli(
        capsys, "solve", f"words_{tag}:Words", "-i", "a b", "--scheme", "io",
        "--model", f"py:model_{tag}:none", "--no-progress",
    )  # fmt: skip
    assert (code, err) == (
        2,
        "error: the score of task 'words-class' returned str, not a thoughtgraph Score\n",
    )


def test_the_line_named_is_the_scorers_own_not_a_librarys(tmp_path, monkeypatch):
    (tmp_path / "deep_scorer.py").write_text(
        textwrap.dedent(
            """\
            import json

            from thoughtgraph import BaseTask


            class Deep(BaseTask):
                name = "deep"

                def score(self, problem, content):
                    return json.loads(content)

                describe = format = parse = None
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "deep_scorer", raising=False)
    import deep_scorer

    with pytest.raises(ScorerFailed) as caught:
        scored(deep_scorer.Deep(), None, "not json")
    assert str(caught.value).endswith("(deep_scorer.py:10)")  # not json/decoder.py's line
