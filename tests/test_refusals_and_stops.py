"""Bad input is refused with one line; budget stops never crash, lose work or claim clean."""

from __future__ import annotations

import json
import math
import sys

import pytest

import thoughtgraph
from thoughtgraph.errors import InputError, ThoughtgraphError
from thoughtgraph.evaluation.datasets import load_sample
from thoughtgraph.testing import ScriptedModel

from .conftest import run_cli
from .fake_openai import FakeOpenAI, Fault


@pytest.mark.parametrize(
    ("task", "dataset"),
    [
        ("set-intersection", "set_intersection_032"),
        ("keyword-counting", "countries"),
        ("doc-merge", "documents"),
    ],
)
def test_a_zero_budget_returns_no_answer_not_a_crash(task, dataset):
    sample = load_sample(dataset, 0)
    result = thoughtgraph.solve(task, sample.input, model="sim", max_requests=0)
    assert result.status == "not clean" and result.stop_reason == "budget exhausted"
    assert result.output is None and result.errors == [
        "no model answer arrived before the run stopped"
    ]
    json.dumps(result.to_dict())  # the result is JSON-ready


def test_a_budget_stop_after_a_model_split_keeps_the_best_answer():
    sample = load_sample("sorting_064", 0)
    result = thoughtgraph.solve(
        "sorting", sample.input, model="sim", scheme="got_paper", max_requests=3
    )
    assert result.status == "not clean" and isinstance(result.output, list)
    assert result.final.op_id.startswith("part_")  # a sorted part, not the split answer


def test_a_budget_stop_is_never_clean_even_when_the_answer_is_right():
    sample = load_sample("set_intersection_032", 1)
    result = thoughtgraph.solve(
        "set-intersection", sample.input, model="sim:error=0", scheme="tot", max_requests=1
    )
    assert result.error_count == 0 and result.stop_reason == "budget exhausted"
    assert result.status == "not clean" and not result.clean


def test_an_answer_with_a_gigantic_integer_is_a_scored_failure():
    giant = "[" + "9" * 5000 + ", 1]"
    model = ScriptedModel(lambda prompt, n: giant if n == 0 else "[1, 2, 3]")
    result = thoughtgraph.solve("sorting", [3, 1, 2], model=model)
    first = result.state.thoughts["part_1:0.1"]
    assert not first.valid and first.content is None
    assert result.clean and result.calls == 2


@pytest.mark.parametrize("raw", ["[" + "9" * 5000 + ", 1]", "9" * 5000 + " 1"])
def test_an_input_with_a_gigantic_integer_is_refused(raw):
    with pytest.raises(InputError, match="too long a number"):
        thoughtgraph.solve("sorting", raw, model="sim")


def test_non_utf8_files_and_stdin_are_one_line_errors(capsys, tmp_path, monkeypatch):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe[1, 2]")
    code, _, err = run_cli(capsys, "solve", "sorting", "--input-file", str(bad))
    assert code == 2 and err == f"error: cannot read input file {bad}: not UTF-8 text\n"
    code, _, err = run_cli(capsys, "solve", "sorting", "--input", "[1]", "--graph", str(bad))
    assert code == 2 and err == f"error: cannot read graph file {bad}: not UTF-8 text\n"
    stdin = open(bad, encoding="utf-8", errors="surrogateescape")  # noqa: SIM115 - closed below
    monkeypatch.setattr(sys, "stdin", stdin)
    code, _, err = run_cli(capsys, "solve", "keyword-counting", "--input-file", "-")
    stdin.close()
    assert code == 2 and err == "error: standard input is not UTF-8 text\n"


