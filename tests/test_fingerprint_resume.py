"""Resume only what is the same: a pair is reused only when what decided its answer has not
changed since (its fingerprint: the model and a `py:` model's code, the task, the row, the
graph, the prompts), and the answer cache keys a `py:` model by its code too.

The defect this guards: a rerun into the same `--out` after editing a `py:` model's code said
"6 pairs already done" and reported the old code's medians as the new model's; with `--cache`
the edited function was served the old function's answers.
"""

from __future__ import annotations

import csv
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from thoughtgraph.evaluation import fingerprint

from .conftest import run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

MODEL = """
import json

CALLS = []
DROP = {drop}  # the model's slip: how many of the smallest numbers it drops


def answer(prompt):
    CALLS.append(prompt)
    numbers = json.loads(prompt.rsplit("<input>", 1)[1].split("</input>")[0])
    return json.dumps(sorted(numbers)[DROP:])
"""

ROWS = [[3, 1, 2], [9, 7, 8, 6], [5, 4]]


class UserModule:
    """The user's model file: written, edited, and imported afresh as a new process would."""

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.name = f"mymodel_{folder.name.replace('-', '_')}"
        self.path = folder / f"{self.name}.py"
        self.monkeypatch = monkeypatch

    def write(self, drop: int) -> None:
        self.path.write_text(MODEL.format(drop=drop))
        self.monkeypatch.delitem(sys.modules, self.name, raising=False)

    @property
    def calls(self) -> list[str]:
        module: ModuleType = sys.modules[self.name]
        return list(module.CALLS)


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> UserModule:
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps({"input": r}) + "\n" for r in ROWS))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # an edit is read, never a stale .pyc
    mine = UserModule(tmp_path, monkeypatch)
    mine.write(drop=0)
    return mine


def run_eval(capsys, user: UserModule, out: str, *extra: str) -> tuple[int, str]:
    code, _, err = run_cli(
        capsys, "eval", "sorting", "--data", "rows.jsonl", "--schemes", "io,cot",
        "--model", f"py:{user.name}:answer", "--out", out, "--no-progress", *extra,
    )  # fmt: skip
    assert code == 0, err
    return code, err


def medians(out: str) -> dict[str, float]:
    with (Path(out) / "summary.csv").open() as handle:
        return {row["scheme"]: float(row["median_error"]) for row in csv.DictReader(handle)}


def notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("note:")]


def test_editing_a_py_models_code_reruns_its_pairs_in_one_line(capsys, user):
    _, err = run_eval(capsys, user, "e")
    assert "0 pairs already done" in err and medians("e") == {"io": 0.0, "cot": 0.0}
    user.write(drop=1)  # the model now drops the smallest number
    _, err = run_eval(capsys, user, "e")
    assert notes(err) == ["note: 6 pairs rerun: the model's code changed"]
    assert "0 pairs already done" in err
    assert len(user.calls) == 6  # every pair asked the new code
    assert medians("e") == {"io": 1.0, "cot": 1.0}  # the new code's figures, not the old
    lines = (Path("e") / "results.jsonl").read_text().splitlines()
    assert len(lines) == 12  # the old lines stay (their spend counted), superseded


def test_an_unchanged_rerun_reuses_every_pair(capsys, user):
    run_eval(capsys, user, "e")
    user.write(drop=0)  # written again, the same code: imported afresh, as a new process would
    _, err = run_eval(capsys, user, "e")
    assert "6 pairs already done" in err and notes(err) == []
    assert user.calls == []  # nothing ran


def test_the_cache_never_serves_a_changed_function_the_old_ones_answers(capsys, user):
    run_eval(capsys, user, "a", "--cache", "answers.db")
    user.write(drop=1)
    run_eval(capsys, user, "b", "--cache", "answers.db")  # a new folder: no resume involved
    assert len(user.calls) == 6 and medians("b") == {"io": 1.0, "cot": 1.0}
    user.write(drop=1)  # the same edited code again: now its own answers are in the cache
    run_eval(capsys, user, "c", "--cache", "answers.db")
    assert user.calls == [] and medians("c") == {"io": 1.0, "cot": 1.0}


