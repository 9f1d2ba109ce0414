"""`thoughtgraph tune`: the search space, the front, the CLI end to end on the simulated model and
against the loopback OpenAI-compatible server, the whole-tune budget, and resume after kill -9."""

from __future__ import annotations

import builtins
import math
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from thoughtgraph.engine.graph import Graph
from thoughtgraph.tuning import report, space

from .conftest import run_cli
from .fake_openai import FakeOpenAI, Fault
from .test_resume import cli_env

optuna = pytest.importorskip("optuna", reason="optuna is not installed: pip install -e '.[tune]'")

SECONDS = 60


class Fixed:
    """A Suggester that always takes the first choice / the low end (no Optuna needed)."""

    def __init__(self, high: bool = False) -> None:
        self.high = high
        self.asked: list[str] = []

    def suggest_categorical(self, name, choices):
        self.asked.append(name)
        return choices[-1] if self.high else choices[0]

    def suggest_int(self, name, low, high):
        self.asked.append(name)
        return high if self.high else low


# --- the search space ---------------------------------------------------------------------------


@pytest.mark.parametrize("high", [False, True])
@pytest.mark.parametrize("scheme", space.TUNABLE)
def test_every_point_of_the_space_builds_a_runnable_graph(scheme, high):
    params = space.suggest(Fixed(high), [scheme], 64, "sorting")
    graph = space.graph_for(params, "sorting", 64)
    assert Graph.from_json(graph.to_json()) == graph  # what best.yaml holds reads back the same
    if scheme == "got":
        parts = sum(op.kind == "generate" for op in graph.ops)
        assert parts == math.ceil(64 / params["got.part_size"])
        refine = next(op for op in graph.ops if op.kind == "refine")
        assert refine.params.max_refines == params["got.max_refines"]


def test_the_scheme_is_a_choice_only_when_several_are_searched():
    one, several = Fixed(), Fixed()
    space.suggest(one, ["got"], 32, "sorting")
    space.suggest(several, ["got", "tot"], 32, "sorting")
    assert "scheme" not in one.asked and several.asked[0] == "scheme"


def test_part_size_becomes_parts_and_a_label():
    scheme, options = space.options_of({"scheme": "got", "got.part_size": 16}, 128)
    assert (scheme, options) == ("got", {"parts": 8})
    assert space.describe({"scheme": "got", "got.part_size": 16}, 128) == "got parts=8"


def test_schemes_without_knobs_are_refused():
    with pytest.raises(Exception, match="cannot tune 'io'"):
        space.check_schemes(["got", "io"])


def test_baselines_are_the_default_got_and_the_paper_got():
    from thoughtgraph.evaluation.runner import plan
    from thoughtgraph.tuning import baselines

    the_plan = plan("sorting", 64, ["got", "got_paper"], 1)  # as eval builds them, per row
    got = the_plan.sample_graph("got", the_plan.samples[0])
    paper = the_plan.sample_graph("got_paper", the_plan.samples[0])
    got_label = baselines.label("got", "sorting", [(64, got)])
    paper_label = baselines.label("got_paper", "sorting", [(64, paper)])
    assert sum(op.kind == "generate" for op in got.ops) == 8  # the task's part size, 8
    assert got_label == "got parts=8 regen=2 merges=1 refines=2"
    assert "parts=4" in paper_label and "sort_n=5" in paper_label and "merge_n=10" in paper_label
    assert any(op.kind == "split" and op.params.parts == 4 for op in paper.ops)


# --- the front ----------------------------------------------------------------------------------


def test_pareto_keeps_only_points_nothing_beats_on_both():
    points = [(5, 10, "a"), (3, 20, "b"), (4, 30, "c"), (0, 40, "d"), (5, 9, "e"), (0, 50, "f")]
    assert [p[2] for p in report.pareto(points)] == ["e", "b", "d"]


def test_spread_keeps_both_ends():
    assert report.spread(list(range(10)), 3) == [0, 4, 9]
    assert report.spread([1, 2], 5) == [1, 2]


