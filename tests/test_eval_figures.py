"""The paper's figures (5 and 8), doc-merge on the model score, several sizes in one command,
and a trace behind every box."""

from __future__ import annotations

import asyncio
import csv
import json
import re
import statistics
import sys

import pytest

from thoughtgraph.cli.main import main
from thoughtgraph.evaluation.figures import Panel, figure
from thoughtgraph.evaluation.measures import label
from thoughtgraph.evaluation.report import summarise
from thoughtgraph.evaluation.runner import PairResult, judged, load_results, plan, run_pairs
from thoughtgraph.schemes import build

SCHEMES = ("io", "cot", "tot", "tot2", "got_paper", "got")


def run_cli(*args: str) -> int:
    try:
        main(list(args))
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def pair(scheme: str, sample: int, error: float, solved: bool | None, **extra) -> PairResult:
    fields = {
        "scheme": scheme,
        "sample": sample,
        "error": error,
        "clipped_error": error,
        "solved": solved,
        "status": "x",
        "requests": 2,
        "completions": 3,
        "tokens": 100,
        "cost": 0.0,
        "wall_seconds": 0.1,
        "depth": 1,
        "volume": 1,
        "model": "m",
        "simulated": True,
    }
    return PairResult(**(fields | extra))


def boxed_axes(fig):
    """The panels: axes that hold box plots (their twin cost axes hold bars only)."""
    return [ax for ax in fig.axes if any(str(p.get_gid()).startswith("box-") for p in ax.patches)]


def test_figure_has_a_panel_per_size_a_box_per_scheme_and_solved_counts():
    panels = [
        Panel(
            size,
            [
                pair(s, i, float(i + n), solved=(i == 0 and s == "got"))
                for n, s in enumerate(SCHEMES)
                for i in range(4)
            ],
        )
        for size in (32, 64, 128)
    ]
    fig = figure(panels, SCHEMES, "sorting", "sorting")
    axes = boxed_axes(fig)
    assert [ax.get_title() for ax in axes] == ["P = 32", "P = 64", "P = 128"]
    for ax, size in zip(axes, (32, 64, 128), strict=True):
        boxes = [p for p in ax.patches if str(p.get_gid()).startswith("box-")]
        assert [p.get_gid() for p in boxes] == [f"box-{s}-{size}" for s in SCHEMES]
        assert len({p.get_facecolor() for p in boxes}) == len(SCHEMES)
        solved = {t.get_gid(): t.get_text() for t in ax.texts if t.get_gid()}
        assert solved == {f"solved-{s}-{size}": "1" if s == "got" else "0" for s in SCHEMES}
        ticks = [t.get_text() for t in ax.get_xticklabels()]
        assert ticks[2] == label("tot", "sorting", size) and "L=" in ticks[2]
    assert [t.get_text() for t in boxed_axes(fig)[0].get_xticklabels()][2] == "ToT (L=2, k=20)"
    cost_axes = [ax for ax in fig.axes if ax not in axes]
    assert len(cost_axes) == 3
    for ax, size in zip(cost_axes, (32, 64, 128), strict=True):
        assert [p.get_gid() for p in ax.patches] == [f"cost-{s}-{size}" for s in SCHEMES]
    assert fig.legends and "right axis" in fig.legends[0].get_texts()[0].get_text()


def test_writing_the_figure_draws_it_once_per_file_laid_out_as_drawn(tmp_path, monkeypatch):
    """PNG and SVG: two draws, not four (a layout engine left on the figure makes each savefig
    draw it once more first), and the layout tight_layout made is the one saved."""
    from matplotlib.figure import Figure

    from thoughtgraph.evaluation.figures import write_figure

    draws = []
    real = Figure.draw
    monkeypatch.setattr(
        Figure, "draw", lambda fig, renderer: draws.append(1) or real(fig, renderer)
    )
    panels = [
        Panel(32, [pair(s, i, float(i), solved=i == 0) for s in ("io", "got") for i in range(3)])
    ]
    written = write_figure(panels, ("io", "got"), "sorting", "sorting", tmp_path)
    assert [p.name for p in written] == ["errors.png", "errors.svg"]
    assert len(draws) == 2
    fig = figure(panels, ("io", "got"), "sorting", "sorting")
    assert fig.get_layout_engine() is None
    assert fig.subplotpars.bottom > 0.1  # room made for the legend and the rotated labels


