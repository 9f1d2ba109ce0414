"""got_adaptive where the other schemes run: eval (the worst case a sample said before the
first call, never exceeded), its figure, compare, tune's space and the viewer of an eval row."""

from __future__ import annotations

import json

import pytest

from thoughtgraph.evaluation.runner import plan
from thoughtgraph.tuning import space

from .conftest import run_cli

MODEL = "sim:profile=llama-3-70b"  # fixed parts of 32 fail nearly always; of 8, hardly ever
ROWS = "got:parts=2,got_adaptive:parts=2"


@pytest.mark.slow  # two evals with their figures, a compare and a page: seconds
def test_eval_says_each_rows_worst_case_first_and_no_pair_exceeds_it(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["eval", "sorting", "--size", "64", "--samples", "6", "--schemes", ROWS]
    code, printed, err = run_cli(capsys, *args, "--model", MODEL, "--out", str(out), "--traces")
    assert code == 0, err
    the_plan = plan("sorting", 64, ("got:parts=2", "got_adaptive:parts=2"), 6)
    bounds = {row: the_plan.worst_case(row) for row in the_plan.schemes}
    assert bounds["got:parts=2"].requests == 2 * 3 + 2 + 2
    assert bounds["got_adaptive:parts=2"].requests > bounds["got:parts=2"].requests
    banner = err.splitlines()[1]
    assert banner == (
        f"worst case a sample: got:parts=2 {bounds['got:parts=2'].requests} · "
        f"got_adaptive:parts=2 {bounds['got_adaptive:parts=2'].requests} requests "
        "(retries aside)"
    )
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 12
    for row in rows:
        assert row["requests"] <= bounds[row["scheme"]].requests
    grown = [r for r in rows if r["scheme"].startswith("got_adaptive")]
    assert max(r["requests"] for r in grown) > bounds["got:parts=2"].requests  # it grew
    solved = {s: sum(r["solved"] for r in rows if r["scheme"] == s) for s in bounds}
    assert solved["got_adaptive:parts=2"] > solved["got:parts=2"]
    assert "GoT (growing)" in (out / "errors.svg").read_text()
    assert "| got_adaptive:parts=2 |" in printed

    # the viewer of one of its rows shows the ops it grew
    line = next(i for i, r in enumerate(rows, start=1) if r["scheme"].startswith("got_adaptive"))
    page = tmp_path / "row.html"
    code, _out, err = run_cli(
        capsys, "trace", "view", str(out), "--row", str(line), "-o", str(page)
    )
    assert code == 0, err
    assert '"grown_by":"part_1"' in page.read_text() or '"grown_by":"part_2"' in page.read_text()

    # compare pairs its rows with another run's
    again = tmp_path / "again"
    code, _printed, err = run_cli(capsys, *args, "--model", f"{MODEL},seed=1", "--out", str(again))
    assert code == 0, err
    code, table, err = run_cli(capsys, "compare", str(out), str(again), "--format", "json")
    assert code == 0, err
    assert "got_adaptive:parts=2" in table


def test_tune_searches_got_adaptive_growth_within_its_caps():
    assert "got_adaptive" in space.check_schemes(["got_adaptive"])
    largest = dict(space.space_graphs(["got_adaptive"], "sorting", 32))
    graph = next(g for name, g in largest.items() if "parts=16" in name)
    grow = graph.op("part_1").params.grow
    assert (grow.fanout, grow.depth) == (4, 3)  # every count at its high end
    params = {
        "scheme": "got_adaptive",
        "got_adaptive.part_size": 8,
        "got_adaptive.fanout": 2,
        "got_adaptive.depth": 1,
        "got_adaptive.max_regenerations": 1,
        "got_adaptive.max_extra_merges": 0,
        "got_adaptive.max_refines": 1,
    }
    built = space.graph_for(params, "sorting", 32)
    assert built.op("part_1").params.grow.depth == 1 and len(built.ops) == 13
    assert space.describe(params, 32).startswith("got_adaptive depth=1 fanout=2")


def test_show_prompts_names_the_growth_and_sends_nothing_of_it(capsys):
    args = ["solve", "sorting", "--dataset", "sorting_032", "--scheme", "got_adaptive"]
    code, printed, err = run_cli(capsys, *args, "--show-prompts", "--json")
    assert code == 0, err
    sent = json.loads(printed)["prompts"]
    assert [p["op"] for p in sent] == [
        "part_1",
        "part_2",
        "part_3",
        "part_4",
        "merge_1_1",
        "merge_1_2",
        "merge_2_1",
        "refine",
    ]
    assert all("grows at run time" in p["note"] for p in sent if p["op"].startswith("part_"))