def test_results_from_before_fingerprints_are_reused_with_a_note(capsys, user):
    run_eval(capsys, user, "e")
    path = Path("e") / "results.jsonl"
    old = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text(
        "".join(
            json.dumps({k: v for k, v in row.items() if k != "fingerprint"}) + "\n" for row in old
        )
    )
    user.write(drop=1)  # a change no old line can show
    _, err = run_eval(capsys, user, "e")
    assert "6 pairs already done" in err and user.calls == []
    assert notes(err) == [
        "note: 6 pairs reused as they are: their lines are from before results recorded what "
        "decided their answers, so a change of the model's code, the task or the graph since "
        "cannot be seen (another --out runs them afresh)"
    ]


def test_editing_the_task_file_reruns_its_pairs(capsys, tmp_path, monkeypatch):
    task = tmp_path / "task.yaml"
    shutil.copy(EXAMPLES / "people" / "task.yaml", task)
    data = tmp_path / "data.jsonl"
    row = {"id": "ferry", "input": "Ines Delacroix sailed.", "reference": ["Ines Delacroix"]}
    data.write_text(json.dumps(row) + "\n")
    name = f"names_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text("def answer(prompt):\n    return '[\"Ines Delacroix\"]'\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])

    def run() -> str:
        code, _, err = run_cli(
            capsys, "eval", str(task), "--data", str(data), "--schemes", "io",
            "--model", f"py:{name}:answer", "--out", "e", "--no-progress",
        )  # fmt: skip
        assert code == 0, err
        return err

    run()
    assert "1 pairs already done" in run()
    task.write_text(task.read_text().replace("each once", "each exactly once"))
    err = run()
    assert notes(err) == ["note: 1 pair rerun: the task changed"]


def test_each_part_that_differs_is_a_reason_with_its_count():
    old = {"model": "a", "code": "b", "task": "c", "row": "d", "graph": "e"}
    assert fingerprint.changes(old, dict(old)) == []
    assert fingerprint.changes(None, old) == []  # a line from before fingerprints
    new = dict(old, code="x", graph="y")
    assert fingerprint.changes(old, new) == ["the model's code changed", "the graph changed"]
    assert fingerprint.changes(old, {**old, "prompts": "p"}) == ["the prompts changed"]
    line = fingerprint.rerun_line({"the graph changed": 4, "the model's code changed": 12}, 14)
    assert line == "14 pairs rerun: the model's code changed (12), the graph changed (4)"


def test_editing_a_helper_of_the_scoring_function_reruns_its_pairs(capsys, tmp_path, monkeypatch):
    """The scoring function's file imports the user's own rules from another file: editing
    only the rules changes how every answer scores, so the pairs they scored run again."""
    stem = tmp_path.name.replace("-", "_")
    scorer, rules = f"myscore_{stem}", f"myrules_{stem}"
    task = tmp_path / "task.yaml"
    task.write_text(
        "name: lists\ndescription: List the numbers given.\nanswer:\n  type: integers\n"
        "split:\n  by: items\njoin: concatenate\n"
        f"score:\n  by: function\n  function: {scorer}:score\n"
    )
    (tmp_path / f"{scorer}.py").write_text(
        f"from {rules} import PENALTY\n\n\ndef score(answer, problem):\n    return PENALTY\n"
    )
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"input": [1, 2]}) + "\n")
    (tmp_path / "model.py").write_text("def answer(prompt):\n    return '[1, 2]'\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.setattr(sys, "dont_write_bytecode", True)

    def run(penalty: int) -> str:
        (tmp_path / f"{rules}.py").write_text(f"PENALTY = {penalty}\n")
        for module in (scorer, rules):
            monkeypatch.delitem(sys.modules, module, raising=False)
        code, _, err = run_cli(
            capsys, "eval", str(task), "--data", str(data), "--schemes", "io",
            "--model", "py:model:answer", "--out", "e", "--no-progress",
        )  # fmt: skip
        assert code == 0, err
        return err

    run(penalty=0)
    assert "1 pairs already done" in run(penalty=0)
    assert notes(run(penalty=3)) == ["note: 1 pair rerun: the task changed"]
