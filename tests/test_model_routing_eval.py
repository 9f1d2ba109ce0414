"""`eval --model-for KIND=SPEC` and `evaluate(models=...)`: every pair routes its kinds to their
models under the evaluation's one budget; results.jsonl records each pair's spend per model, the
summary has a table of it, and a rerun with other routed models reruns the pairs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import thoughtgraph
from thoughtgraph.cli.main import main
from thoughtgraph.errors import InputError

from .conftest import run_cli
from .fake_openai import FakeOpenAI

MERGE = "Combine the two partial results"
STRONG = "sim:profile=gpt-3.5-paper,latency=0,error=0,seed=0"
WEAK = "sim:profile=gpt-3.5-paper,latency=0,error=2,seed=0"


@pytest.fixture(autouse=True)
def _no_real_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"):
        monkeypatch.delenv(name, raising=False)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code, out, err = run_cli(capsys, "eval", "sorting", "--no-progress", *args)
    return int(code), out, err


def lines(folder: Path) -> list[dict]:
    text = (folder / "results.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_evaluate_routes_every_pairs_merges_and_records_spend_per_model(tmp_path: Path):
    found = thoughtgraph.evaluate(
        "sorting",
        size=32,
        samples=2,
        schemes=["io", "got"],
        model="sim:error=2",
        models={"merge": "sim:error=0"},
        out=tmp_path / "run",
    )
    got = [r for r in found.results if r.scheme == "got"]
    io = [r for r in found.results if r.scheme == "io"]
    assert got and all(r.model_for == {"merge": STRONG} for r in got)
    for r in got:
        assert r.spend_by_model is not None
        assert r.spend_by_model[STRONG]["kinds"] == ["merge"]
        assert "merge" not in r.spend_by_model[WEAK]["kinds"]
        assert sum(m["requests"] for m in r.spend_by_model.values()) == r.requests
        assert sum(m["tokens"] for m in r.spend_by_model.values()) == r.tokens
    assert all(r.spend_by_model and r.spend_by_model[STRONG]["calls"] == 0 for r in io)
    recorded = lines(tmp_path / "run")
    assert {json.dumps(line["model_for"]) for line in recorded} == {json.dumps({"merge": STRONG})}
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert "**Per model**" in summary and f"| got | {STRONG} | merge |" in summary


def test_the_simulated_routed_model_is_fresh_per_pair(tmp_path: Path):
    """The same answers whatever the order pairs run in: a simulated routed model, like the
    default, is made afresh for each pair (its seeded answers count the prompts it saw)."""
    kwargs = dict(size=32, samples=3, schemes=["got"], model="sim:error=2")
    routed = {"merge": "sim:error=1", "refine": "sim:error=1"}
    one = thoughtgraph.evaluate("sorting", **kwargs, models=routed, concurrency=1)
    many = thoughtgraph.evaluate("sorting", **kwargs, models=routed, concurrency=16)
    assert [r.error for r in one.results] == [r.error for r in many.results]
    assert [r.spend_by_model for r in one.results] == [r.spend_by_model for r in many.results]


def test_a_rerun_with_other_routed_models_reruns_the_pairs_that_call_them(capsys, tmp_path):
    out = str(tmp_path / "run")
    base = ["--size", "32", "--samples", "2", "--schemes", "io,got", "--out", out]
    code, _, err = run(capsys, *base)
    assert code == 0, err
    code, _, err = run(capsys, *base, "--model-for", "merge=sim:error=0")
    # got merges: its pairs run again; io makes no merge call: its pairs are as they were
    assert "note: 2 pairs rerun: the models of the kinds routed to others changed" in err
    assert "2 pairs already done" in err
    code, _, err = run(capsys, *base, "--model-for", "merge=sim:error=0")
    assert "4 pairs already done" in err and "rerun" not in err
    code, _, err = run(capsys, *base, "--model-for", "merge=sim:error=1")
    assert "note: 2 pairs rerun: the models of the kinds routed to others changed" in err


def test_a_kind_routed_to_the_default_model_is_no_route_and_reruns_nothing(capsys, tmp_path):
    """`--model-for merge=<--model's spec>` (in any spelling) is the plain model: a resumed eval
    reuses every pair, and the banner and the results name no route."""
    out = str(tmp_path / "run")
    base = ["--size", "32", "--samples", "2", "--schemes", "io,got", "--out", out]
    code, _, err = run(capsys, *base, "--model", WEAK)
    assert code == 0, err
    for same in (WEAK, "sim:error=2"):  # the default profile, latency and seed spelled out or not
        code, _, err = run(capsys, *base, "--model", WEAK, "--model-for", f"merge={same}")
        assert code == 0 and "4 pairs already done" in err and "rerun" not in err, err
        assert "(merge:" not in err
    assert all(row.get("model_for") is None for row in lines(Path(out)))


def test_a_resumed_eval_says_when_a_models_price_changed(capsys, tmp_path):
    """The pairs already done keep the cost they were paid at: a resumed eval at another price
    for the routed model (or the default one) says so in one line, and nothing when it is not."""
    out = str(tmp_path / "run")
    base = ["--size", "32", "--samples", "2", "--schemes", "io,got", "--out", out]
    merger = "merge=sim:error=0,price_in={0},price_out={0}"
    code, _, err = run(capsys, *base, "--model-for", merger.format(1))
    assert code == 0 and "price changed" not in err, err
    code, _, err = run(capsys, *base, "--model-for", merger.format(1))
    assert code == 0 and "price changed" not in err, err
    code, _, err = run(capsys, *base, "--model-for", merger.format(2))
    assert code == 0 and "4 pairs already done" in err, err
    [line] = [line for line in err.splitlines() if "price changed" in line]
    assert line == (
        "note: the price changed since pairs already done ran (2 ran "
        "sim:profile=gpt-3.5-paper,latency=0,error=0,seed=0 at 1/1, now 2/2; USD per "
        "million tokens in/out): their costs stay as they were paid"
    )
    code, _, err = run(capsys, *base, "--model-for", merger.format(2), "--price-in", "3",
                       "--price-out", "4")  # fmt: skip
    assert code == 0 and "4 ran sim:profile=gpt-3.5-paper,latency=0,error=1,seed=0 at no " \
        "price, now 3/4" in err, err  # fmt: skip
    assert "2 ran sim:profile=gpt-3.5-paper,latency=0,error=0,seed=0 at 1/1, now 2/2" in err


def test_a_bad_kind_is_one_line_before_anything_runs(capsys, tmp_path: Path):
    code, _, err = run(
        capsys, "--samples", "1", "--out", str(tmp_path / "a"), "--model-for", "x=sim"
    )
    assert code == 2 and err.startswith("error: --model-for: unknown call kind 'x' (known: part,")
    assert not (tmp_path / "a").exists()
    with pytest.raises(InputError, match=r"^models: unknown call kind 'parts'"):
        thoughtgraph.evaluate("sorting", samples=1, models={"parts": "sim"})


def test_ray_takes_routed_models_as_specs_only(tmp_path: Path):
    with pytest.raises(
        InputError, match=r"^models merge: with ray give each routed kind a model spec"
    ):
        thoughtgraph.evaluate(
            "sorting", samples=1, models={"merge": lambda p: "[1]"}, ray="auto", out=tmp_path / "r"
        )
    assert not (tmp_path / "r").exists()


@pytest.fixture
def servers() -> Iterator[tuple[FakeOpenAI, FakeOpenAI]]:
    with FakeOpenAI(error=0.0) as small, FakeOpenAI(error=0.0) as big:
        yield small, big


def _prompts(server: FakeOpenAI) -> list[str]:
    return [r.body["messages"][0]["content"] for r in server.requests]


def test_an_eval_over_two_servers_sends_each_its_kinds_and_one_budget_stops_both(
    capsys, servers, tmp_path: Path
):
    small, big = servers
    out = tmp_path / "run"
    code, _, err = run(
        capsys,
        "--size",
        "32",
        "--samples",
        "4",
        "--schemes",
        "got",
        "--model",
        f"openai:small@{small.base_url}",
        "--model-for",
        f"merge=openai:big@{big.base_url}",
        "--max-retries",
        "0",
        "--max-requests",
        "20",
        "--out",
        str(out),
    )
    assert code == 1, err  # the budget stopped the evaluation
    assert len(small.requests) + len(big.requests) == 20
    assert small.requests and big.requests
    assert all(p.startswith(MERGE) for p in _prompts(big))
    assert not any(p.startswith(MERGE) for p in _prompts(small))
    recorded = lines(out)
    small_label = f"openai:small@127.0.0.1:{small.port}"
    big_label = f"openai:big@127.0.0.1:{big.port}"
    per_model = {small_label: 0, big_label: 0}
    for line in recorded:
        for label, figures in line["spend_by_model"].items():
            per_model[label] += figures["requests"]
    assert per_model == {small_label: len(small.requests), big_label: len(big.requests)}


def test_compare_names_the_routed_models_of_each_run(capsys, tmp_path: Path):
    base = ["--size", "32", "--samples", "2", "--schemes", "got"]
    run(capsys, *base, "--out", str(tmp_path / "one"))
    run(capsys, *base, "--out", str(tmp_path / "two"), "--model-for", "merge=sim:error=0")
    try:
        main(["compare", str(tmp_path / "one"), str(tmp_path / "two")])
    except SystemExit as exc:
        assert not exc.code
    out, err = capsys.readouterr()
    assert f"(merge: {STRONG})" in out, out + err
    manifest = json.loads((tmp_path / "two" / "eval.json").read_text())
    assert manifest["model_for"] == {"merge": STRONG}


def test_a_routed_kind_no_row_calls_is_a_note(capsys, tmp_path: Path):
    code, _, err = run(
        capsys,
        "--samples",
        "1",
        "--schemes",
        "io,cot",
        "--model-for",
        "merge=sim:error=0",
        "--out",
        str(tmp_path / "run"),
    )
    assert code == 0, err
    assert (
        "note: --model-for merge: no row of this evaluation makes a merge call (they call: cot, io)"
        in err
    )


def test_a_cost_cap_takes_each_models_own_spec_price_and_stops_the_whole_eval(
    capsys, tmp_path: Path
):
    """`--max-cost` over specs priced by their own `price_in=`/`price_out=` (the default's too,
    as solve takes them): the whole evaluation, every model's cost counted at its own price,
    stays within the cap; a routed model with no price is one line naming it."""
    out = tmp_path / "capped"
    args = ["--size", "32", "--samples", "4", "--schemes", "got,io", "--out", str(out)]
    code, _, err = run(
        capsys,
        *args,
        "--model",
        "sim:error=2,price_in=1,price_out=2",
        "--model-for",
        "merge=sim:error=0,price_in=50,price_out=100",
        "--max-cost",
        "0.01",
    )
    assert code in (0, 1), err
    rows = lines(out)
    paid = sum(row["cost"] for row in rows)  # no request once the cap is paid or reserved:
    assert 0.005 < paid < 0.011  # past it by at most what was in flight then
    dear = "sim:profile=gpt-3.5-paper,latency=0,error=0,seed=0"
    merges = sum(row["spend_by_model"][dear]["cost"] for row in rows)
    assert merges > paid / 2  # the merges counted at their own, dearer price
    assert any(row["stop_reason"] == "budget exhausted" for row in rows)
    code, _, err = run(
        capsys,
        *args[:-1],
        str(tmp_path / "unpriced"),
        "--model",
        "sim:error=2,price_in=1,price_out=2",
        "--model-for",
        "merge=sim:error=0",
        "--max-cost",
        "0.01",
    )
    assert code == 2 and err.strip().splitlines()[-1].startswith(
        "error: --max-cost needs a price: sim:"
    )
    assert "error=0" in err.strip().splitlines()[-1]
    assert not (tmp_path / "unpriced" / "results.jsonl").exists()
