"""`tune --model-for KIND=SPEC` routes kinds in every run; `tune --models NAME=SPEC,...` makes
each trial choose, for each kind of call its graph makes, which candidate answers it, so the
cost/error front holds mixes of models."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

import thoughtgraph
from thoughtgraph import schemes
from thoughtgraph.cli.main import main
from thoughtgraph.errors import InputError, ThoughtgraphError
from thoughtgraph.evaluation.datasets import load_sample
from thoughtgraph.spend.budget import Budget
from thoughtgraph.tuning.config import parse_candidates
from thoughtgraph.tuning.jobs import Job, Outcome, Setup, run_job_sync
from thoughtgraph.tuning.report import Row, model_flags

pytest.importorskip("optuna")

CHEAP = "sim:error=3,price_in=0.1,price_out=0.1"
DEAR = "sim:error=0,price_in=10,price_out=10"
SMALL = {"size": 16, "schemes": "got", "trials": 6, "pilot": 3, "holdout": 2, "parallel": 3}
PRICED = {"model": "sim:error=1,price_in=1,price_out=1", "cost": "usd"}


def test_candidates_are_read_whatever_commas_their_specs_hold():
    assert parse_candidates([f"cheap={CHEAP},dear={DEAR}"]) == {"cheap": CHEAP, "dear": DEAR}
    assert parse_candidates(["a=openai:x@http://127.0.0.1:1/v1,temperature=0", "b=sim"]) == {
        "a": "openai:x@http://127.0.0.1:1/v1,temperature=0",
        "b": "sim",
    }
    with pytest.raises(InputError, match=r"^--models takes NAME=SPEC"):
        parse_candidates(["sim:error=0"])
    with pytest.raises(InputError, match=r"^--models names a twice"):
        parse_candidates(["a=sim,a=sim:error=0"])


def test_each_trial_chooses_a_model_per_kind_and_the_front_prices_each(tmp_path: Path):
    found = thoughtgraph.tune(
        "sorting",
        **SMALL,
        **PRICED,
        candidates={"cheap": CHEAP, "dear": DEAR},
        out=tmp_path / "tune",
    )
    trials = [row for row in found.rows if row.name.startswith("trial")]
    assert trials and all(row.routes for row in trials)
    for row in trials:
        kinds = {kind for kind, _name in row.routes}
        assert kinds <= {"part", "merge", "refine"} and "part" in kinds
        assert all(name in ("cheap", "dear") for _kind, name in row.routes)
        assert "models: " in row.label
    assert all(math.isfinite(row.tune_cost) for row in found.rows)
    on_front = [row for row in found.rows if row.on_front and row.routes]
    assert on_front  # trials that chose their models are on the cost/error front
    for row in on_front:  # and each one's graph file says how to run it with them
        text = (tmp_path / "tune" / row.file).read_text()
        kind, name = row.routes[0]
        assert f"--model-for {kind}={ {'cheap': CHEAP, 'dear': DEAR}[name] }" in text
    front = (tmp_path / "tune" / "front.md").read_text()
    assert "models: " in front


def test_a_job_pays_each_kind_at_its_chosen_models_price():
    """A trial's routes decide each call's model and so its price: all `dear` is every token
    at $10 per million, all `cheap` at $0.10, and parts alone to `dear` in between."""
    setup = Setup(
        task="sorting",
        size=16,
        model_spec="sim:error=1,price_in=1,price_out=1",
        cost_metric="usd",
        candidates=(("cheap", CHEAP), ("dear", DEAR)),
    )
    graph = schemes.build("got", "sorting", 16).to_json(None)
    samples = tuple(
        (i, load_sample("sorting_016", i).input, load_sample("sorting_016", i).reference)
        for i in range(2)
    )

    def run(**routes: str) -> Outcome:
        return run_job_sync(setup, Job.one("t", graph, samples, Budget(), tuple(routes.items())))

    dear = run(merge="dear", part="dear", refine="dear")
    cheap = run(merge="cheap", part="cheap", refine="cheap")
    parts = run(part="dear")
    assert dear.paid_cost == pytest.approx(dear.paid_tokens * 10 / 1e6)
    assert cheap.paid_cost == pytest.approx(cheap.paid_tokens * 0.1 / 1e6)
    assert dear.error == 0  # the sim at error=0 never slips: no regeneration, fewer requests
    assert cheap.paid_requests > dear.paid_requests
    low, high = parts.paid_tokens * 1 / 1e6, parts.paid_tokens * 10 / 1e6
    assert low < parts.paid_cost < high


def test_tune_model_for_routes_every_run(capsys, tmp_path: Path):
    out = tmp_path / "tune"
    args = ["tune", "sorting", "--size", "16", "--schemes", "got", "--trials", "2"]
    args += ["--pilot", "2", "--holdout", "1", "--out", str(out)]
    try:
        main([*args, "--model", "sim:error=3", "--model-for", "merge=sim:error=0"])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    _out, err = capsys.readouterr()
    assert code == 0, err
    assert "note: --models" not in err


def test_candidates_without_a_usd_cost_are_a_note(capsys, tmp_path: Path):
    """`--models` compares models by what they cost: with `--cost completions` (the default)
    a dear model costs what a cheap one does, which the tune says before its first trial."""
    args = ["tune", "sorting", "--size", "16", "--schemes", "got", "--trials", "1"]
    args += ["--pilot", "2", "--holdout", "1", "--out", str(tmp_path / "tune")]
    try:
        main([*args, "--model", "sim:error=1", "--models", f"cheap={CHEAP},dear={DEAR}"])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    _out, err = capsys.readouterr()
    assert code == 0, err
    note = "note: --models: cost = completions counts the same whichever candidate answers"
    assert err.count(note) == 1 and "--cost usd" in err.split(note)[1].splitlines()[0]


def test_a_kind_routed_by_model_for_is_not_a_trials_choice(tmp_path: Path):
    """`--model-for merge=SPEC` routes the merges in every run, the trials' too: beside
    `--models`, the trials choose the models of the other kinds only."""
    found = thoughtgraph.tune(
        "sorting",
        **{**SMALL, "trials": 3},
        **PRICED,
        models={"merge": "sim:error=0,price_in=5,price_out=5"},
        candidates={"cheap": CHEAP, "dear": DEAR},
        out=tmp_path / "tune",
    )
    assert found.trials == 3
    optuna = pytest.importorskip("optuna")
    study = optuna.load_study(
        study_name=None, storage=f"sqlite:///{tmp_path / 'tune' / 'study.db'}"
    )
    chosen = [set(trial.params) for trial in study.trials]
    assert len(chosen) == 3 and all("model.part" in params for params in chosen)
    assert not any("model.merge" in params for params in chosen), chosen


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"candidates": {"only": "sim"}}, "--models needs at least two candidates"),
        ({"candidates": {"a": "sim", "b": "nope"}}, "--models b: unknown model 'nope'"),
        ({"models": {"merges": "sim"}}, "--model-for: unknown call kind 'merges'"),
        (
            {"candidates": {"a": "sim", "b": "sim:error=0"}, "cost": "usd"},
            "--cost usd needs a price: sim:",
        ),
    ],
)
def test_bad_model_choices_are_one_line_before_any_trial(tmp_path: Path, options, expected):
    with pytest.raises(ThoughtgraphError) as caught:
        thoughtgraph.tune("sorting", **SMALL, **options, out=tmp_path / "t")
    assert str(caught.value).startswith(expected) and "\n" not in str(caught.value)


def test_a_front_graphs_models_line_never_holds_a_urls_credentials():
    """A candidate's endpoint may carry `user:password@`: the `# its models:` line of
    front-NN.yaml and best.yaml names the spec with them masked, as every other output does."""
    spec = "openai:big@http://user:s3cretpw@127.0.0.1:9/v1,price_in=1,price_out=2"
    row = cast(Row, SimpleNamespace(routes=(("merge", "big"),)))
    line = model_flags(row, {"big": spec})
    assert "s3cretpw" not in line
    assert line == "--model-for merge=openai:big@http://***@127.0.0.1:9/v1,price_in=1,price_out=2"
