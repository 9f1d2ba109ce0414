"""The graph of operations as data: validation errors, JSON round-trip, Mermaid, the got builder."""

from __future__ import annotations

import itertools
import json

import pytest

from thoughtgraph.engine.graph import Graph, Op
from thoughtgraph.errors import GraphError
from thoughtgraph.schemes import got
from thoughtgraph.viewer import drawing


def graph(*ops: dict) -> Graph:
    return Graph.from_dict({"ops": list(ops)})


def test_a_cycle_is_refused_and_named():
    with pytest.raises(GraphError, match="cycle") as info:
        graph(
            {"id": "split", "kind": "split", "params": {"parts": 2}},
            {"id": "a", "kind": "generate", "inputs": ["split", "c"]},
            {"id": "b", "kind": "generate", "inputs": ["a"]},
            {"id": "c", "kind": "generate", "inputs": ["b"]},
            {"id": "out", "kind": "refine", "inputs": ["c"]},
        )
    for op_id in ("a", "b", "c"):
        assert op_id in str(info.value)


def test_ops_may_be_listed_in_any_order_and_a_late_cycle_is_still_found():
    listed_backwards = graph(
        {"id": "out", "kind": "refine", "inputs": ["b"]},
        {"id": "b", "kind": "generate", "inputs": ["a"]},
        {"id": "a", "kind": "generate"},
    )
    assert [op.id for op in listed_backwards.ops] == ["out", "b", "a"]
    with pytest.raises(GraphError, match="cycle"):
        graph(
            {"id": "a", "kind": "generate"},
            {"id": "b", "kind": "generate", "inputs": ["a", "d"]},
            {"id": "c", "kind": "generate", "inputs": ["b"]},
            {"id": "d", "kind": "generate", "inputs": ["c"]},
            {"id": "out", "kind": "refine", "inputs": ["d"]},
        )


def test_a_self_loop_is_a_cycle():
    with pytest.raises(GraphError, match="cycle: a"):
        graph({"id": "a", "kind": "generate", "inputs": ["a"]})


def test_unknown_input_is_refused():
    with pytest.raises(GraphError, match="op 'b' has unknown input 'nope'"):
        graph({"id": "a", "kind": "generate"}, {"id": "b", "kind": "refine", "inputs": ["nope"]})


def test_duplicate_id_is_refused():
    with pytest.raises(GraphError, match="duplicate op id 'a'"):
        graph({"id": "a", "kind": "generate"}, {"id": "a", "kind": "refine", "inputs": ["a"]})


def test_unknown_kind_is_refused_with_the_known_ones():
    with pytest.raises(GraphError, match=r"op 1 \('a'\): kind: unknown op kind 'dance'"):
        graph({"id": "a", "kind": "dance"})


def test_unknown_or_bad_params_are_refused():
    with pytest.raises(GraphError, match=r"params.tries: unknown field"):
        graph({"id": "a", "kind": "generate", "params": {"tries": 3}})
    with pytest.raises(GraphError, match=r"params.max_regenerations"):
        graph({"id": "a", "kind": "generate", "params": {"max_regenerations": -1}})
    with pytest.raises(GraphError, match=r"params.parts"):
        graph({"id": "a", "kind": "split", "params": {}})


def test_unknown_op_field_and_bad_shape_are_refused():
    with pytest.raises(GraphError, match="colour: unknown field"):
        graph({"id": "a", "kind": "generate", "colour": "red"})
    with pytest.raises(GraphError, match='list "ops"'):
        Graph.from_dict({"operations": []})
    with pytest.raises(GraphError, match="invalid"):
        Graph.from_json("{not json")


def test_a_graph_needs_exactly_one_output():
    with pytest.raises(GraphError, match=r"exactly one output op.*found 2: a, b"):
        graph({"id": "a", "kind": "generate"}, {"id": "b", "kind": "generate"})
    with pytest.raises(GraphError, match="at least one op"):
        graph()


def test_params_get_their_defaults():
    op = Op(id="p", kind="generate")
    assert op.params.model_dump() == {
        "prompt": "part",
        "n": 1,
        "repeat": 1,
        "max_regenerations": 0,
        "bar": 0,
    }


def test_json_round_trip_is_lossless():
    built = got(parts=5, max_regenerations=1, max_extra_merges=0, max_refines=3)
    again = Graph.from_json(built.to_json())
    assert again == built
    assert json.loads(again.to_json()) == json.loads(built.to_json())


