"""`tune --propose N`: the model writes rewrites of each prompt slot, searched with the others."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from thoughtgraph.engine.context import template_for
from thoughtgraph.evaluation.prompt_variants import Variants
from thoughtgraph.sim import propose as sim_propose
from thoughtgraph.sim.model import SimulatedModel
from thoughtgraph.tasks import get_task
from thoughtgraph.tasks.prompts import PromptTemplate
from thoughtgraph.tuning import propose

from .conftest import run_cli
from .test_tune import study_of, tune_args

optuna = pytest.importorskip("optuna")
PART = template_for(get_task("sorting"), "part").source
FILLS = frozenset({"task", "part", "format", "previous_errors"})
ALL_FILLS = FILLS | {"result_a", "result_b", "result", "errors"}


def test_the_meta_prompt_shows_the_template_as_written_its_job_and_the_history():
    first = propose.meta_prompt("part", PART, [])
    assert PART in first and "{{part}}" in first and "one part of a larger problem" in first
    assert "Variants of this template already tried" not in first
    later = propose.meta_prompt(
        "part", PART, [("best: careful", 0.25, "CAREFUL {{part}}"), ("worst: default", 3, PART)]
    )
    assert '<variant label="best: careful" error="0.25">\nCAREFUL {{part}}\n</variant>' in later
    assert 'label="worst: default" error="3"' in later
    # a model-scored task: the proposer sees the rating (higher is better), not a shortfall
    rated = propose.meta_prompt("part", PART, [("best: careful", 2.5, "C {{part}}")], scale=10)
    assert '<variant label="best: careful" rating="7.5">' in rated and "error=" not in rated
    assert "mean rating (0 to 10, higher is better)" in rated


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ("<template>Be careful. " + PART + "</template>", True),
        ("Sure! <template>\n" + PART.replace("{{part}}", "") + "\n</template>", False),  # no data
        ("<template>" + PART + " {{secret}}</template>", False),  # a value no op fills
        ("<template>{{#if x}}</template>", False),  # does not parse
        (PART, False),  # no tags: not read as a template
    ],
)
def test_a_rewrite_is_kept_only_if_it_is_a_usable_template(reply, kept):
    assert (propose.read_proposal(reply, PART, FILLS) is not None) == kept


def test_the_sim_answers_a_meta_prompt_with_the_template_and_one_sentence_more():
    prompt = propose.meta_prompt("part", PART, [])
    answer = SimulatedModel().answer(prompt, random.Random(3))
    text = propose.read_proposal(answer, PART, FILLS)
    assert text is not None and text.endswith(PART)
    assert text.split("\n", 1)[0] in sim_propose.SENTENCES


def test_history_is_the_best_and_worst_variant_by_mean_tuning_error():
    variants = Variants({"part": {"careful": "C {{part}}"}}, "d").with_proposals(1, {"part": ["P"]})
    trials = [
        SimpleNamespace(params={"prompt.part": "careful"}, values=[1.0, 5]),
        SimpleNamespace(params={"prompt.part": "careful"}, values=[0.0, 5]),
        SimpleNamespace(params={"prompt.part@2": "proposed1_1"}, values=[4.0, 5]),
        SimpleNamespace(params={"prompt.part": "default"}, values=[2.0, 5]),
    ]
    history = propose.history_of(trials, variants, "sorting")["part"]
    assert history == [("best: careful", 0.5, "C {{part}}"), ("worst: proposed1_1", 4.0, "P")]


def spent_calls(study) -> int:
    """Requests the whole tune paid: proposal rounds and report runs, then every trial."""
    spent = sum(r.get("paid", {}).get("requests", 0) for r in study.user_attrs["report_runs"])
    trials = study.get_trials()
    return spent + sum(t.user_attrs["paid"]["requests"] for t in trials if "paid" in t.user_attrs)


def test_propose_runs_within_the_budget_and_its_best_graph_solves(tmp_path, capsys):
    out = tmp_path / "t"
    argv = tune_args(out, "--schemes", "got", "--propose", "4", "--max-calls", "2000")
    code, _out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert "propose round 1: 4 rewrites asked per slot; kept" in err
    study = study_of(out)
    rounds = study.user_attrs["proposals"]
    assert set(rounds) == {"1", "2"} and set(rounds["1"]) == {"part", "merge", "refine"}
    for texts in rounds["1"].values():
        assert texts and all(PromptTemplate(t).variables <= ALL_FILLS for t in texts)
    params = [set(t.params) for t in study.get_trials()]
    assert any("prompt.part" in p for p in params) and any("prompt.part@2" in p for p in params)
    assert 0 < spent_calls(study) <= 2000
    code, printed, err = run_cli(
        capsys,
        "solve",
        "sorting",
        "--dataset",
        "sorting_032",
        "--sample",
        "7",
        "--graph",
        str(out / "best.yaml"),
    )
    assert code == 0 and "status:" in printed, err
    # a second run of the same tune restores the proposals: no new round is asked
    code, _out, err = run_cli(capsys, *argv)
    assert "propose round" not in err and study_of(out).user_attrs["proposals"] == rounds


def test_a_bad_propose_count_is_one_line(tmp_path, capsys):
    code, _out, err = run_cli(capsys, *tune_args(tmp_path / "t", "--propose", "-1"))
    assert code == 2 and err == "error: --propose must be a whole number from 0 to 20, got -1\n"


def test_proposals_and_trials_share_one_budget_that_is_never_passed(tmp_path, capsys):
    out = tmp_path / "t"
    argv = tune_args(out, "--schemes", "got", "--propose", "4", "--max-calls", "40")
    code, _out, err = run_cli(capsys, *argv)
    study = study_of(out)
    runs = study.user_attrs["report_runs"]
    proposal_calls = runs[0]["paid"]["requests"]
    assert proposal_calls == 3  # one call per slot (the sim answers n in one request)
    assert spent_calls(study) <= 40
    assert code == 1 or (code == 2 and "no trial completed" in err), err


def test_the_study_names_its_objectives_for_optuna_dashboard(tmp_path, capsys):
    out = tmp_path / "t"
    code, _out, err = run_cli(capsys, *tune_args(out, "--schemes", "got", "--cost", "tokens"))
    assert code == 0, err
    assert study_of(out).metric_names == ["error (per sample)", "cost (tokens per sample)"]
    assert "[4/4] trial" in err  # the progress of the tune, one line per trial


def test_a_baseline_the_budget_cut_short_is_marked_and_not_the_pick_s_target(tmp_path):
    from thoughtgraph.tuning import report, space

    def row(name, error, cost, mark="front", **extra):
        graph = space.graph_for({"scheme": "got"}, "sorting", 32)
        return report.Row(
            name, "", graph, error, cost, mark=mark, on_front=mark == "front", **extra
        )

    rows = [
        row("trial 1", 0.0, 40.0),
        row("trial 2", 2.0, 10.0),
        row("got (default)", 3.0, 5.0, "baseline", tune_stopped=True),  # cut: error too high
    ]
    about = report.About("tune sorting on sorting_032: model m", "completions", 32, True)
    chosen = report.choose(rows, None)
    report.write(tmp_path, about, chosen, [(0.0, 40.0), (2.0, 10.0)], "")
    md = (tmp_path / "front.md").read_text()
    assert "tuning error at most 0 (no measured default got" in md
    assert "| **got (default)** (baseline) |  | 3 (budget cut) |" in md
    assert "**trial 1** (pick)" in md  # not trial 2, which a target of 3 would have picked
    assert "got (default)" not in (tmp_path / "pareto.svg").read_text()  # not plotted
