"""The evaluation harness on a tiny run: files, summary numbers, resume, plots."""

from __future__ import annotations

import asyncio
import csv
import json
import statistics
import xml.etree.ElementTree as ET

import pytest

from thoughtgraph.engine.options import RunOptions
from thoughtgraph.evaluation.report import summarise, write_reports
from thoughtgraph.evaluation.runner import PairResult, load_results, plan, run_pairs
from thoughtgraph.testing import ScriptedModel

SCHEMES = ("io", "got")


def run(out, model="sim", samples=3, parallel=None, **options):
    the_plan = plan("sorting", 32, SCHEMES, samples)
    return asyncio.run(run_pairs(the_plan, model, out, RunOptions(**options), parallel=parallel))


@pytest.mark.slow
def test_tiny_run_writes_one_line_per_pair_and_reports(tmp_path):
    results = run(tmp_path)
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert len(lines) == len(results) == 6
    rows = [json.loads(line) for line in lines]
    assert {(r["scheme"], r["sample"]) for r in rows} == {(s, i) for s in SCHEMES for i in range(3)}
    for row in rows:
        assert row["clipped_error"] == min(row["error"], 32)
        assert row["simulated"] is True and row["requests"] >= 1
    written = write_reports(results, SCHEMES, 32, "sorting 32", "simulated model", tmp_path)
    assert {p.name for p in written} == {
        "summary.md",
        "summary.csv",
        "pairs.csv",
        "errors.png",
        "errors.svg",
    }


def test_summary_equals_what_results_jsonl_recomputes(tmp_path):
    results = run(tmp_path)
    write_reports(results, SCHEMES, 32, "t", "n", tmp_path)
    table = {row["scheme"]: row for row in csv.DictReader((tmp_path / "summary.csv").open())}
    raw = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    for scheme in SCHEMES:
        mine = [r for r in raw if r["scheme"] == scheme]
        errors = [r["error"] for r in mine]
        assert float(table[scheme]["median_error"]) == pytest.approx(statistics.median(errors))
        assert int(table[scheme]["solved"]) == sum(r["solved"] for r in mine)
        assert float(table[scheme]["mean_requests"]) == pytest.approx(
            sum(r["requests"] for r in mine) / len(mine)
        )
        assert float(table[scheme]["mean_completions"]) == pytest.approx(
            sum(r["completions"] for r in mine) / len(mine), abs=1e-6
        )
    md = (tmp_path / "summary.md").read_text()
    assert all(f"| {s} |" in md for s in SCHEMES)


def test_resume_skips_finished_pairs(tmp_path):
    first = ScriptedModel()
    run(tmp_path, model=first, samples=2)
    assert len(load_results(tmp_path)) == 4
    again = ScriptedModel()
    results = run(tmp_path, model=again, samples=3)  # one more sample: only its pairs run
    assert len(results) == 6 and len(load_results(tmp_path)) == 6
    io_and_got_for_one_sample = 1 + 7
    assert len(again.prompts) == io_and_got_for_one_sample


def test_an_interrupted_last_line_is_run_again(tmp_path):
    run(tmp_path, samples=1)
    path = tmp_path / "results.jsonl"
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2])  # cut mid-line
    results = run(tmp_path, samples=1)
    assert len(results) == 2
    assert all(json.loads(line) for line in path.read_text().splitlines()[-1:])


def test_shared_call_budget_stops_new_pairs(tmp_path):
    results = run(tmp_path, model=ScriptedModel(), samples=3, max_requests=10, parallel=1)
    assert sum(r.requests for r in results) <= 10
    assert len(results) < 6