@pytest.mark.parametrize(
    "args",
    [
        ["--rpm", "nan"],
        ["--rpm", "inf"],
        ["--tpm", "nan"],
        ["--price-in", "nan", "--price-out", "1"],
        ["--model", "sim:error=nan"],
        ["--model", "sim:error=inf"],
        ["--model", "sim:latency=nan"],
        ["--model", "sim:error=1,error=2"],
        ["--model", "openai:gpt", "--base-url", "notaurl"],
        ["--model", "openai:gpt", "--base-url", "http://127.0.0.1:9", "--temperature", "nan"],
    ],
)
def test_numbers_that_are_not_finite_are_refused(capsys, args):
    code, out, err = run_cli(capsys, "solve", "sorting", "--input", "[2, 1]", *args)
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1


@pytest.mark.parametrize(
    "options",
    [
        {"concurrency": "3"},
        {"concurrency": None},
        {"max_refines": None},
        {"rpm": math.inf},
        {"tpm": math.nan},
        {"graph": {"ops": []}},
        {"model": 5},
    ],
)
def test_api_options_of_the_wrong_kind_are_thoughtgraph_errors(options):
    with pytest.raises(ThoughtgraphError):
        thoughtgraph.solve("sorting", [3, 1, 2], **{"model": "sim", **options})


@pytest.mark.parametrize("task", [None, 5, object()])
def test_a_task_that_is_not_a_task_is_refused(task):
    with pytest.raises(ThoughtgraphError, match="not a task"):
        thoughtgraph.solve(task, [3, 1, 2])


def test_a_model_function_returning_no_text_is_a_failed_attempt():
    result = thoughtgraph.solve("sorting", [3, 1, 2], model=lambda prompt: None)
    assert result.status == "not clean" and result.output is None
    assert all(
        c.error == "the model function returned NoneType, not text"
        for c in result.state.calls.values()
    )


def test_graph_and_scheme_together_are_refused():
    graph = thoughtgraph.schemes.io()
    with pytest.raises(InputError, match="either a scheme or a graph"):
        thoughtgraph.solve("sorting", [3, 1, 2], graph=graph, scheme="io")


def test_a_trace_path_that_cannot_be_written_is_refused_before_any_call(capsys, tmp_path):
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--input", "[2, 1]", "--trace", str(tmp_path)
    )
    assert code == 2 and out == "" and "it is a folder" in err


def test_a_run_where_every_call_fails_exits_non_zero(capsys):
    with FakeOpenAI() as server:
        server.script(*[Fault("500")] * 200)
        code, _out, err = run_cli(
            capsys,
            "solve",
            "sorting",
            "--input",
            "[2, 1]",
            "--model",
            "openai:gpt-test",
            "--base-url",
            server.base_url,
            "--max-retries",
            "0",
            "--max-refines",
            "0",
        )
    assert code == 2 and err.startswith("error: no usable answer: 3 of 3 model calls failed")


def test_graph_command_uses_the_tasks_part_size(capsys):
    code, out, _ = run_cli(capsys, "graph", "got", "--task", "keyword-counting", "--size", "16")
    assert code == 0 and sum(op["kind"] == "generate" for op in json.loads(out)["ops"]) == 4
    code, _, err = run_cli(capsys, "graph", "got", "--parts", "0")
    assert code == 2 and "parts must be at least 1" in err


def test_a_console_that_cannot_encode_the_summary_gets_replacements():
    import os
    import subprocess

    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    proc = subprocess.run(
        [sys.executable, "-m", "thoughtgraph.cli.main", "solve", "sorting", "--input", "[2, 1]"],
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert b"split ? generate ? refine" in proc.stdout  # "→" replaced, not a crash


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--scheme", "io", "--parts", "2"],
            "parts applies to the got, got_adaptive and got_paper schemes",
        ),
        (["--sample", "3"], "--sample picks a sample of --dataset"),
        (
            ["--cache", "/nonexistent/c.sqlite"],
            "cannot write cache: folder /nonexistent does not exist",
        ),
    ],
)
def test_options_that_would_be_ignored_or_misplaced_are_refused(capsys, args, message):
    code, out, err = run_cli(capsys, "solve", "sorting", "--input", "[3, 2, 1]", *args)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1
