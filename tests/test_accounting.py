"""Accounting: tokens summed over answers, cost from a price, totals per run and per call kind,
paid and cached apart, in the Result, the JSON output and the trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import thoughtgraph
from thoughtgraph.engine.state import RunState
from thoughtgraph.engine.trace import output_graph
from thoughtgraph.models import inflight
from thoughtgraph.modelspec import from_spec
from thoughtgraph.spend.pricing import PRICES_AS_OF, Price, model_id, price_for, table_price
from thoughtgraph.spend.usage import Usage

from .conftest import INPUT_32, run_cli
from .fake_openai import FakeOpenAI


@pytest.fixture(autouse=True)
def _no_real_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"):
        monkeypatch.delenv(name, raising=False)
    inflight.forget_endpoints()


# --- prices ---------------------------------------------------------------------------------
def test_built_in_prices_match_dated_snapshots_by_longest_prefix():
    assert table_price("gpt-4o-mini-2024-07-18").input == 0.15
    assert table_price("gpt-4o-2024-08-06").input == 2.50
    assert table_price("gpt-4.1-nano").output == 0.40
    assert table_price("gpt-4o-realtime-preview") is None  # a variant, not a snapshot
    assert table_price("gpt-4omni") is None
    assert PRICES_AS_OF in table_price("gpt-4o").source
    assert table_price("llama3:8b") is None


def test_price_for_model_names():
    assert model_id("openai:gpt-4o-mini@127.0.0.1:8000") == "gpt-4o-mini"
    assert model_id("openai:llama3:8b") == "llama3:8b"
    assert model_id("sim:error=0") is None
    assert price_for("openai:gpt-4o-mini").output == 0.60
    assert price_for("sim") is None and price_for("function:f") is None
    assert price_for("sim", 1.0, 3.0) == Price(1.0, 3.0)  # a given price wins everywhere
    assert price_for("openai:gpt-4o", 0.0, 0.0).cost(Usage(10**6, 10**6)) == 0.0


# --- totals ---------------------------------------------------------------------------------
def test_sim_reports_estimated_tokens_and_no_cost_without_a_price():
    result = thoughtgraph.solve("sorting", INPUT_32, model="sim")
    assert result.tokens > 0 and result.cost == 0 and result.price is None
    assert result.paid_calls == result.calls and result.cached_calls == 0
    assert result.state.cost == 0


def test_totals_per_kind_add_up_to_the_run_totals():
    result = thoughtgraph.solve("sorting", INPUT_32, model="sim", price_in=2.0, price_out=8.0)
    kinds = result.spend_by_kind
    assert list(kinds)[:3] == ["part", "merge", "refine"]
    assert {k: s.calls for k, s in kinds.items()} == result.calls_by_kind
    assert sum(s.tokens for s in kinds.values()) == result.tokens
    assert sum(s.cost for s in kinds.values()) == pytest.approx(result.cost)
    calls = result.state.calls.values()
    assert result.cost == pytest.approx(sum(c.cost for c in calls)) == result.state.cost
    assert result.cost == pytest.approx(
        (2.0 * result.spend.prompt_tokens + 8.0 * result.spend.completion_tokens) / 1e6
    )
    totals = output_graph(result.state)[-1]
    assert totals["cost"] == result.state.cost
    assert totals["prompt_tokens"] + totals["completion_tokens"] == result.tokens


@pytest.mark.slow
def test_tokens_of_n_answers_are_summed_to_what_the_server_billed():
    """One request for 5 answers: the server bills the prompt once and each answer; the call's
    usage must be exactly that (not the largest answer's share of the prompt)."""
    with FakeOpenAI() as server:
        model = from_spec(f"openai:gpt-4o-mini,base_url={server.base_url}")
        result = thoughtgraph.solve("sorting", [5, 3, 1, 4], model=model, scheme="cot_sc")
        [request] = server.requests
    [call] = result.state.calls.values()
    assert request.n == 5 and len(call.texts) == 5
    prompt = request.body["messages"][0]["content"]
    assert call.usage.prompt_tokens == len(prompt) // 4  # billed once for the request
    assert call.usage.completion_tokens == sum(max(1, len(t) // 4) for t in call.texts)
    assert result.cost == pytest.approx(
        (0.15 * call.usage.prompt_tokens + 0.60 * call.usage.completion_tokens) / 1e6
    )
    assert result.price.source.startswith(("genai-prices", "built-in table (gpt-4o-mini"))


def test_json_and_trace_carry_totals_per_run_and_per_kind(capsys, tmp_path: Path):
    trace, cache = tmp_path / "run.json", tmp_path / "answers.sqlite"
    args = [
        "solve",
        "sorting",
        "--input",
        str(INPUT_32),
        "--json",
        "--price-in",
        "1",
        "--price-out",
        "4",
        "--cache",
        str(cache),
        "--trace",
        str(trace),
    ]
    code, out, _ = run_cli(capsys, *args)
    first = json.loads(out)
    assert code == 0
    for key in (
        "paid_calls",
        "cached_calls",
        "failed_calls",
        "prompt_tokens",
        "completion_tokens",
        "tokens",
        "cost",
        "saved_tokens",
        "saved_cost",
        "spend_by_kind",
        "budget",
        "price",
    ):
        assert key in first, key
    assert first["paid_calls"] == first["calls"] and first["cost"] > 0
    assert first["spend_by_kind"]["part"]["calls"] == first["calls_by_kind"]["part"]
    assert first["price"]["input_per_million"] == 1.0

    data = json.loads(trace.read_text())
    assert data["result"]["cost"] == first["cost"]
    assert all({"usage", "cost", "cached", "saved"} <= set(c) for c in data["calls"])
    assert sum(c["cost"] for c in data["calls"]) == pytest.approx(first["cost"])
    assert RunState.load(trace).cost == pytest.approx(first["cost"])  # the trace loads back

    code, out, _ = run_cli(capsys, *args[:-2])  # again, on the now full cache
    again = json.loads(out)
    assert again["cached_calls"] == again["calls"] and again["paid_calls"] == 0
    assert again["cost"] == 0 and again["saved_cost"] == pytest.approx(first["cost"])
    assert again["spend_by_kind"]["part"]["cached_calls"] == first["calls_by_kind"]["part"]


def test_summary_shows_cost_only_with_a_price_and_cache_hits(capsys, tmp_path: Path):
    cache = tmp_path / "answers.sqlite"
    _, out, _ = run_cli(capsys, "solve", "sorting", "--input", "[3, 1, 2]", "--cache", str(cache))
    assert "$" not in out and "cache:" not in out
    _, out, _ = run_cli(
        capsys,
        "solve",
        "sorting",
        "--input",
        "[3, 1, 2]",
        "--cache",
        str(cache),
        "--price-in",
        "1",
        "--price-out",
        "1",
    )
    assert " · $0.0000" in out and "cache:   1 call answered from the cache" in out