def test_pick_is_the_cheapest_graph_meeting_the_target():
    def row(e, c):
        return report.Row(f"{e}/{c}", "", space.graph_for({"scheme": "tot"}, "sorting", 8), e, c)

    front = [row(8, 5), row(1, 10), row(0, 30)]
    assert report.pick(front, 1).tune_cost == 10
    assert report.pick(front, 0.5).tune_cost == 30
    assert report.pick(front, -1).tune_error == 0  # nothing meets it: the most accurate


# --- the command --------------------------------------------------------------------------------


def tune_args(out: Path, *extra: str) -> list[str]:
    return [
        "tune",
        "sorting",
        "--dataset",
        "sorting_032",
        "--trials",
        "4",
        "--pilot",
        "2",
        "--holdout",
        "2",
        "--parallel",
        "2",
        "--out",
        str(out),
        *extra,
    ]


def study_of(out: Path):
    return optuna.load_study(study_name="thoughtgraph-tune", storage=f"sqlite:///{out}/study.db")


def states(out: Path) -> Counter:
    return Counter(t.state.name for t in study_of(out).get_trials())


def test_tune_on_the_sim_writes_a_front_a_runnable_graph_a_table_and_a_plot(capsys, tmp_path):
    out = tmp_path / "tune"
    code, stdout, err = run_cli(capsys, *tune_args(out))
    assert code == 0, err
    assert "SIMULATED" in err and "(simulated)" in stdout
    assert states(out) == {"COMPLETE": 4}
    for name in ("front.md", "front.csv", "best.yaml", "front-01.yaml", "pareto.png", "study.db"):
        assert (out / name).is_file(), name
    table = (out / "front.md").read_text()
    assert "**got (default)** (" in table and "**got_paper (paper)** (baseline)" in table
    assert "(pick)" in table
    # every trial's values are what its graph measures: the study is the source of the front,
    # the default got (its figures kept in the study too) a candidate beside the trials
    study = study_of(out)
    kept = study.user_attrs["default_run"]
    points = [(t.values[0], t.values[1], f"trial {t.number}") for t in study.trials]
    front = report.pareto([(kept["error"], kept["cost"], "got (default)"), *points])
    assert all(f"**{name}** (" in table for _e, _c, name in front), table
    # the pick runs as a graph file
    code, stdout, err = run_cli(
        capsys, "solve", "sorting", "--dataset", "sorting_032", "--graph", str(out / "best.yaml")
    )
    assert code in (0, 1), err  # solved, or stopped by nothing but its own budget
    assert "graph:" in stdout  # the summary names the graph it ran (was only the message)


def test_a_finished_tune_runs_again_without_new_trials_and_extends_on_more(capsys, tmp_path):
    out = tmp_path / "tune"
    assert run_cli(capsys, *tune_args(out))[0] == 0
    first = [(t.params, t.values) for t in study_of(out).trials]
    assert run_cli(capsys, *tune_args(out))[0] == 0
    assert [(t.params, t.values) for t in study_of(out).trials] == first
    args = tune_args(out)
    args[args.index("--trials") + 1] = "6"
    assert run_cli(capsys, *args)[0] == 0
    assert states(out) == {"COMPLETE": 6}


def test_another_setup_in_the_same_folder_is_refused(capsys, tmp_path):
    out = tmp_path / "tune"
    assert run_cli(capsys, *tune_args(out))[0] == 0
    code, _out, err = run_cli(capsys, *tune_args(out, "--cost", "tokens"))
    assert code == 2 and err.startswith("error: ") and "cost" in err and err.count("\n") == 1


def test_the_budget_caps_the_whole_tune(capsys, tmp_path):
    out = tmp_path / "tune"
    code, _stdout, err = run_cli(capsys, *tune_args(out, "--max-requests", "70", "--trials", "30"))
    assert code == 1 and "budget exhausted" in err
    study = study_of(out)
    paid = sum(t.user_attrs["paid"]["requests"] for t in study.trials)
    paid += sum(
        r.get("paid", {}).get("requests", 0) for r in study.user_attrs.get("report_runs", [])
    )
    assert 0 < paid <= 70
    assert states(out)["COMPLETE"] < 30


