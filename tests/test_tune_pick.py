"""tune's pick is never worse than what the user runs anyway: the default got (what `eval` runs
under that name, built for each row's size) is a candidate of the search and a row of the front,
best.yaml is the default when no trial beats it (and front.md says so), a trial that beats it on
the tuning split and held out is the pick, a pick worse than the default held out gives way to
it, and tune refuses before any trial what eval refuses.

The problem: keep the even numbers of a list, as a task class (`EvensTask`, part size 2) and as
a task file (the same task), on rows of 4 and 5 numbers, with `py:` stand-in models that make
each case happen by construction:
- `exact` keeps the evens of any list: every graph is right, and every trial (built for the
  rows' smallest size, 4) is cheaper than the default, which eval builds with 3 parts and 2
  merges on a 5-number row: a trial beats the default on both splits.
- `pairs` is right on at most 2 numbers and drops one even of a longer list: the default's parts
  of 2 are always right, every trial has a part of 3 or 4 numbers on some row (a trial's
  graph is the same on every row): the default beats every trial.
"""

from __future__ import annotations

import csv
import json
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.task_helpers import EVENS_MODULE, run_cli
from thoughtgraph.tuning import report

pytest.importorskip("optuna", reason="optuna is not installed: pip install -e '.[tune]'")

MODELS = """
import json


def _block(prompt, tag):  # the last block: an instruction may name the tag before it
    if f"</{tag}>" not in prompt:
        return None
    return prompt.rpartition(f"</{tag}>")[0].rpartition(f"<{tag}>")[2].strip()


def _answer(prompt, most):
    if "<a>" in prompt:  # a merge: a + b
        a, b = json.loads(_block(prompt, "a") or "[]"), json.loads(_block(prompt, "b") or "[]")
        return json.dumps(a + b)
    if "<result>" in prompt:  # a refine: as it is
        return _block(prompt, "result") or "[]"
    numbers = json.loads(_block(prompt, "part") or _block(prompt, "input") or "[]")
    evens = [n for n in numbers if n % 2 == 0]
    return json.dumps(evens if len(numbers) <= most else evens[:-1])


def exact(prompt):
    return _answer(prompt, 10**6)


def pairs(prompt):
    return _answer(prompt, 2)
"""

TASK_FILE = """\
name: evens-file
description: Keep the even numbers of the list, in order.
answer:
  type: integers
  ordered: true
  from_input: true
split:
  by: items
  part_size: 2
join: concatenate
score:
  by: reference
"""

# tuning split r0 (4 numbers, each with an even), r1 (5); held out r2 (4), r3 (5)
ROWS = [[1, 2, 3, 4], [2, 5, 6, 7, 8], [4, 5, 6, 9], [10, 11, 12, 13, 14]]
DEFAULT = "got (default)"  # the default candidate's row in front.md and front.csv
ARGS = ("--trials", "3", "--pilot", "2", "--holdout", "2", "--parallel", "3")


@pytest.fixture
def made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """The task class's module, the models' module and the task file in the working folder,
    and the rows as a data file (with references, which the task file's scorer reads)."""
    tag = uuid.uuid4().hex[:8]
    tasks, models = f"evens_{tag}", f"standins_{tag}"
    (tmp_path / f"{tasks}.py").write_text(textwrap.dedent(EVENS_MODULE))
    (tmp_path / f"{models}.py").write_text(textwrap.dedent(MODELS))
    (tmp_path / "evens.yaml").write_text(TASK_FILE)
    data = tmp_path / "rows.jsonl"
    lines = [
        {"id": f"r{i}", "input": row, "reference": [n for n in row if n % 2 == 0]}
        for i, row in enumerate(ROWS)
    ]
    data.write_text("".join(json.dumps(line) + "\n" for line in lines))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield {
        "class": f"{tasks}:EvensTask",
        "file": str(tmp_path / "evens.yaml"),
        "models": models,
        "data": str(data),
    }
    sys.modules.pop(tasks, None)
    sys.modules.pop(models, None)