def test_plot_files_are_valid_images(tmp_path):
    results = run(tmp_path, samples=2)
    write_reports(results, SCHEMES, 32, "t", "n", tmp_path)
    assert (tmp_path / "errors.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    root = ET.parse(tmp_path / "errors.svg").getroot()
    assert root.tag.endswith("svg")


def test_unknown_names_are_refused_before_running(tmp_path):
    with pytest.raises(LookupError, match="unknown scheme"):
        plan("sorting", 32, ["io", "magic"], 3)
    with pytest.raises(Exception, match="no sorting dataset of size 48"):
        plan("sorting", 48, ["io"], 3)


def test_summarise_quartiles_by_hand():
    def pair(error):
        return PairResult(
            "io", 0, error, error, error == 0, "x", 1, 1, 10, 0.0, 0.1, 1, 1, "m", True
        )

    rows = summarise([pair(e) for e in (0, 2, 4, 6, 8)], ["io"])
    assert (rows[0].q1, rows[0].median, rows[0].q3) == (2, 4, 6)
    assert rows[0].solved == 1


@pytest.mark.slow
def test_eval_command_writes_every_file_and_resumes(tmp_path, capsys):
    from thoughtgraph.cli.main import main

    def run_cli(*args):
        try:
            main(list(args))
        except SystemExit as exc:
            return exc.code or 0
        return 0

    out = tmp_path / "ev"
    args = ("eval", "sorting", "--size", "32", "--schemes", "io,got", "--samples", "2")
    code = run_cli(*args, "--out", str(out))
    captured = capsys.readouterr()
    assert code == 0 and "| io |  | 2 |" in captured.out and "SIMULATED" in captured.err
    for name in ("results.jsonl", "summary.md", "summary.csv", "errors.png", "errors.svg"):
        assert (out / name).exists(), name
    code = run_cli(*args, "--out", str(out))
    assert code == 0 and "4 pairs already done" in capsys.readouterr().err
    assert len((out / "results.jsonl").read_text().splitlines()) == 4
    code = run_cli("eval", "sorting", "--schemes", "io,nope", "--out", str(out))
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: unknown scheme 'nope'")


# --- user mistakes and reruns: one line, exit 2; nothing reused from another evaluation -------
def eval_cli(capsys, out, *args):
    from .conftest import run_cli

    return run_cli(
        capsys, "eval", "sorting", "--samples", "2", "--schemes", "io", "--out", str(out), *args
    )


def test_a_budget_of_zero_runs_nothing_and_says_so(tmp_path, capsys):
    code, out, err = eval_cli(capsys, tmp_path / "d", "--max-requests", "0")
    assert code == 1 and "Traceback" not in err
    assert err.splitlines()[-1].startswith("nothing ran")
    assert (tmp_path / "d" / "summary.md").exists() and not (tmp_path / "d" / "errors.png").exists()
    assert "| scheme |" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (("--max-requests", "-1"), "error: --max-requests must be at least 0, got -1"),
        (
            ("--dataset", "countries"),
            "error: dataset countries is for task 'keyword-counting', not 'sorting'",
        ),
        (
            ("--size", "64", "--dataset", "sorting_032"),
            "error: --size 64 does not match dataset sorting_032 (size 32); give one of them",
        ),
    ],
)
def test_bad_options_are_one_line_before_any_banner(tmp_path, capsys, args, message):
    code, _, err = eval_cli(capsys, tmp_path / "d", *args)
    assert code == 2 and err == message + "\n"
    assert not (tmp_path / "d").exists()


def test_an_out_that_is_a_file_or_a_results_folder_is_one_line(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    code, _, err = eval_cli(capsys, tmp_path / "file")
    assert code == 2 and err == f"error: --out {tmp_path / 'file'} is a file, not a folder\n"
    (tmp_path / "d" / "results.jsonl").mkdir(parents=True)
    code, _, err = eval_cli(capsys, tmp_path / "d")
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"error: {tmp_path / 'd' / 'results.jsonl'} is not a file")