def test_a_budget_spent_before_any_trial_says_to_raise_the_budget(capsys, tmp_path):
    code, _stdout, err = run_cli(capsys, *tune_args(tmp_path / "tune", "--max-requests", "3"))
    last = err.strip().splitlines()[-1]
    assert code == 2 and last.startswith("error: no trial completed") and "raise the budget" in last


def test_the_plural_of_one_failed_model_call(capsys):
    from thoughtgraph.cli.main import _unusable

    class _Call:
        error = "boom"

    class _Result:
        calls = 1
        state = type("S", (), {"calls": {"c1": _Call()}})()

    assert _unusable(_Result()).startswith("1 of 1 model call failed")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--trials", "0"], "--trials must be at least 1"),
        (["--cost", "joules"], "--cost must be one of"),
        (["--schemes", "io"], "cannot tune 'io'"),
        (["--pilot", "90", "--holdout", "20"], "exceeds the 100 samples"),
        (["--cost", "usd"], "--cost usd needs a price"),
        (["--max-cost", "1"], "--max-cost needs a price"),
        (["--max-requests", "-1"], "--max-requests must be at least 0"),
        (["--max-calls", "-1"], "--max-requests must be at least 0"),
    ],
)
def test_bad_options_give_one_error_line(capsys, tmp_path, args, message):
    code, _out, err = run_cli(capsys, *tune_args(tmp_path / "t", *args))
    assert code == 2 and err.startswith("error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "t" / "study.db").exists()


@pytest.mark.parametrize(("name", "command"), [("optuna", "tune"), ("ray", "eval")])
def test_without_the_extra_one_line_says_what_to_install(
    capsys, tmp_path, monkeypatch, name, command
):
    real = builtins.__import__

    def refuse(module, *args, **kwargs):
        if module == name or module.startswith(name + "."):
            raise ImportError(f"No module named {name!r}")
        return real(module, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    monkeypatch.delitem(sys.modules, name, raising=False)
    if command == "tune":
        argv = tune_args(tmp_path / "t")
    else:
        argv = ["eval", "sorting", "--samples", "1", "--out", str(tmp_path / "e"), "--ray", "local"]
    code, _out, err = run_cli(capsys, *argv)
    hint = {
        "optuna": "tune needs Optuna: pip install 'thoughtgraph[tune]' (from a clone: pip "
        "install -e '.[tune]')",
        "ray": "--ray needs Ray: pip install 'thoughtgraph[ray]' (from a clone: pip install -e "
        "'.[ray]')",
    }[name]
    assert code == 2 and err == f"error: {hint}\n"


# --- a real OpenAI-compatible server ------------------------------------------------------------


def server_args(server: FakeOpenAI, out: Path, *extra: str) -> list[str]:
    return [
        *tune_args(out, "--schemes", "got", "--parallel", "1", "--pilot", "1", "--holdout", "1"),
        "--model",
        "openai:gpt-4o-mini",
        "--base-url",
        server.base_url,
        *extra,
    ]


def prompts(requests) -> Counter:
    return Counter(r.body["messages"][-1]["content"] for r in requests)


def cached_rows(folder: Path) -> int:
    """Answers in every cache file of a tune's cache folder."""
    total = 0
    for path in folder.glob("*.sqlite"):
        try:
            with sqlite3.connect(path) as db:
                total += db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
        except sqlite3.Error:
            pass  # being created
    return total


def test_tune_against_the_loopback_server_caches_and_a_rerun_pays_nothing(
    capsys, tmp_path, monkeypatch
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    out = tmp_path / "tune"
    with FakeOpenAI(error=0.5) as server:
        code, _stdout, err = run_cli(capsys, *server_args(server, out, "--cost", "usd"))
        assert code == 0, err
        paid = len(server.requests)
        assert paid > 0 and "SIMULATED" not in err
        assert list((out / "cache").glob("*.sqlite"))  # the answer caches beside the study
        study = study_of(out)
        assert sum(t.user_attrs["paid"]["requests"] for t in study.trials) <= paid
        assert all(t.values[1] > 0 for t in study.trials)  # usd from the built-in price table
        assert run_cli(capsys, *server_args(server, out, "--cost", "usd"))[0] == 0
        assert len(server.requests) == paid  # trials, held-out and baselines all from the cache


def settled(server: FakeOpenAI, out: Path, hung: int) -> bool:
    """Request `hung` hangs and every other answer the server sent is in the cache."""
    answered = [r for i, r in enumerate(server.requests) if i != hung]
    return len(server.requests) > hung and cached_rows(out / "cache") == sum(r.n for r in answered)


def default_requests(dataset: str) -> int:
    """The requests the default got makes on the dataset's first sample against an error-free
    server: a tune measures it on its tuning split (here that sample) before its first trial."""
    import thoughtgraph
    from thoughtgraph.evaluation.datasets import load_dataset
    from thoughtgraph.models.openai import OpenAIModel

    with FakeOpenAI(error=0.0) as server:
        model = OpenAIModel("gpt-4o-mini", base_url=server.base_url, api_key="sk-test")
        thoughtgraph.solve("sorting", load_dataset(dataset)[0].given, model, scheme="got")
        return len(server.requests)


def test_kill_9_mid_trial_then_resume_pays_nothing_twice(tmp_path):
    out = tmp_path / "tune"
    at = default_requests("sorting_064") + 3  # the 4th request of the first trial hangs
    with FakeOpenAI(error=0.0) as server:
        argv = [sys.executable, "-m", "thoughtgraph.cli.main", *server_args(server, out)]
        argv[argv.index("sorting_032")] = "sorting_064"
        server.script(*[Fault("delay", 0.0)] * at, Fault("delay", 120))
        first = subprocess.Popen(
            argv, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        try:
            deadline = time.monotonic() + SECONDS
            # kill once the run waits on the hung request alone: every other answer committed,
            # and still so a moment later (nothing else in flight)
            while not (
                settled(server, out, at) and time.sleep(0.3) is None and settled(server, out, at)
            ):
                assert time.monotonic() < deadline and first.poll() is None, "no hang reached"
                time.sleep(0.02)
        finally:
            first.kill()
            first.communicate(timeout=SECONDS)
        assert first.returncode == -9
        hung = server.requests[at].body["messages"][-1]["content"]
        assert Counter(t.state.name for t in study_of(out).trials)["RUNNING"] == 1
        before_resume = len(server.requests)

        second = subprocess.run(
            argv, env=cli_env(), capture_output=True, text=True, timeout=SECONDS * 3
        )
        assert second.returncode == 0, second.stderr
        assert "rerunning killed trial" in second.stderr
        # the answer that never arrived was asked again; every answer that arrived is in the
        # cache exactly once: no answer was paid for twice (a second payment of a cached answer
        # would leave more answers served than cached)
        assert hung in prompts(server.requests[before_resume:])
        served = sum(r.n for r in server.requests) - server.requests[at].n
        assert cached_rows(out / "cache") == served

        trials = study_of(out).trials
        failed = [t for t in trials if t.state.name == "FAIL"]
        assert len(failed) == 1
        rerun = [t for t in trials if t.user_attrs.get("rerun_of") == failed[0].number]
        assert len(rerun) == 1 and rerun[0].params == failed[0].params
        assert rerun[0].state.name == "COMPLETE"
        assert Counter(t.state.name for t in trials)["COMPLETE"] == 4

        before = len(server.requests)
        third = subprocess.run(
            argv, env=cli_env(), capture_output=True, text=True, timeout=SECONDS * 3
        )
        assert third.returncode == 0, third.stderr
        assert len(server.requests) == before


def test_a_dataset_without_a_size_is_tuned_at_its_samples_item_count(capsys, tmp_path):
    out = tmp_path / "docs"
    args = ["tune", "doc-merge", "--dataset", "documents", "--trials", "3", "--parallel", "3"]
    code, _out, err = run_cli(capsys, *args, "--pilot", "1", "--holdout", "1", "--out", str(out))
    assert code == 0, err
    study = study_of(out)
    assert study.user_attrs["manifest"]["size"] == 4  # four documents a sample, not 32
    assert states(out) == {"COMPLETE": 3}  # no graph split 4 documents into more parts