def test_scored_task_plots_the_model_score_without_solved_counts():
    results = [pair(s, i, 3.0, None, final_score=8.0 + i / 10) for s in SCHEMES for i in range(3)]
    fig = figure([Panel(4, results)], SCHEMES, "doc-merge", "doc-merge")
    (ax,) = boxed_axes(fig)
    assert "higher is better" in ax.get_ylabel()
    assert not [t for t in ax.texts if t.get_gid()]  # no reference merge: nothing "solved"
    assert ax.get_ylim()[1] >= 10


@pytest.fixture(scope="module")
def sorting_eval(tmp_path_factory):
    out = tmp_path_factory.mktemp("ev") / "sorting"
    code = run_cli(
        "eval",
        "sorting",
        "--size",
        "32,64,128",
        "--schemes",
        ",".join(SCHEMES),
        "--samples",
        "2",
        "--traces",
        "--out",
        str(out),
        "--no-progress",
    )
    assert code == 0
    return out


def test_several_sizes_in_one_command_give_one_figure_with_a_panel_each(sorting_eval):
    svg = (sorting_eval / "errors.svg").read_text()
    for size in (32, 64, 128):
        assert (sorting_eval / f"size-{size}" / "results.jsonl").exists()
        for scheme in SCHEMES:
            assert f'id="box-{scheme}-{size}"' in svg and f'id="solved-{scheme}-{size}"' in svg
    assert (sorting_eval / "errors.png").read_bytes()[:4] == b"\x89PNG"
    rows = list(csv.DictReader((sorting_eval / "summary.csv").open()))
    assert [(r["size"], r["scheme"]) for r in rows] == [
        (str(size), s) for size in (32, 64, 128) for s in SCHEMES
    ]


def test_every_summary_number_is_recomputed_from_results_jsonl(sorting_eval):
    rows = list(csv.DictReader((sorting_eval / "summary.csv").open()))
    for row in rows:
        folder = sorting_eval / f"size-{row['size']}"
        raw = [json.loads(x) for x in (folder / "results.jsonl").read_text().splitlines()]
        mine = [r for r in raw if r["scheme"] == row["scheme"]]
        errors = [r["error"] for r in mine]
        assert int(row["samples"]) == len(mine)
        assert float(row["median_error"]) == pytest.approx(statistics.median(errors))
        q1, _, q3 = statistics.quantiles(errors, n=4, method="inclusive")
        assert (float(row["q1_error"]), float(row["q3_error"])) == pytest.approx((q1, q3))
        assert int(row["solved"]) == sum(r["solved"] for r in mine)
        for column, key in (
            ("mean_requests", "intrinsic_requests"),
            ("mean_tokens", "intrinsic_tokens"),
            ("mean_cost", "intrinsic_cost"),
        ):
            assert float(row[column]) == pytest.approx(sum(r[key] for r in mine) / len(mine))
        worst = max(mine, key=lambda r: (r["error"], -r["sample"]))
        assert row["worst_trace"] == f"size-{row['size']}/{worst['trace']}"


def test_every_row_and_every_run_links_its_trace(sorting_eval):
    md = (sorting_eval / "summary.md").read_text()
    links = re.findall(r"\]\(([^)]+\.json)\)", md)
    for size in (32, 64, 128):
        for r in load_results(sorting_eval / f"size-{size}"):
            assert f"size-{size}/{r.trace}" in links
            assert (sorting_eval / f"size-{size}" / r.trace).is_file()
    tables = [b for b in md.split("\n\n") if b.startswith("| scheme |")]  # not pairs, repeats
    data_rows = [line for b in tables for line in b.splitlines()[2:]]
    assert len(tables) == 3 and len(data_rows) == 3 * len(SCHEMES)
    assert all("[trace](size-" in line for line in data_rows)


