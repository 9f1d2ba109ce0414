"""The command line: solving, JSON output, traces, datasets, and one-line errors for bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import INPUT_32, run_cli


def test_solve_prints_a_readable_summary_labelled_simulated(capsys):
    code, out, _err = run_cli(
        capsys, "solve", "sorting", "--input", str(INPUT_32), "--model", "sim:error=0"
    )
    assert code == 0
    assert "SIMULATED" in out and "status:  clean" in out
    assert f"output:  {json.dumps(sorted(INPUT_32))}" in out
    assert "calls:   7 (part 4, merge 3, refine 0)" in out


def test_solve_json_has_the_documented_fields(capsys):
    code, out, _ = run_cli(
        capsys, "solve", "sorting", "--input", "[3, 1, 2, 2]", "--json", "--model", "sim:error=0"
    )
    data = json.loads(out)
    assert code == 0
    for key in (
        "output",
        "clean",
        "status",
        "errors",
        "calls",
        "calls_by_kind",
        "depth",
        "wall_seconds",
        "model",
        "simulated",
    ):
        assert key in data
    assert data["output"] == [1, 2, 2, 3] and data["clean"] and data["simulated"] is True
    assert data["model"].startswith("sim:")


def test_solve_from_a_dataset_checks_the_reference(capsys):
    code, out, _ = run_cli(
        capsys,
        "solve",
        "sorting",
        "--dataset",
        "sorting_064",
        "--sample",
        "3",
        "--model",
        "sim:error=0",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["matches_reference"] is True and len(data["output"]) == 64
    assert data["calls_by_kind"]["part"] == 8


def test_solve_from_a_file_and_from_stdin(capsys, tmp_path, monkeypatch):
    path = tmp_path / "in.txt"
    path.write_text("5 4 3 2 1\n")
    code, out, _ = run_cli(capsys, "solve", "sorting", "--input-file", str(path), "--json")
    assert code == 0 and json.loads(out)["output"] == [1, 2, 3, 4, 5]
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO("[9, 8, 7]"))
    code, out, _ = run_cli(capsys, "solve", "sorting", "--input-file", "-", "--json")
    assert code == 0 and json.loads(out)["output"] == [7, 8, 9]


def test_trace_holds_the_whole_run_state(capsys, tmp_path):
    trace = tmp_path / "run.json"
    code, _, _ = run_cli(
        capsys, "solve", "sorting", "--input", str(INPUT_32), "--trace", str(trace)
    )
    data = json.loads(trace.read_text())
    assert code == 0
    assert {"result", "graph", "ops", "thoughts", "calls", "edges"} <= set(data)
    assert len(data["calls"]) == data["result"]["calls"]
    part = next(t for t in data["thoughts"] if t["op_id"] == "part_1")
    for key in ("prompt", "text", "content", "score", "errors", "parents", "attempt", "kept"):
        assert key in part
    assert part["prompt"].startswith("Solve this part of a larger task.")


def test_budget_exhaustion_exits_one_with_the_best_thought(capsys):
    code, out, _ = run_cli(
        capsys,
        "solve",
        "sorting",
        "--input",
        str(INPUT_32),
        "--max-requests",
        "5",
        "--model",
        "sim:error=0",
        "--json",
    )
    data = json.loads(out)
    assert code == 1
    assert data["status"] == "not clean" and data["stop_reason"] == "budget exhausted"
    assert len(data["output"]) == 16


BAD = [
    (["solve", "sorting", "--input", "[3, 1, x]"], "item 3 is not an integer"),
    (["solve", "sorting", "--input", "[]"], "empty"),
    (["solve", "sorting", "--input", "[3, 2, 1]", "--parts", "0"], "at least 1"),
    (["solve", "sorting", "--input", "[3, 2, 1]", "--parts", "4"], "cannot exceed"),
    (["solve", "sorting", "--input", "[3, 2, 1]", "--parts", "two"], "--parts"),
    (["solve", "juggling", "--input", "[3, 2, 1]"], "unknown task 'juggling'"),
    (["solve", "sorting", "--input", "[3, 2, 1]", "--model", "gpt-9"], "unknown model 'gpt-9'"),
    (["solve", "sorting", "--input", "[1]", "--model", "sim:error=x"], "not a number"),
    (["solve", "sorting", "--input-file", "/no/such/file"], "cannot read input file"),
    (["solve", "sorting", "--dataset", "sorting_007"], "unknown dataset"),
    (["solve", "sorting", "--dataset", "sorting_032", "--sample", "100"], "no sample 100"),
    (["solve", "sorting"], "exactly one of --input"),
    (["solve", "sorting", "--input", "[1]", "--dataset", "sorting_032"], "exactly one of"),
    (["solve", "sorting", "--input", "[1]", "--concurrency", "0"], "concurrency"),
    (["solve", "sorting", "--input", "[1]", "--max-refines", "-1"], "max_refines"),
    (
        ["solve", "sorting", "--input", "[1]", "--trace", "/no/such/dir/t.json"],
        "cannot write trace",
    ),
    (["solve", "sorting", "--input", "[1]", "--frobnicate"], "No such option"),
    (["graph", "quantum"], "unknown scheme"),
    (["graph", "got", "--format", "png"], "unknown --format"),
    (["graph", "got", "--task", "knitting"], "unknown task"),
    (["solve", "sorting", "--input", "[1, 2]", "--scheme", "magic"], "unknown scheme"),
    (
        ["solve", "sorting", "--input", "[1, 2]", "--graph", "/no/graph.json"],
        "cannot read graph file",
    ),
]


@pytest.mark.parametrize(("args", "message"), BAD, ids=[" ".join(a[1:4]) for a, _ in BAD])
def test_bad_input_is_one_line_on_stderr_and_exit_2(capsys, args, message):
    code, out, err = run_cli(capsys, *args)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err
    assert "Traceback" not in err and out == ""


@pytest.mark.slow
def test_installed_command_reports_errors_without_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "thoughtgraph.cli.main", "solve", "sorting", "--input", "[1, two]"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr == "error: input item 2 is not an integer: 'two'\n"


def test_graph_command_prints_json_and_mermaid(capsys):
    code, out, _ = run_cli(capsys, "graph", "got", "--size", "64")
    ops = json.loads(out)["ops"]
    assert code == 0 and sum(op["kind"] == "generate" for op in ops) == 8
    code, out, _ = run_cli(capsys, "graph", "got", "--size", "32", "--format", "mermaid")
    assert code == 0 and out.startswith("flowchart TD")


@pytest.mark.parametrize(
    ("task", "text", "says"),
    [
        ("sorting", "[1, 2,", "the input list is not closed (cut off, or a ] missing)"),
        ("sorting", "[1, 2", "the input list is not closed"),
        ("set-intersection", "[1, 2]", "the input must be two sets"),
    ],
)
def test_a_bad_input_is_one_line_naming_what_is_wrong(capsys, task, text, says):
    code, out, err = run_cli(capsys, "solve", task, "--input", text, "--model", "sim")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and says in err and "Traceback" not in err
