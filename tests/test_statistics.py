"""Bootstrap intervals, repeats and paired tests (scipy.stats behind the `[stats]` extra)."""

from __future__ import annotations

import asyncio
import csv

import pytest

from thoughtgraph.evaluation import statistics as st
from thoughtgraph.evaluation.report import summarise, write_reports
from thoughtgraph.evaluation.runner import plan, run_pairs

from .conftest import run_cli

scipy_stats = pytest.importorskip("scipy.stats")


def test_a_bootstrap_interval_holds_the_median_and_is_the_same_each_time():
    values = [[v] for v in (3, 9, 4, 7, 5, 12, 6, 5, 8, 2, 4, 6)]
    first, again = st.median_interval(values), st.median_interval(values)
    assert first == again and first.value == 5.5
    assert first.low <= 5.5 <= first.high and first.low < first.high
    assert st.median_interval([[4], [4], [4]]) == st.Interval(4.0, 4.0, 4.0)


def test_repeats_are_resampled_with_their_sample_not_one_by_one():
    """Two samples far apart, each with tight repeats: resampling samples lets the median move
    between the two clusters; resampling runs one by one would treat 8 runs as independent."""
    grouped = st.median_interval([[0, 0, 0, 0], [10, 10, 10, 10]])
    assert (grouped.low, grouped.high) == (0.0, 10.0)


def test_a_paired_comparison_is_scipy_s_wilcoxon_with_rank_biserial_effect():
    b = [5, 8, 3, 9, 4, 7, 6, 2, 8, 5]
    a = [x + 1 for x in b]
    result = st.paired(a, b)
    assert result.difference == st.Interval(1.0, 1.0, 1.0)
    assert result.p == pytest.approx(scipy_stats.wilcoxon([1] * 10).pvalue)
    assert result.effect == 1.0 and (result.a_higher, result.b_higher, result.ties) == (10, 0, 0)
    mixed = st.paired([1, 5, 2, 7, 3], [2, 3, 2, 4, 6])  # d = -1, 2, 0, 3, -3
    plus, minus = 2 + 3.5, 1 + 3.5  # ranks of |d| among the non-zero ones: 1, 2, 3.5, 3.5
    assert mixed.effect == pytest.approx((plus - minus) / (plus + minus))
    assert mixed.ties == 1 and mixed.samples == 5
    same = st.paired([3, 4], [3, 4])
    assert (same.p, same.effect) == (1.0, 0.0)


@pytest.fixture(scope="module")
def repeated(tmp_path_factory):
    out = tmp_path_factory.mktemp("rep")
    the_plan = plan("sorting", 32, ("io", "cot", "got"), 6, repeats=2)
    results = asyncio.run(run_pairs(the_plan, "sim", out))
    write_reports(results, the_plan.schemes, 32, "t", "n", out, task="sorting")
    return out, results


def test_repeats_run_every_pair_again_with_another_seed(repeated):
    _out, results = repeated
    assert sorted({(r.repeat, r.model) for r in results}) == [
        (0, "sim:profile=gpt-3.5-paper,latency=0,error=1,seed=0"),
        (1, "sim:profile=gpt-3.5-paper,latency=0,error=1,seed=1"),
    ]
    assert len(results) == 3 * 6 * 2
    by_repeat = [[r.error for r in results if r.repeat == k] for k in (0, 1)]
    assert by_repeat[0] != by_repeat[1]  # another seed: other slips


def test_the_summary_has_intervals_rates_and_the_spread_across_repeats(repeated):
    out, results = repeated
    rows = {r["scheme"]: r for r in csv.DictReader((out / "summary.csv").open())}
    for scheme, row in rows.items():
        mine = [r for r in results if r.scheme == scheme]
        assert row["samples"] == "6" and row["repeats"] == "2"
        assert float(row["median_ci_low"]) <= float(row["median_error"])
        assert float(row["median_error"]) <= float(row["median_ci_high"])
        rate = sum(r.solved for r in mine) / len(mine)
        assert float(row["solved_rate"]) == pytest.approx(rate)
        medians = [
            st.median_interval([[r.error] for r in mine if r.repeat == k]).value for k in (0, 1)
        ]
        assert row["repeat_medians"] == " ".join(f"{m:g}" for m in medians)
    md = (out / "summary.md").read_text()
    assert "## Repeats" in md and "## Pairs" in md and "| 6 x 2 |" in md


def test_the_pairs_table_compares_every_two_schemes_on_their_samples(repeated):
    out, results = repeated
    pairs = list(csv.DictReader((out / "pairs.csv").open()))
    assert [(p["a"], p["b"]) for p in pairs] == [("io", "cot"), ("io", "got"), ("cot", "got")]
    io_got = pairs[1]
    mean = {
        s: [sum(r.error for r in results if (r.scheme, r.sample) == (s, i)) / 2 for i in range(6)]
        for s in ("io", "got")
    }
    expected = st.paired(mean["io"], mean["got"])
    assert float(io_got["p_wilcoxon"]) == pytest.approx(expected.p)
    assert float(io_got["median_difference"]) == pytest.approx(expected.difference.value)
    assert float(io_got["median_difference"]) > 0  # io makes more errors than got
    assert int(io_got["samples"]) == 6


def test_without_scipy_the_summary_says_how_to_get_intervals(tmp_path, monkeypatch, repeated):
    _out, results = repeated
    monkeypatch.setattr(st, "available", lambda: False)
    from thoughtgraph.evaluation import report

    monkeypatch.setattr(report, "stats_available", lambda: False)
    rows = summarise(results, ("io",), "sorting")
    assert rows[0].stats is None
    write_reports(results, ("io", "got"), 32, "t", "n", tmp_path, task="sorting")
    md = (tmp_path / "summary.md").read_text()
    assert "No confidence intervals: scipy is not installed (pip install" in md
    assert "-e '.[stats]'" in md and not (tmp_path / "pairs.csv").exists()


def test_repeats_below_one_are_one_line(tmp_path, capsys):
    code, _out, err = run_cli(
        capsys, "eval", "sorting", "--samples", "2", "--repeats", "0", "--out", str(tmp_path)
    )
    assert code == 2 and err.strip() == "error: --repeats must be a whole number, at least 1, got 0"