def test_trace_view_opens_the_run_of_a_results_row(sorting_eval, capsys):
    folder = sorting_eval / "size-64"
    third = load_results(folder)[2]
    assert run_cli("trace", "view", str(folder), "--row", "3") == 0
    page = folder / third.trace.replace(".json", ".html")
    assert page.exists() and str(page) in capsys.readouterr().out
    code = run_cli(
        "trace", "view", str(sorting_eval), "--size", "128", "--scheme", "got", "--sample", "1"
    )
    assert code == 0 and (sorting_eval / "size-128" / "traces" / "got-001.html").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--row", "99"), "--row must be between 1 and 12"),
        (("--scheme", "io"), "pick a run: --row N, or --scheme and --sample"),
        (("--scheme", "nope", "--sample", "0"), "has no run of nope on sample 0"),
    ],
)
def test_trace_view_of_a_bad_row_is_one_line(sorting_eval, capsys, args, message):
    assert run_cli("trace", "view", str(sorting_eval / "size-32"), *args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_trace_view_of_a_several_size_folder_asks_for_the_size(sorting_eval, capsys):
    assert run_cli("trace", "view", str(sorting_eval), "--row", "1") == 2
    assert "holds several sizes (32, 64, 128): add --size" in capsys.readouterr().err


def test_a_run_without_traces_says_how_to_get_them(tmp_path, capsys):
    out = tmp_path / "e"
    assert run_cli("eval", "sorting", "--schemes", "io", "--samples", "1", "--out", str(out)) == 0
    assert "[trace]" not in (out / "summary.md").read_text()
    assert run_cli("trace", "view", str(out), "--row", "1") == 2
    assert "ran without --traces" in capsys.readouterr().err


def test_traces_asked_on_resume_say_the_pairs_done_before_have_none(tmp_path, capsys):
    out = tmp_path / "e"
    base = ("eval", "sorting", "--schemes", "io", "--out", str(out))
    assert run_cli(*base, "--samples", "1") == 0
    capsys.readouterr()
    assert run_cli(*base, "--samples", "2", "--traces") == 0
    err = capsys.readouterr().err
    assert "the 1 pairs already done keep none" in err
    assert (
        run_cli("trace", "view", str(out), "--row", "2", "--output", str(tmp_path / "v.html")) == 0
    )


def test_bad_sizes_are_one_line(tmp_path, capsys):
    for args, message in (
        (("--size", "32,x"), "--size must be whole numbers separated by commas"),
        (("--size", "32,64", "--dataset", "sorting_032"), "--dataset names one size"),
        (("--size", "0"), "--size must be at least 1"),
    ):
        assert run_cli("eval", "sorting", *args, "--out", str(tmp_path / "x")) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err


def test_every_doc_merge_scheme_is_measured_by_the_model_score(tmp_path):
    """The spec's `got` is driven by the lexical proxy; a judge op gives it the same model
    score as the other schemes, so no scheme is ranked by its own proxy (no circularity)."""
    assert judged(build("got", "doc-merge", 4), "doc-merge").output.id == "judge"
    assert judged(build("io", "doc-merge", 4), "doc-merge") == build("io", "doc-merge", 4)
    assert judged(build("got", "sorting", 32), "sorting") == build("got", "sorting", 32)
    the_plan = plan("doc-merge", 4, ["io", "got"], 2)
    results = asyncio.run(run_pairs(the_plan, "sim", tmp_path))
    for r in results:
        assert r.solved is None  # there is no reference merge
        assert r.final_score is not None and 0 <= r.final_score <= 10
    rows = summarise(results, ["io", "got"], "doc-merge")
    for row in rows:
        mine = [r for r in results if r.scheme == row.scheme]
        assert row.median == pytest.approx(statistics.median(r.final_score for r in mine))
        assert row.solved is None
        assert row.median_proxy_errors == pytest.approx(statistics.median(r.error for r in mine))


def test_doc_merge_summary_names_the_score_and_the_proxy(tmp_path, capsys):
    out = tmp_path / "dm"
    code = run_cli("eval", "doc-merge", "--schemes", "io,got", "--samples", "1", "--out", str(out))
    assert code == 0
    md = (out / "summary.md").read_text()
    assert "median model score (0-10, higher is better)" in md
    assert "lexical proxy errors (median)" in md and "| solved |" not in md
    header = next(csv.reader((out / "summary.csv").open()))
    assert "median_score" in header and "solved" not in header and "median_error" not in header
    svg = (out / "scores.svg").read_text()
    assert 'id="box-io-' in svg and 'id="box-got-' in svg and "documents" in svg


def test_without_matplotlib_eval_says_in_one_line_what_to_install(tmp_path, capsys, monkeypatch):
    out = tmp_path / "e"
    assert run_cli("eval", "sorting", "--schemes", "io", "--samples", "1", "--out", str(out)) == 0
    assert (out / "errors.png").exists()
    capsys.readouterr()
    for name in ("matplotlib", "matplotlib.pyplot", "matplotlib.patches"):
        monkeypatch.setitem(sys.modules, name, None)  # import matplotlib now fails
    assert run_cli("eval", "sorting", "--schemes", "io", "--samples", "2", "--out", str(out)) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "matplotlib" in line]
    assert notes == [
        "note: no figure written: matplotlib is not installed (pip install 'thoughtgraph[plot]'; "
        "from a clone: pip install -e '.[plot]')"
    ]
    assert not (out / "errors.png").exists()  # no stale figure contradicts the new summary