def tune_cli(capsys: pytest.CaptureFixture[str], made: dict[str, Any], task: str, model: str,
             out: Path) -> list[dict[str, str]]:  # fmt: skip
    """`thoughtgraph tune TASK --data ... --model py:MODULE:MODEL`: front.csv's rows."""
    code, _out, err = run_cli(
        capsys, "tune", made[task], "--data", made["data"], "--schemes", "got", *ARGS,
        "--model", f"py:{made['models']}:{model}", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    return list(csv.DictReader((out / "front.csv").open()))


def tune_api(made: dict[str, Any], task: str, model: str, out: Path) -> Any:
    """`thoughtgraph.tune(...)` with the task object (the class) or file, the model function."""
    import importlib

    import thoughtgraph

    given: Any = made[task]
    if task == "class":
        module_name, _, name = given.partition(":")
        given = getattr(importlib.import_module(module_name), name)()
    module: ModuleType = importlib.import_module(made["models"])
    return thoughtgraph.tune(
        given, made["data"], schemes="got", trials=3, pilot=2, holdout=2, parallel=3,
        model=getattr(module, model), out=out,
    )  # fmt: skip


@pytest.mark.parametrize("task", ["class", "file"])
def test_the_default_beats_every_trial_so_best_yaml_is_the_default_and_front_md_says_so(
    capsys, tmp_path, made, task
):
    out = tmp_path / "tune"
    table = {row["name"]: row for row in tune_cli(capsys, made, task, "pairs", out)}
    default = table[DEFAULT]
    assert default["mark"] == "pick" and "best.yaml" in default["file"], table
    assert float(default["tune_error"]) == 0 and float(default["holdout_error"]) == 0
    trials = [row for name, row in table.items() if name.startswith("trial")]
    assert all(float(row["tune_error"]) > 0 for row in trials), table  # dominated, or shown
    text = (out / "front.md").read_text()
    assert "No candidate beat the default: best.yaml is the default got" in text
    assert "the cheapest of the front's graphs and the default got" in text  # the rule
    best = (out / "best.yaml").read_text()
    assert best.startswith(f"# thoughtgraph tune: {DEFAULT}: got parts=2-3 ")
    assert "as eval runs it (eval --schemes got)" in best


@pytest.mark.parametrize("task", ["class", "file"])
def test_a_trial_that_beats_the_default_on_both_splits_is_the_pick(capsys, tmp_path, made, task):
    out = tmp_path / "tune"
    table = {row["name"]: row for row in tune_cli(capsys, made, task, "exact", out)}
    pick = next(row for row in table.values() if row["mark"] == "pick")
    default = table[DEFAULT]
    assert pick["name"].startswith("trial"), table
    assert float(pick["tune_error"]) <= float(default["tune_error"])
    assert float(pick["tune_cost"]) < float(default["tune_cost"])
    assert float(pick["holdout_cost"]) < float(default["holdout_cost"])
    text = (out / "front.md").read_text()
    assert f"{pick['name']} beat the default got on the tuning split" in text
    held = report.fmt(float(pick["holdout_cost"]), 1), report.fmt(float(default["holdout_cost"]), 1)
    assert f"and held out (error 0 at {held[0]} against the default's 0 at {held[1]})" in text
    assert f"best.yaml is {pick['name']}." in text


@pytest.mark.parametrize("task", ["class", "file"])
def test_from_python_the_pick_is_the_default_or_the_trial_that_beats_it(tmp_path, made, task):
    lost = tune_api(made, task, "pairs", tmp_path / "a")
    assert lost.pick.name == DEFAULT
    assert "No candidate beat the default: best.yaml is the default got" in lost.text
    assert lost.best.ops == lost.pick.graph.ops  # best is the default's graph
    won = tune_api(made, task, "exact", tmp_path / "b")
    assert won.pick.name.startswith("trial")
    assert f"best.yaml is {won.pick.name}." in won.text
    default = next(row for row in won.rows if row.name == DEFAULT)
    assert won.pick.tune_cost < default.tune_cost and won.pick.tune_error <= default.tune_error


def test_the_default_s_figure_is_eval_s_got_on_the_same_rows(capsys, tmp_path, made):
    """One name, one figure: the default was built for the smallest row with a fixed part
    count (2 parts on every row: 3 completions); eval builds got for each row (3 parts on a
    5-number row), and so does tune now."""
    table = {row["name"]: row for row in tune_cli(capsys, made, "class", "exact", tmp_path / "t")}
    code, _out, err = run_cli(
        capsys, "eval", made["class"], "--data", made["data"], "--schemes", "got",
        "--model", f"py:{made['models']}:exact", "--out", str(tmp_path / "e"), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    pairs = [json.loads(line) for line in (tmp_path / "e" / "results.jsonl").open()]
    completions = {pair["sample"]: pair["completions"] for pair in pairs}
    default = table[DEFAULT]
    assert float(default["tune_cost"]) == (completions["r0"] + completions["r1"]) / 2 == 4
    assert float(default["holdout_cost"]) == (completions["r2"] + completions["r3"]) / 2
    assert "parts=2-3" in default["graph"]


def hinted(folder: Path, made: dict[str, Any], slot: str) -> str:
    """A task class whose own `slot` prompt asks for a value no op fills (`{{hint}}`): every
    graph sending that prompt cannot run. Returns its import string."""
    name = f"hinted_{slot}_{uuid.uuid4().hex[:8]}"
    (folder / f"{name}.py").write_text(
        textwrap.dedent(f"""
        from {made["class"].split(":")[0]} import EvensTask


        class Hinted(EvensTask):
            name = "evens-{slot}-hint"
            prompts = {{"{slot}": "{{{{task}}}} {{{{hint}}}} <input>{{{{input}}}}</input>"}}
        """)
    )
    return f"{name}:Hinted"


def test_tune_refuses_before_any_trial_what_eval_refuses(capsys, tmp_path, made):
    """The task's io prompt asks for a value no op fills: eval refuses got_paper (its parts
    send io) before any call, and so does tune with its default schemes, in the same line (it
    ran 2 trials, failed, and still wrote a pick)."""
    task, model = hinted(tmp_path, made, "io"), f"py:{made['models']}:exact"
    code, _out, eval_err = run_cli(
        capsys, "eval", task, "--data", made["data"], "--schemes", "got,got_paper",
        "--model", model, "--out", str(tmp_path / "e"),
    )  # fmt: skip
    assert code == 2
    out = tmp_path / "t"
    code, _out, err = run_cli(
        capsys, "tune", task, "--data", made["data"], *ARGS, "--model", model, "--out", str(out),
    )  # fmt: skip
    sys.modules.pop(task.partition(":")[0], None)
    assert code == 2 and err.count("\n") == 1, err
    assert err == eval_err  # the same line
    assert "scheme got_paper cannot run on rows.jsonl row 1 (4 items)" in err
    assert "prompt 'io' needs hint" in err
    assert not (out / "study.db").exists() and not (out / "best.yaml").exists()


def test_tune_refuses_a_prompt_choice_of_its_space_the_task_cannot_send(capsys, tmp_path, made):
    """Beyond eval's schemes: tot's trials choose the io or the cot prompt; a task whose cot
    prompt cannot be sent runs eval's tot (io), but a cot trial could not: refused before any
    trial."""
    task, model = hinted(tmp_path, made, "cot"), f"py:{made['models']}:exact"
    code, _out, _err = run_cli(
        capsys, "eval", task, "--data", made["data"], "--schemes", "tot", "--model", model,
        "--out", str(tmp_path / "e"), "--no-progress",
    )  # fmt: skip
    assert code == 0  # eval's tot sends io
    code, _out, err = run_cli(
        capsys, "tune", task, "--data", made["data"], "--schemes", "tot", *ARGS,
        "--model", model, "--out", str(tmp_path / "t"),
    )  # fmt: skip
    sys.modules.pop(task.partition(":")[0], None)
    assert code == 2 and err.count("\n") == 1, err
    assert "prompt=cot cannot run on" in err and "prompt 'cot' needs hint" in err, err


def row(name: str, tune: tuple[float, float], held: tuple[float, float] | None,
        **extra: Any) -> report.Row:  # fmt: skip
    from thoughtgraph.tuning import space

    graph = space.graph_for({"scheme": "got"}, "sorting", 32)
    figures = {} if held is None else {"holdout_error": held[0], "holdout_cost": held[1]}
    return report.Row(name, "", graph, *tune, **figures, **extra)


def test_a_pick_worse_than_the_default_held_out_gives_way_to_it():
    rows = [
        row("trial 3", (0.0, 4.0), (2.0, 4.0), mark="front", on_front=True),
        row(DEFAULT, (0.5, 20.0), (0.5, 20.0), mark="front", on_front=True),
    ]
    chosen = report.choose(rows, None)
    assert chosen.tuned.name == "trial 3" and chosen.row.name == DEFAULT
    assert chosen.gave_way and chosen.row.mark == "pick"
    assert chosen.row.file == "front-02.yaml, best.yaml"
    text = report.pick_text(chosen, "completions")
    assert (
        "trial 3 beat the default got on the tuning split (error 0 at 4 completions against "
        "the default's 0.5 at 20), but on the held-out split it is worse (error 2 at 4 against "
        "the default's 0.5 at 20): best.yaml is the default got." in text
    )
    # the same error held out at a higher cost is worse too; at a lower cost it is not
    costlier = [row("trial 3", (0.0, 4.0), (0.5, 30.0), mark="front", on_front=True), rows[1]]
    assert report.choose(costlier, None).row.name == DEFAULT
    cheaper = [row("trial 3", (0.0, 4.0), (0.5, 5.0), mark="front", on_front=True), rows[1]]
    assert report.choose(cheaper, None).row.name == "trial 3"


def test_the_held_out_check_can_pick_a_default_off_the_front():
    """A trial that dominates the default on the tuning split, then loses held out: the
    default (a baseline row) is best.yaml, with no front file of its own."""
    rows = [
        row("trial 1", (0.0, 4.0), (3.0, 4.0), mark="front", on_front=True),
        row(DEFAULT, (0.5, 20.0), (0.5, 20.0), mark="baseline"),
    ]
    chosen = report.choose(rows, None)
    assert chosen.row.name == DEFAULT and chosen.row.file == "best.yaml"
    assert chosen.rows[0].file == "front-01.yaml" and chosen.rows[0].mark == "front"


def test_a_tie_goes_to_the_default_and_a_target_keeps_a_pick_that_meets_it_held_out():
    tie = [
        row(DEFAULT, (1.0, 10.0), (1.0, 10.0), mark="front", on_front=True),
        row("trial 2", (1.0, 10.0), (0.0, 10.0), mark="front", on_front=True),
    ]
    assert report.choose(tie, None).row.name == DEFAULT
    rows = [
        row("trial 4", (1.0, 3.0), (1.5, 3.0), mark="front", on_front=True),
        row(DEFAULT, (0.5, 20.0), (0.5, 20.0), mark="front", on_front=True),
    ]
    assert report.choose(rows, 2.0).row.name == "trial 4"  # meets --target 2 held out
    assert report.choose(rows, 1.0).row.name == DEFAULT  # misses --target 1 held out
    text = report.pick_text(report.choose(rows, 1.0), "completions")
    assert "misses the target and is worse than the default" in text
