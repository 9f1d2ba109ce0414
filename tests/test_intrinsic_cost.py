"""A scheme's cost is what it consumed, whether its answers came from the wire or the cache."""

from __future__ import annotations

import asyncio
import csv

import pytest

from thoughtgraph.engine.options import RunOptions
from thoughtgraph.engine.state import Call
from thoughtgraph.evaluation.report import summarise, write_reports
from thoughtgraph.evaluation.runner import load_results, plan, run_pairs
from thoughtgraph.spend.accounting import consumed
from thoughtgraph.spend.pricing import Price
from thoughtgraph.spend.usage import Usage

SCHEMES = ("io", "tot", "tot2", "got")
PRICED = {"price_in": 1.0, "price_out": 2.0}


def run(out, cache, samples=3, parallel=None, **options):
    the_plan = plan("sorting", 32, SCHEMES, samples)
    solve_options = {**PRICED, "cache": str(cache)} if cache else dict(PRICED)
    checked = RunOptions(**solve_options, **options)
    return asyncio.run(run_pairs(the_plan, "sim", out, checked, parallel=parallel))


def per_scheme(results):
    return {
        r.scheme: (r.mean_requests, r.mean_completions, r.mean_tokens, r.mean_cost)
        for r in summarise(results, SCHEMES, "sorting")
    }


def test_consumed_counts_cached_answers_as_if_fetched_and_skips_failed_calls():
    price = Price(1.0, 2.0)
    paid = Call("a", "op", "part", "p", ("x", "y"), 0, 1, usage=Usage(10, 4), requests=1)
    cached = Call("b", "op", "part", "p", ("x",), 0, 1, cached=True, saved=Usage(5, 2))
    failed = Call("c", "op", "part", "p", (), 0, 1, usage=Usage(3, 0), error="500", requests=2)
    used = consumed([paid, cached, failed], price)
    assert (used.requests, used.completions, used.tokens) == (3, 3, 21)
    assert used.cost == pytest.approx((15 * 1.0 + 6 * 2.0) / 1e6)


def test_a_warm_cache_reports_the_same_intrinsic_costs_per_scheme_as_a_cold_one(tmp_path):
    cache = tmp_path / "answers.sqlite"
    cold = run(tmp_path / "cold", cache)
    warm = run(tmp_path / "warm", cache)
    assert sum(r.requests for r in warm) == 0 < sum(r.requests for r in cold)  # warm paid nothing
    assert per_scheme(warm) == per_scheme(cold)
    assert all(v[2] > 0 and v[3] > 0 for v in per_scheme(cold).values())
    # the summary shows the intrinsic figures; the totals show both
    for name, results in (("cold", cold), ("warm", warm)):
        write_reports(results, SCHEMES, 32, name, "", tmp_path / name, task="sorting")
    tables = [
        list(csv.DictReader((tmp_path / name / "summary.csv").open())) for name in ("cold", "warm")
    ]
    assert tables[0] == tables[1]
    warm_md = (tmp_path / "warm" / "summary.md").read_text()
    assert "the runs paid 0 requests, 0 tokens, $0.0000" in warm_md
    consumed_tokens = sum(r.intrinsic_tokens or 0 for r in warm)
    assert f"consumed {sum(r.calls or 0 for r in warm):,} requests, {consumed_tokens:,}" in warm_md


def test_schemes_that_share_answers_through_the_cache_are_not_cheaper_for_it(tmp_path):
    """tot and tot2 open with the same prompts: with one cache the second takes them free, and
    its paid figures drop, but what it consumed stays what a run of it alone consumes."""
    cache = tmp_path / "answers.sqlite"
    together = run(tmp_path / "together", cache, parallel=1)
    alone = asyncio.run(
        run_pairs(
            plan("sorting", 32, ("tot2",), 3),
            "sim",
            tmp_path / "alone",
            RunOptions(**PRICED, cache=str(tmp_path / "own.sqlite")),
        )
    )
    tot2 = [r for r in together if r.scheme == "tot2"]
    assert sum(r.tokens for r in tot2) < sum(r.intrinsic_tokens or 0 for r in tot2)
    assert [r.intrinsic_requests for r in tot2] == [r.intrinsic_requests for r in alone]


def test_a_resumed_run_reports_what_its_pairs_consumed_not_what_the_rerun_paid(tmp_path):
    cache = tmp_path / "answers.sqlite"
    out = tmp_path / "out"
    first = run(out, cache, max_requests=40)
    assert any(r.stop_reason == "budget exhausted" for r in first) or len(first) < 12
    resumed = run(out, cache)
    warm = run(tmp_path / "warm", cache)
    assert len(resumed) == 12 and per_scheme(resumed) == per_scheme(warm)
    lines = load_results(out)
    stopped = {(r.scheme, r.sample) for r in lines[: len(first)] if r.stop_reason}
    again = [r for r in lines[len(first) :] if (r.scheme, r.sample) in stopped]
    assert again and all(r.tokens < (r.intrinsic_tokens or 0) for r in again)  # cache: free
