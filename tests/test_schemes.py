"""Prompting schemes as graphs: the reference implementation's request/completion counts."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from thoughtgraph import schemes, solve
from thoughtgraph.engine.executor import execute
from thoughtgraph.engine.graph import Graph, Op, built_op
from thoughtgraph.engine.trace import state_dict
from thoughtgraph.evaluation.datasets import load_sample
from thoughtgraph.tasks import SortingTask

# requests / completions per sample when every call succeeds (reference implementation)
TABLE = {
    32: {"io": (1, 1), "cot": (1, 1), "tot": (2, 40), "tot2": (3, 30), "got_paper": (5, 31)},
    64: {"io": (1, 1), "cot": (1, 1), "tot": (4, 80), "tot2": (7, 70), "got_paper": (11, 71)},
    128: {"io": (1, 1), "cot": (1, 1), "tot": (4, 80), "tot2": (10, 100), "got_paper": (23, 151)},
}
CASES = [(size, name, counts) for size, row in TABLE.items() for name, counts in row.items()]


@pytest.mark.parametrize(("size", "name", "counts"), CASES, ids=[f"{n}-{s}" for s, n, _ in CASES])
def test_requests_and_completions_equal_the_reference_implementation(size, name, counts):
    sample = load_sample(f"sorting_{size:03d}", 1)
    graph = schemes.build(name, "sorting", size)
    assert isinstance(graph, Graph)
    result = solve("sorting", sample.input, model="sim:error=0", graph=graph)
    assert (result.calls, result.completions) == counts
    assert result.clean and result.output == sample.reference


def test_cot_sc_asks_k_answers_in_one_request():
    result = solve("sorting", [3, 1, 2], model="sim:error=0", scheme="cot_sc")
    assert (result.calls, result.completions) == (1, 5)
    assert schemes.cot_sc(k=7).op("answers").params.n == 7


def test_tot_keeps_the_previous_best_among_the_candidates():
    graph = schemes.tot(k=3, levels=3)
    assert graph.op("level_3_best").inputs == ("level_3_score", "level_2_best")
    assert graph.op("level_2").inputs == ("level_1_best",)
    assert graph.op("level_2").params.prompt == "improve"


def test_got_paper_structure_matches_the_paper_configuration():
    graph = schemes.build("got_paper", "sorting", 64)
    assert graph.op("split").params.model_dump() == {"parts": 4, "by": "model", "prompt": "split"}
    assert graph.op("part_1").params.n == 5  # sort: Repeat 5 + keep best
    assert graph.op("merge_1_1").params.n == 10  # merge: Repeat 10 + keep best
    assert graph.op("merge_1_1_fix").params.n == 5  # fix of an inner merge
    assert graph.op("merge_2_1_fix").params.n == 10  # fix of the final merge
    # a fix is kept only if it beats the unfixed merge: both feed the keep_best
    assert graph.op("merge_2_1_fix_best").inputs == ("merge_2_1_fix_score", "merge_2_1_best")


def test_every_scheme_round_trips_through_json_and_yaml():
    for name in schemes.SCHEMES:
        graph = schemes.build(name, "sorting", 64)
        assert Graph.from_json(graph.to_json()) == graph
        assert Graph.from_yaml(graph.to_yaml()) == graph


def test_scheme_ops_equal_fully_validated_ops():
    """Schemes build ops without pydantic once a params set is checked: the same ops."""
    graphs = [schemes.build(name, "sorting", 64) for name in schemes.SCHEMES]
    for graph in [*graphs, schemes.tot(score_samples=3)]:
        for op in graph.ops:
            full = Op(id=op.id, kind=op.kind, inputs=op.inputs, params=dict(op.params))
            assert op == full
            assert op.model_fields_set == full.model_fields_set
            assert op.model_dump() == full.model_dump()


def test_built_op_reports_bad_fields_as_op_does():
    built_op("a", "generate", (), {"prompt": "io"})  # its params set is now checked
    for op_id, kind, inputs, params, message in [
        ("a b", "generate", (), {"prompt": "io"}, "pattern"),
        ("a" * 201, "generate", (), {"prompt": "io"}, "at most 200"),
        ("a", "nope", (), {"prompt": "io"}, "unknown op kind"),
        ("a", "generate", (), {"prompt": "io", "n": 0}, "greater than"),
        ("a", "generate", (), {"prompt": "io", "bogus": 1}, "bogus"),
    ]:
        with pytest.raises(ValueError, match=message):
            built_op(op_id, kind, inputs, params)
    op = built_op("b", "generate", ("a",), {"prompt": "io"})
    assert op == Op(id="b", kind="generate", inputs=("a",), params={"prompt": "io"})
    again = built_op("c", "generate", (), {"prompt": "io"})
    assert again.params is op.params  # one checked set, shared: it is frozen
    with pytest.raises(ValidationError, match="frozen"):
        op.params.n = 5  # type: ignore[misc]
    assert again.params.n == 1


def test_build_refuses_unknown_schemes_and_bad_sizes():
    with pytest.raises(LookupError, match="unknown scheme"):
        schemes.build("sot")
    with pytest.raises(Exception, match="cannot exceed"):
        schemes.build("got", size=4, parts=8)


@pytest.mark.parametrize("name", ["tot", "got_paper", "got"])
def test_run_state_is_identical_at_concurrency_1_and_32(name):
    sample = load_sample("sorting_064", 2)
    graph = schemes.build(name, "sorting", 64)
    states = []
    for concurrency in (1, 32):
        from thoughtgraph.sim.model import SimulatedModel

        state = asyncio.run(
            execute(
                graph,
                SortingTask(),
                sample.input,
                SimulatedModel(error=1, seed=5),
                concurrency=concurrency,
            )
        ).state
        data = state_dict(state)
        for call in data["calls"]:
            call.pop("started"), call.pop("ended"), call.pop("latency")
        for op in data["ops"]:
            op.pop("started"), op.pop("ended")
        states.append(data)
    assert states[0] == states[1]


def test_concurrency_one_follows_bfs_order_on_paper_graphs():
    from thoughtgraph.events import Event, OpStarted

    graph = schemes.build("got_paper", "sorting", 64)
    started: list[str] = []

    def spy(event: Event) -> None:
        if isinstance(event, OpStarted):
            started.append(event.op_id)

    asyncio.run(
        execute(
            graph,
            SortingTask(),
            load_sample("sorting_064", 0).input,
            __import__("thoughtgraph").testing.ScriptedModel(lambda p, n: "[1]"),
            concurrency=1,
            on_event=spy,
        )
    )
    assert started == graph.bfs_order()
