"""Growth at run time (`grow` on a part, `engine/growth.py`): a part still wrong after its
regenerations is cut again in code, its pieces solved and merged back as recorded ops, kept
only if better, within a worst case known before the first call (`engine/worstcase.py`)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from typer.testing import CliRunner

import thoughtgraph
from thoughtgraph import schemes
from thoughtgraph.cli.main import app
from thoughtgraph.engine.graph import Graph
from thoughtgraph.engine.growth import GrowParams, growths, most_per_item
from thoughtgraph.engine.state import RunState
from thoughtgraph.engine.trace import state_dict
from thoughtgraph.errors import GraphError
from thoughtgraph.events import OpStatus, StopReason
from thoughtgraph.testing import ScriptedModel, ints, perfect_sorting_answer, prompt_kind, section

from .conftest import INPUT_32

runner = CliRunner()


def fails_above(limit: int):
    """A model that sorts a part of at most `limit` numbers and drops the first number of any
    longer part; merges and refines are right."""

    def answer(prompt: str, _n: int) -> str:
        right = perfect_sorting_answer(prompt)
        if prompt_kind(prompt) == "part" and len(ints(section(prompt, "part"))) > limit:
            return str(right[1:])
        return str(right)

    return answer


def always_wrong(prompt: str, _n: int) -> str:
    """Every answer drops a number: every part fails, grows, and every merge and refine fails."""
    return str(perfect_sorting_answer(prompt)[1:])


def solve(answer, scheme="got_adaptive", **options):
    return thoughtgraph.solve(
        "sorting", INPUT_32, model=ScriptedModel(answer), scheme=scheme, parts=4, **options
    )


def test_a_failing_part_grows_and_its_merged_pieces_are_kept():
    result = solve(fails_above(4))
    state = result.state
    assert result.clean and result.output == sorted(INPUT_32)
    # every part of 8 failed its three attempts, then grew into two pieces of 4 merged back
    grown = [g for g in growths(state) if g.grown_by.startswith("part_")]
    assert [g.id for g in grown] == [f"part_{i}.g0" for i in range(1, 5)]
    assert all(g.pieces == 2 and g.kept for g in grown)
    record = state.ops["part_2.g0.part_1"]
    assert record.grown_by == "part_2" and record.kind == "generate"
    assert record.inputs == ("part_2.g0.select_1",) and record.status == OpStatus.DONE
    assert state.ops["part_2.g0.split"].inputs == ("part_2",)
    # the part passes on the merged pieces; its own best attempt is kept no more
    assert state.ops["part_2"].outputs == ["part_2.g0.merge_1_1:0.1"]
    assert not state.thoughts["part_2:0.1"].kept
    assert state.thoughts["part_2.g0.split:0"].parents == ("part_2:0.1",)
    assert state.thoughts["part_2.g0.split:0"].content == INPUT_32[8:12]
    # pieces of 4 are never cut again: each answered once, right
    assert state.calls["part_2.g0.part_1:0.1"].kind == "part"
    assert "part_2.g0.part_1.g0.split" not in state.ops


def test_grown_ops_start_after_the_attempts_that_grew_them():
    state = solve(fails_above(4)).state
    assert state.thoughts["part_1:0.3"].round == 3
    assert state.thoughts["part_1.g0.part_1:0.1"].round == 4
    assert state.thoughts["part_1.g0.merge_1_1:0.1"].round == 5
    assert state.ops["part_1"].end_round == 5  # the part waits for what it grew
    assert state.thoughts["merge_1_1:0.1"].round == 6


def test_a_grown_result_no_better_is_not_kept():
    result = solve(always_wrong, max_refines=0)
    state = result.state
    top = state.ops["part_1.g0.merge_1_1"].outputs[0]
    assert state.thoughts[top].score.value >= state.thoughts["part_1:0.1"].score.value
    assert not state.thoughts[top].kept
    assert state.ops["part_1"].outputs == ["part_1:0.1"]
    assert [g.kept for g in growths(state) if g.grown_by == "part_1"] == [False]


def test_growth_recurses_to_its_depth_and_never_below_min_items():
    result = solve(fails_above(2))  # got_adaptive: depth 2, min_items 2
    state = result.state
    assert result.clean
    assert "part_3.g0.part_2.g0.split" in state.ops  # pieces of 4 failed too: cut into 2s
    assert state.ops["part_3.g0.part_2.g0.part_1"].grown_by == "part_3.g0.part_2"
    assert state.thoughts["part_3.g0.part_2.g0.split:1"].content == INPUT_32[22:24]
    shallow = thoughtgraph.solve(
        "sorting",
        INPUT_32,
        model=ScriptedModel(fails_above(2)),
        graph=schemes.got_adaptive(parts=4, depth=2, min_items=4, max_refines=0),
    )
    assert "part_3.g0.split" in shallow.state.ops
    assert not any(op.endswith(".g0.part_2.g0.split") for op in shallow.state.ops)
    assert not shallow.clean  # pieces of 4 still fail and may not be cut below 4 (no refine)


def test_a_wide_growth_merges_each_piece_once():
    graph = schemes.got_adaptive(parts=4, fanout=6, depth=1, min_items=1)
    result = thoughtgraph.solve(
        "sorting", INPUT_32, model=ScriptedModel(fails_above(2)), graph=graph
    )
    state = result.state
    assert result.clean and growths(state)[0].pieces == 6
    merges = [op for op in state.ops if op.startswith("part_1.g0.merge_")]
    assert merges == [f"part_1.g0.merge_{m}" for m in ("1_1", "1_2", "1_3", "2_1", "3_1")]
    assert state.ops["part_1.g0.merge_3_1"].inputs == ("part_1.g0.merge_2_1", "part_1.g0.merge_1_3")
    per_op = Counter(call.op_id for call in state.calls.values())
    assert all(per_op[m] == 1 for m in merges)  # each merge back sent once (its answer is right)
    assert result.requests <= graph.worst_case().requests


def test_the_same_answers_give_the_same_run_at_any_concurrency():
    def trace(concurrency: int) -> dict:
        data = state_dict(solve(fails_above(2), concurrency=concurrency).state)
        for key in ("ops", "calls"):
            for item in data[key]:
                for field in ("started", "ended", "latency"):
                    item.pop(field, None)
        return data

    assert trace(1) == trace(16)


def test_the_trace_reads_back_with_its_grown_ops():
    state = solve(fails_above(2)).state
    data = state_dict(state)
    again = RunState.from_dict(json.loads(json.dumps(data, default=str)))
    assert again.ops == state.ops and again.grown == state.grown
    order = [op["id"] for op in data["ops"]]
    assert order.index("part_1") < order.index("part_1.g0.split") < order.index("select_2")
    grown = next(op for op in data["ops"] if op["id"] == "part_1.g0.merge_1_1")
    assert grown["grown_by"] == "part_1" and grown["params"]["prompt"] == "merge"
    assert "grown_by" not in next(op for op in data["ops"] if op["id"] == "part_1")


def test_the_worst_case_follows_from_the_caps():
    assert most_per_item(3, None) == 3
    one_level = GrowParams(fanout=2, depth=1)
    assert most_per_item(3, one_level) == 3 + 2 * 3 + 1 * 2
    two = GrowParams(fanout=2, depth=2)
    assert most_per_item(3, two) == 3 + 2 * (3 + 2 * 3 + 2) + 2
    assert most_per_item(3, GrowParams(fanout=3, arity=2)) == 3 + 3 * 3 + 2 * 2
    got = schemes.got(parts=4).worst_case()
    assert (got.calls, got.requests) == (4 * 3 + 3 * 2 + 2, 20)
    adaptive = schemes.got_adaptive(parts=4).worst_case()
    assert adaptive.calls == 4 * most_per_item(3, two) + 3 * 2 + 2
    paper = schemes.build("got_paper", "sorting", 64).worst_case()
    assert (paper.calls, paper.answers) == (11, 71)  # one split, 4 + 3 + 3 requests of n
    for b, d in ((2, 2), (2, 3), (3, 2)):  # Tree of Problems: its own count, from the caps
        assert schemes.top(b=b, d=d).worst_case().requests == schemes.top_requests(b, d)


def test_requests_never_exceed_the_worst_case_and_a_model_always_wrong_meets_it():
    graph = schemes.got_adaptive(parts=4)
    bound = graph.worst_case()
    for answer in (always_wrong, fails_above(2), fails_above(4), fails_above(8)):
        result = thoughtgraph.solve("sorting", INPUT_32, model=ScriptedModel(answer), graph=graph)
        assert result.requests <= bound.requests and result.calls <= bound.calls
    worst = thoughtgraph.solve("sorting", INPUT_32, model=ScriptedModel(always_wrong), graph=graph)
    assert worst.requests == bound.requests  # the bound is tight: every cap used up


def test_the_request_budget_still_stops_a_growing_run():
    result = solve(always_wrong, max_requests=12)
    assert result.requests <= 12 and result.stop_reason == StopReason.BUDGET
    statuses = {r.status for r in result.state.ops.values() if r.grown_by}
    assert OpStatus.STOPPED in statuses


def test_got_is_unchanged_and_never_grows():
    graph = schemes.got(parts=4)
    assert all("grow" not in op["params"] for op in graph.to_dict()["ops"])
    result = solve(fails_above(4), scheme="got")
    assert not any(r.grown_by for r in result.state.ops.values())
    assert result.calls == 4 * 3 + 3 * 2 + 1  # three tries a part; merges of wrong parts twice


def test_a_graph_file_can_grow(tmp_path):
    path = tmp_path / "grow.yaml"
    path.write_text(schemes.got_adaptive(parts=4, depth=1).to_yaml())
    graph = Graph.load(path)
    assert graph.op("part_1").params.grow == GrowParams(depth=1)
    result = thoughtgraph.solve(
        "sorting", INPUT_32, model=ScriptedModel(fails_above(4)), graph=graph
    )
    assert result.clean and "part_4.g0.merge_1_1" in result.state.ops


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"grow": {"fanout": 1}}, "fanout"),
        ({"grow": {"fanout": 2, "width": 3}}, "unknown field"),
        ({"n": 3, "grow": {}}, "grow needs n = repeat = 1"),
    ],
)
def test_bad_growth_is_one_line(params, error):
    data = {"ops": [{"id": "p", "kind": "generate", "params": params}]}
    with pytest.raises(GraphError) as caught:
        Graph.from_dict(data)
    assert error in str(caught.value) and "\n" not in str(caught.value)


def test_a_grown_merge_prompt_is_checked_before_any_call():
    data = schemes.got_adaptive(parts=4).to_dict()
    for op in data["ops"]:
        if op["kind"] == "generate":
            op["params"]["grow"]["merge_prompt"] = "joined"
    data["prompts"] = {"joined": "Join {{result_a}} and {{undefined_value}}."}
    with pytest.raises(GraphError, match="undefined_value"):
        thoughtgraph.solve(
            "sorting", INPUT_32, model=ScriptedModel(always_wrong), graph=Graph.from_dict(data)
        )


def test_graph_json_and_solve_json_carry_the_worst_case_and_v_prints_it():
    shown = runner.invoke(app, ["graph", "got_adaptive", "--size", "32", "--json"])
    assert shown.exit_code == 0, shown.output
    report = json.loads(shown.stdout)
    bound = schemes.build("got_adaptive", "sorting", 32).worst_case()
    assert report["worst_case"] == bound.to_dict() and report["graph"]["ops"]
    args = ["solve", "sorting", "-i", json.dumps(INPUT_32), "--scheme", "got_adaptive"]
    solved = runner.invoke(app, [*args, "--json", "-m", "sim:error=3", "--no-progress"])
    assert json.loads(solved.stdout)["worst_case"] == bound.to_dict()
    verbose = runner.invoke(app, [*args, "-v", "-m", "sim:error=3", "--no-progress"])
    before = verbose.stderr.split("run finished")[0]
    assert f"worst case: {bound.requests:,} requests" in before


def test_the_summary_says_what_grew():
    args = ["solve", "sorting", "-i", json.dumps(INPUT_32), "--scheme", "got_adaptive"]
    shown = runner.invoke(app, [*args, "-m", "sim:error=3", "--max-regenerations", "0"])
    grown_line = next(line for line in shown.stdout.splitlines() if line.startswith("grown:"))
    assert ".g0: 2 pieces" in grown_line


def test_the_live_view_counts_grown_calls_in_the_row_that_grew_them():
    import io

    from rich.console import Console

    from thoughtgraph.cli.progress import LiveView

    graph = schemes.got_adaptive(parts=4)
    view = LiveView(graph, "t", console=Console(file=io.StringIO(), width=200))
    result = thoughtgraph.solve(
        "sorting", INPUT_32, model=ScriptedModel(fails_above(4)), graph=graph, on_event=view
    )
    assert view.calls == result.calls and view.in_flight == 0
    grew = sum(
        n
        for op, n in Counter(c.op_id for c in result.state.calls.values()).items()
        if op.startswith("part_2")
    )
    assert view.ops["part_2"].calls == grew == 3 + 2 + 1  # its tries, two pieces, one merge
    assert view.ops["part_2"].best == 1  # its own best; a piece's clean score is not its part's