@pytest.mark.slow
def test_a_rerun_with_another_model_or_dataset_is_refused(tmp_path, capsys):
    folder = tmp_path / "d"
    code, _, _ = eval_cli(capsys, folder, "--model", "sim:error=0")
    assert code == 0
    assert json.loads((folder / "eval.json").read_text()) == {
        "task": "sorting",
        "dataset": "sorting_032",
        "size": 32,
        "model": "sim:profile=gpt-3.5-paper,latency=0,error=0,seed=0",
        "rows": {"io": {"scheme": "io", "settings": {"score_samples": 0}}},
        "problem_sizes": [32, 32],
    }
    before = (folder / "results.jsonl").read_text()
    for args in (("--model", "sim:error=2"), ("--size", "64", "--model", "sim:error=0")):
        code, _, err = eval_cli(capsys, folder, *args)
        assert code == 2 and err == (
            f"error: {folder} holds an evaluation of sorting on "
            "sorting_032 with model sim:profile=gpt-3.5-paper,latency=0,error=0,seed=0; "
            "use another --out\n"
        )
    assert (folder / "results.jsonl").read_text() == before
    code, _, err = eval_cli(capsys, folder, "--model", "sim:error=0")  # the same: resumed
    assert code == 0 and "2 pairs already done" in err


@pytest.mark.slow
def test_a_folder_from_before_manifests_is_checked_by_its_results_model(tmp_path, capsys):
    folder = tmp_path / "d"
    assert eval_cli(capsys, folder, "--model", "sim:error=0")[0] == 0
    (folder / "eval.json").unlink()
    code, _, err = eval_cli(capsys, folder, "--model", "sim:error=2")
    assert code == 2 and "holds an evaluation of sorting" in err
    code, _, err = eval_cli(capsys, folder, "--model", "sim:error=0")
    assert code == 0 and "2 pairs already done" in err and (folder / "eval.json").exists()


def test_schemes_are_deduplicated_and_samples_clipped_with_a_note(tmp_path, capsys):
    from .conftest import run_cli

    code, out, err = run_cli(
        capsys,
        "eval",
        "keyword-counting",
        "--schemes",
        "io,io",
        "--samples",
        "150",
        "--max-requests",
        "3",
        "--out",
        str(tmp_path / "k"),
    )
    lines = err.splitlines()
    assert lines[0] == "note: dataset countries has 100 samples; --samples 150 clipped to 100"
    assert "1 schemes x 100 samples" in lines[1] and not any(x.startswith("error:") for x in lines)
    assert out.startswith("# keyword-counting on countries: 100 samples")  # no size claimed
    assert code == 1  # the budget stopped it
    assert plan("sorting", 32, ["io", "io", "got", "io"], 1).schemes == ("io", "got")


@pytest.mark.slow
@pytest.mark.parametrize("honour_n", [True, False])
def test_parallel_pairs_sharing_a_cache_never_pay_twice_for_one_answer(tmp_path, honour_n):
    """io#0 and tot#0 both open with the same prompt (sample 0 of it). Run one after the other,
    the second takes it from the cache; run side by side they must too: one request for it,
    and every answer the server sent is a row of the cache."""
    import sqlite3

    from thoughtgraph.models import inflight

    from .fake_openai import FakeOpenAI

    inflight.forget_endpoints()
    cache = tmp_path / "answers.sqlite"
    with FakeOpenAI(honour_n=honour_n) as server:
        the_plan = plan("sorting", 32, ("io", "tot", "got", "got_paper"), 2)
        model = f"openai:m,base_url={server.base_url},max_retries=0"
        options = RunOptions(cache=str(cache))
        asyncio.run(run_pairs(the_plan, model, tmp_path / "out", options, parallel=8))
    inflight.forget_endpoints()
    with sqlite3.connect(cache) as db:
        rows = db.execute("SELECT count(*) FROM answers").fetchone()[0]
    assert server.answered == rows
    results = load_results(tmp_path / "out")
    assert sum(r.requests for r in results) == len(server.requests)
    singles = [r.body["messages"][-1]["content"] for r in server.requests if r.n == 1]
    if honour_n:  # every n=1 request is sample 0 of its prompt: none may be sent twice
        assert len(singles) == len(set(singles))


