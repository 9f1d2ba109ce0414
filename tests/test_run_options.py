"""One validated options object and one prepared run: each check in one place, built once."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import thoughtgraph
from thoughtgraph.engine.options import RunOptions
from thoughtgraph.errors import InputError
from thoughtgraph.solving import solve as api
from thoughtgraph.tasks.sorting import SortingTask

from .conftest import run_cli


def test_a_cli_solve_parses_the_input_and_checks_the_graph_once(capsys, monkeypatch):
    counts = {"parse_input": 0, "check_graph": 0}
    parse, check = SortingTask.parse_input, api.check_graph

    def counted_parse(self, raw):
        counts["parse_input"] += 1
        return parse(self, raw)

    def counted_check(*args):
        counts["check_graph"] += 1
        return check(*args)

    monkeypatch.setattr(SortingTask, "parse_input", counted_parse)
    monkeypatch.setattr(api, "check_graph", counted_check)
    code, out, _ = run_cli(capsys, "solve", "sorting", "-i", "[3, 1, 2]", "-m", "sim:error=0")
    assert code == 0 and "[1, 2, 3]" in out
    assert counts == {"parse_input": 1, "check_graph": 1}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"concurrency": 0}, "concurrency must be at least 1, got 0"),
        ({"concurrency": None}, "concurrency must be a whole number, got None"),
        ({"max_requests": 1.5}, "max_requests must be a whole number, got 1.5"),
        ({"max_tokens": -1}, "max_tokens must be 0 or more, got -1"),
        ({"max_cost": float("nan")}, "max_cost must be a finite number, got nan"),
        ({"rpm": 0}, "rpm must be more than 0, got 0"),
        ({"tpm": True}, "tpm must be a finite number, got True"),
    ],
)
def test_each_option_is_refused_in_one_line_by_the_api(options, message):
    with pytest.raises(InputError) as caught:
        thoughtgraph.solve("sorting", [3, 1, 2], model="sim", **options)
    assert str(caught.value) == message


def test_the_command_line_names_the_flag():
    with pytest.raises(InputError, match=r"^--max-requests must be at least 0, got -1$"):
        RunOptions(max_requests=-1, flags=True)
    with pytest.raises(InputError, match=r"^--max-cost needs a price: sim"):
        RunOptions(max_cost=1.0, flags=True).price("sim")


@pytest.mark.parametrize("command", ["solve", "eval"])
def test_solve_and_eval_refuse_a_bad_option_the_same_way(capsys, tmp_path, command):
    args = (
        ["sorting", "-i", "[3, 1]"] if command == "solve" else ["sorting", "--out", str(tmp_path)]
    )
    code, _, err = run_cli(capsys, command, *args, "--concurrency", "0")
    assert code == 2 and err == "error: --concurrency must be at least 1, got 0\n"


def test_the_eval_command_does_not_import_the_solve_command():
    """The model flags live in the models package, so cli_eval never reaches back into cli
    (cli imports cli_eval): no import of it anywhere in the module, nested ones included."""
    import thoughtgraph.cli.eval as cli_eval

    tree = ast.parse(Path(cli_eval.__file__).read_text())
    imported = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module is not None
    }
    assert imported and "cli" not in imported and "thoughtgraph.cli.main" not in imported


@pytest.mark.parametrize("command", ["solve", "eval", "tune"])
@pytest.mark.parametrize(("flag", "value"), [("--timeout", "5"), ("--max-retries", "1")])
def test_every_command_takes_the_same_model_flags(capsys, tmp_path, command, flag, value):
    """One declaration of the model flags: each command knows them and checks them alike."""
    args = {
        "solve": ["solve", "sorting", "--input", "[3, 1, 2]"],
        "eval": ["eval", "sorting", "--samples", "1", "--out", str(tmp_path / "e")],
        "tune": ["tune", "sorting", "--trials", "1", "--out", str(tmp_path / "t")],
    }[command]
    code, _, err = run_cli(capsys, *args, "--model", "sim", flag, value)
    assert code == 2
    assert err == f"error: {flag}: only for openai:MODEL models, not 'sim'\n"


def test_run_options_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        RunOptions(4)  # type: ignore[misc]
    assert RunOptions(concurrency=4).concurrency == 4


@pytest.mark.parametrize(
    "loose",
    [{"concurrency": 4}, {"max_calls": 3}, {"max_cost": 1.0}, {"solve_options": {"rpm": 60}}],
)
def test_the_pair_runner_takes_options_never_loose_caps(tmp_path, loose) -> None:
    """One way in: `run_pairs` takes a checked `RunOptions`; a loose cap is no keyword of it."""
    import asyncio

    from thoughtgraph.evaluation.runner import plan, run_pairs

    the_plan = plan("sorting", 32, ["io"], 1)
    options = RunOptions(concurrency=2)
    with pytest.raises(TypeError, match=r"unexpected keyword argument"):
        asyncio.run(run_pairs(the_plan, "sim", tmp_path / "out", options, **loose))
    assert not (tmp_path / "out").exists()  # refused before anything was written