def test_no_figure_writes_the_summaries_only_and_removes_an_older_figure(tmp_path, capsys):
    out = tmp_path / "e"
    assert run_cli("eval", "sorting", "--schemes", "io", "--samples", "1", "--out", str(out)) == 0
    assert (out / "errors.png").exists() and (out / "errors.svg").exists()
    capsys.readouterr()
    args = ("eval", "sorting", "--schemes", "io,cot", "--samples", "2", "--out", str(out))
    assert run_cli(*args, "--no-figure") == 0
    printed = capsys.readouterr()
    assert not (out / "errors.png").exists() and not (out / "errors.svg").exists()
    assert "| cot |" in (out / "summary.md").read_text()  # the new summary is written
    wrote = [line for line in printed.out.splitlines() if line.startswith("wrote ")]
    assert len(wrote) == 1 and "summary.md" in wrote[0] and "errors." not in wrote[0]
    assert "figure" not in printed.err  # no note about a figure nobody asked for


def test_no_figure_at_several_sizes_writes_no_combined_figure(tmp_path, capsys):
    out = tmp_path / "sizes"
    args = ("eval", "sorting", "--size", "8,16", "--schemes", "io", "--samples", "1")
    assert run_cli(*args, "--out", str(out), "--no-figure") == 0
    assert (out / "summary.md").exists() and not list(out.rglob("errors.*"))
    assert run_cli(*args, "--out", str(out)) == 0  # the default draws them all
    assert {p.relative_to(out).as_posix() for p in out.rglob("errors.png")} == {
        "errors.png",
        "size-8/errors.png",
        "size-16/errors.png",
    }


def test_the_call_budget_is_shared_by_every_size(tmp_path, capsys):
    out = tmp_path / "b"
    args = ("eval", "sorting", "--schemes", "io,cot", "--samples", "3", "--out", str(out))
    assert run_cli(*args, "--size", "32,64", "--max-requests", "8") == 1
    err = capsys.readouterr().err
    small, large = load_results(out / "size-32"), load_results(out / "size-64")
    assert len(small) == 6 and all(r.stop_reason is None for r in small)  # 1 request each
    assert sum(r.requests for r in small + large) == 8  # what size 32 left, size 64 spent
    stopped = [r for r in large if r.stop_reason == "budget exhausted"]
    assert stopped and all(f"{r.scheme}#{r.sample}@64" in err for r in stopped)
    assert "(stopped by the budget, --max-requests 8)" in err