def test_got_builder_shape():
    built = got(parts=4)
    kinds = [op.kind for op in built.ops]
    assert kinds.count("generate") == 4 and kinds.count("aggregate") == 3
    assert built.output.id == "refine"
    assert built.op("merge_2_1").inputs == ("merge_1_1", "merge_1_2")
    assert built.op("part_2").params.max_regenerations == 2
    assert built.op("merge_1_1").params.max_extra_merges == 1
    assert built.op("refine").params.max_refines == 2
    assert built.summary() == "split → 4 × generate → 3 × aggregate → refine"


def test_got_builder_with_odd_parts_carries_the_odd_one_up():
    built = got(parts=5)
    merges = [op for op in built.ops if op.kind == "aggregate"]
    assert len(merges) == 4  # pairwise merges of 5 thoughts always take 4
    assert built.op("merge_3_1").inputs == ("merge_2_1", "part_5")


def test_got_builder_with_arity_three():
    built = got(parts=9, arity=3)
    assert built.op("merge_1_1").inputs == ("part_1", "part_2", "part_3")
    assert built.op("merge_2_1").inputs == ("merge_1_1", "merge_1_2", "merge_1_3")


def test_mermaid_export_draws_every_op_and_edge():
    text = drawing.mermaid(got(parts=2))
    assert text.startswith("flowchart TD")
    assert "op_part_1 --> op_merge_1_1" in text and "op_merge_1_1 --> op_refine" in text
    assert text.count("-->") == sum(len(op.inputs) for op in got(parts=2).ops)


def test_bfs_order_matches_the_reference_controller():
    order = got(parts=2).bfs_order()
    assert order == ["split", "select_1", "select_2", "part_1", "part_2", "merge_1_1", "refine"]


def _chain(*ids: str) -> Graph:
    """A straight chain of generate ops, the first reading the input."""
    ops = [Op(id=ids[0], kind="generate", params={"prompt": "io"})]
    ops += [
        Op(id=b, kind="generate", inputs=[a], params={"prompt": "io"})
        for a, b in itertools.pairwise(ids)
    ]
    return Graph(ops=ops)


def test_the_scheduler_views_are_worked_out_once_and_say_what_the_ops_say() -> None:
    graph = _chain("a", "b", "c")
    assert graph.successor_ids == {"a": ("b",), "b": ("c",), "c": ()}
    assert graph.input_counts == {"a": 0, "b": 1, "c": 1}
    assert graph.root_ids == ("a",) and graph.output.id == "c"
    assert graph.call_kinds == ("io",) and graph.ops_by_id["b"].id == "b"
    assert graph.successor_ids is graph.successor_ids  # cached, not rebuilt per read
    successors = graph.successors()
    successors["a"].append("z")  # the public copy is the caller's to change
    assert graph.successor_ids["a"] == ("b",) and graph.successors()["a"] == ["b"]


def test_a_copy_with_other_ops_is_rebuilt_not_left_with_the_old_structure() -> None:
    graph = _chain("a", "b", "c")
    assert graph.output.id == "c" and graph.successor_ids["b"] == ("c",)  # cached now
    shorter = graph.model_copy(update={"ops": graph.ops[:2]})
    assert shorter.output.id == "b"
    assert shorter.successor_ids == {"a": ("b",), "b": ()}
    assert shorter.input_counts == {"a": 0, "b": 1}
    with pytest.raises(GraphError):  # checked anew: a copy cannot skip the graph's checks
        graph.model_copy(update={"ops": graph.ops[1:]})
    named = graph.model_copy(update={"name": "mine", "size": 3})
    assert (
        named.name == "mine"
        and named.output.id == "c"
        and named == graph.model_copy(update={"name": "mine", "size": 3})
    )


def test_a_graph_with_its_views_worked_out_pickles_and_its_index_is_read_only() -> None:
    import pickle

    graph = got(parts=4)
    views = (graph.output, graph.templates, graph.call_kinds, graph.rates_with_model)
    views += (graph.successor_ids, graph.input_counts, graph.root_ids, graph.in_place_ids)
    assert graph.op(graph.ops[0].id) is graph.ops_by_id[graph.ops[0].id]
    copied = pickle.loads(pickle.dumps(graph))  # as Ray ships a graph to its workers
    assert copied == graph and copied.output.id == graph.output.id
    assert copied.successor_ids == graph.successor_ids
    with pytest.raises(TypeError):
        graph.ops_by_id["x"] = graph.ops[0]  # type: ignore[index]
