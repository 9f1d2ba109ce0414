"""`--model py:package.module:function`: a model that is your own Python code."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from thoughtgraph.errors import UnknownNameError
from thoughtgraph.modelspec import from_spec

from .conftest import run_cli

SORTER = '''
import json

CALLS = []

def sort_prompt(prompt):
    """Sorts the list between the last <input> tags: a hand-written model."""
    CALLS.append(prompt)
    numbers = json.loads(prompt.rsplit("<input>", 1)[1].split("</input>")[0])
    return json.dumps(sorted(numbers))

async def sort_async(prompt):
    return sort_prompt(prompt)

def wrong_type(prompt):
    return 42

def flaky(prompt):
    raise RuntimeError("the pipeline is down\\nsecond line")

NOT_CALLABLE = 3

def no_argument():
    return "[1]"

def two_arguments(prompt, model):
    return "[1]"

def with_defaults(prompt, n=1, *rest, **options):
    return sort_prompt(prompt)

class Model:
    pass
'''


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding the user's module, made the current directory (as a user runs it)."""
    name = f"mymodels_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(SORTER)
    (tmp_path / "broken_on_import.py").write_text("raise ValueError('no config file found')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the cwd entry goes away after the test
    for module in ("broken_on_import", name):
        monkeypatch.delitem(sys.modules, module, raising=False)
    return tmp_path


def module(here: Path) -> str:
    return next(p.stem for p in here.glob("mymodels_*.py"))


@pytest.mark.parametrize("function", ["sort_prompt", "sort_async", "with_defaults"])
def test_solve_runs_on_your_function_sync_or_async(capsys, here, function):
    spec = f"py:{module(here)}:{function}"
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--input", "[3, 1, 2, 5, 4]", "--scheme", "io",
        "--model", spec, "--json", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert result["output"] == [1, 2, 3, 4, 5] and result["status"] == "clean"
    assert result["model"] == spec
    assert len(sys.modules[module(here)].CALLS) == 1  # your function answered the one call


def test_eval_runs_on_your_function(capsys, here, tmp_path):
    (here / "rows.jsonl").write_text('{"input": [2, 1]}\n{"input": [9, 8, 7]}\n')
    code, _, err = run_cli(
        capsys, "eval", "sorting", "--data", "rows.jsonl", "--schemes", "io,cot",
        "--model", f"python:{module(here)}:sort_prompt", "--out", str(tmp_path / "e"),
        "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    results = [json.loads(x) for x in (tmp_path / "e" / "results.jsonl").read_text().splitlines()]
    assert len(results) == 4 and all(r["error"] == 0 for r in results)
    assert all(r["model"] == f"py:{module(here)}:sort_prompt" for r in results)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("nowhere_module:fn", "cannot load model 'nowhere_module:fn': no module named "
                              "'nowhere_module' (looked in {here} and the Python path)"),
        ("{m}:missing", "cannot load model '{m}:missing': module '{m}' has no attribute 'missing'"),
        ("{m}:NOT_CALLABLE", "model 'py:{m}:NOT_CALLABLE' is int, not a function prompt -> text"),
        ("{m}:Model", "model 'py:{m}:Model' is a class, not a function prompt -> text"),
        ("broken_on_import:fn", "cannot load model 'broken_on_import:fn': importing "
                                "broken_on_import raised ValueError: no config file found"),
        ("not an import", "cannot load model 'not an import': write it as "
                          "package.module:attribute"),
        ("", "model 'py:' names no function (expected py:package.module:function)"),
        ("{m}:no_argument", "model 'py:{m}:no_argument' takes no argument: a model function is "
                            "called with one argument, the prompt str"),
        ("{m}:two_arguments", "model 'py:{m}:two_arguments' takes (prompt, model): a model "
                              "function is called with one argument, the prompt str"),
    ],
)  # fmt: skip
def test_each_way_a_model_import_fails_is_one_line(capsys, here, target, message):
    target, message = target.format(m=module(here)), message.format(m=module(here), here=here)
    code, _, err = run_cli(
        capsys, "solve", "sorting", "--input", "[2, 1]", "--model", f"py:{target}"
    )
    assert code == 2
    assert err.startswith(f"error: {message}") and err.count("\n") == 1


def test_an_answer_that_is_not_text_stops_the_run_in_one_line(capsys, here):
    code, _, err = run_cli(
        capsys, "solve", "sorting", "--input", "[2, 1]", "--scheme", "io", "--no-progress",
        "--model", f"py:{module(here)}:wrong_type",
    )  # fmt: skip
    assert code == 2
    assert err.strip().splitlines()[-1] == (
        f"error: py:{module(here)}:wrong_type returned int, not text: the model function must "
        "return the answer as a str"
    )
    assert "Traceback" not in err


def test_a_function_that_raises_is_a_failed_call_not_a_crash(capsys, here):
    code, _, err = run_cli(
        capsys, "solve", "sorting", "--input", "[2, 1]", "--scheme", "io", "--no-progress",
        "--model", f"py:{module(here)}:flaky",
    )  # fmt: skip
    assert code == 2 and "Traceback" not in err
    assert "raised RuntimeError: the pipeline is down" in err
    assert "second line" not in err


def test_an_import_string_without_py_is_never_taken_for_another_provider(here):
    with pytest.raises(UnknownNameError) as caught:
        from_spec(f"{module(here)}:sort_prompt")
    assert f"did you mean --model py:{module(here)}:sort_prompt?" in str(caught.value)
    model = from_spec(f"py:{module(here)}:sort_prompt")
    assert model.name == f"py:{module(here)}:sort_prompt" and not model.simulated


def test_openai_flags_are_refused_for_your_function(capsys, here):
    code, _, err = run_cli(
        capsys, "solve", "sorting", "--input", "[2, 1]", "--base-url", "http://127.0.0.1:9/v1",
        "--model", f"py:{module(here)}:sort_prompt",
    )  # fmt: skip
    assert code == 2 and "--base-url: only for openai:MODEL models" in err