def test_pairs_whose_every_request_failed_are_an_error_then_retried(tmp_path, capsys):
    """An endpoint answering HTTP 500 to everything: each pair "scores" the unsorted input, which
    must not pass for the model's error rate with exit 0; once the endpoint is back, the same
    command runs those pairs again (their spend stays counted)."""
    from thoughtgraph.models import inflight

    from .fake_openai import FakeOpenAI

    out = tmp_path / "d"
    with FakeOpenAI(fault_rate=1.0) as server:
        flags = ("--model", "openai:m,max_retries=0", "--base-url", server.base_url)
        code, _, err = eval_cli(capsys, out, *flags, "--no-progress")
        failed = len(server.requests)
        server.fault_rate = 0.0
        again, _, err_again = eval_cli(capsys, out, *flags, "--no-progress")
    inflight.forget_endpoints()
    assert code == 2 and "Traceback" not in err
    assert err.splitlines()[-1] == (
        "error: 2 of 2 pairs got no answer from the model (every request failed or raised), so "
        "they are counted apart (no_answer), left out of the medians, intervals, pairs and the "
        "figure, and not solved: io#0, io#1 (run the same command again to retry them)"
    )
    assert again == 0 and "error" not in err_again
    rows = load_results(out)
    assert [r.completions for r in rows] == [0, 0, 1, 1]  # the new lines supersede the old
    assert sum(r.requests for r in rows) == len(server.requests) == failed + 2


@pytest.mark.slow
def test_a_cap_holds_across_a_rerun_after_pairs_were_cut_short(tmp_path):
    """Ctrl-C while every pair is mid-run: no line is written, yet 8 requests were paid. The
    rerun's budget must count them, so the two runs together never pass --max-requests."""
    from thoughtgraph.models import inflight

    from .fake_openai import FakeOpenAI, Fault

    the_plan = plan("sorting", 32, ("got",), 2)
    out, cap = tmp_path / "out", 12

    async def interrupted(server: FakeOpenAI) -> None:
        model = f"openai:m,base_url={server.base_url},max_retries=0"
        run = asyncio.ensure_future(run_pairs(the_plan, model, out, RunOptions(max_requests=cap)))
        while len(server.requests) < 8:  # both pairs' 4 parts are in flight
            await asyncio.sleep(0.01)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run

    with FakeOpenAI(fault_when=lambda body: Fault("delay", 0.5)) as server:
        asyncio.run(interrupted(server))
        assert load_results(out) == [] and len(server.requests) == 8
        model = f"openai:m,base_url={server.base_url},max_retries=0"
        results = asyncio.run(run_pairs(the_plan, model, out, RunOptions(max_requests=cap)))
    inflight.forget_endpoints()
    assert len(server.requests) == cap
    assert sum(r.requests for r in results) == cap - 8
    assert all(r.stop_reason == "budget exhausted" for r in results)


def test_every_repeat_takes_the_default_answer_cap(tmp_path):
    """`--repeats 2`: the second run of a pair asks the same prompts under a `repeat` setting,
    at the same default cap as the first (before, the repeat's wrapper hid the model's default
    cap from the run, and its requests went without one)."""
    from thoughtgraph.models import inflight

    from .fake_openai import FakeOpenAI

    inflight.forget_endpoints()
    with FakeOpenAI() as server:
        the_plan = plan("sorting", 32, ("io",), 1, repeats=2)
        model = f"openai:m,base_url={server.base_url},max_retries=0"
        asyncio.run(run_pairs(the_plan, model, tmp_path / "out", RunOptions(), parallel=1))
    inflight.forget_endpoints()
    caps = [r.body.get("max_tokens") for r in server.requests]
    assert len(caps) == 2 and isinstance(caps[0], int) and caps[0] == caps[1]
    assert sorted(r.repeat for r in load_results(tmp_path / "out")) == [0, 1]
