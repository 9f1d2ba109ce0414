"""Each op kind is one record: a kind registered in one place is validated, drawn in the JSON
Schema, run by the executor, named in `output_graph` and described in the summary."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import Field

import thoughtgraph
from thoughtgraph import Graph, Op
from thoughtgraph.engine import kinds
from thoughtgraph.engine.graph import json_schema
from thoughtgraph.engine.thought import Thought
from thoughtgraph.engine.trace import output_graph
from thoughtgraph.errors import GraphError

NUMBERS = [3, 1, 2]


class ReverseParams(kinds.Params):
    """Pass the input thoughts on in reverse order, `times` times over (a code op)."""

    times: int = Field(default=1, ge=1, le=3)


async def reverse(ctx: Any, op: Op, inputs: list[Thought]) -> list[Thought]:
    out = list(inputs)
    for _ in range(op.params_as(ReverseParams).times):
        out.reverse()
    return out


def _note(op: Op, calls: int, thoughts: list[Thought]) -> str | None:
    return f"{op.id} reversed"


@pytest.fixture
def registry() -> Iterator[None]:
    """The registry as it was before the test, so the kind added here leaves no trace."""
    before = dict(kinds.all_kinds())
    yield
    kinds.KINDS.clear()
    kinds.KINDS.update(before)


def test_a_kind_registered_in_one_place_runs_end_to_end(registry: None) -> None:
    kinds.register(
        kinds.OpKind("reverse", ReverseParams, reverse, reference_name="reverse_ref", retries=_note)
    )
    graph = Graph(
        ops=(
            Op(id="answers", kind="generate", params={"prompt": "io", "n": 2}),
            Op(id="flip", kind="reverse", inputs=("answers",), params={"times": 1}),
            Op(id="best", kind="keep_best", inputs=("flip",)),
        )
    )
    result = thoughtgraph.solve("sorting", NUMBERS, model="sim:error=0", graph=graph)
    assert result.clean and result.output == sorted(NUMBERS)
    assert result.state.outputs("flip") == result.state.outputs("answers")[::-1]
    entry = next(e for e in output_graph(result.state) if e.get("op_id") == "flip")
    assert entry["operation"] == "reverse_ref"
    assert kinds.get("reverse").retry_note(graph.op("flip"), 0, []) == "flip reversed"
    schema = {v["title"]: v for v in json_schema()["properties"]["ops"]["items"]["oneOf"]}
    assert schema["reverse"]["properties"]["params"]["properties"]["times"]["maximum"] == 3


def test_the_kinds_params_are_checked_like_every_other(registry: None) -> None:
    kinds.register(kinds.OpKind("reverse", ReverseParams, reverse))
    with pytest.raises(GraphError, match=r"op 1 \('flip'\): params.times"):
        Graph.from_dict({"ops": [{"id": "flip", "kind": "reverse", "params": {"times": 9}}]})


def test_an_unknown_kind_names_the_known_ones() -> None:
    with pytest.raises(GraphError, match="unknown op kind 'nope' \\(known: split, select"):
        kinds.get("nope")
    with pytest.raises(GraphError, match="unknown op kind 'nope'"):
        Graph.from_dict({"ops": [{"id": "a", "kind": "nope"}]})


def test_a_taken_name_cannot_be_registered_again(registry: None) -> None:
    with pytest.raises(ValueError, match="already registered"):
        kinds.register(kinds.OpKind("select", ReverseParams, reverse))


def test_every_built_in_kind_has_a_record_with_its_reference_name() -> None:
    names = {name: kind.reference_name for name, kind in kinds.all_kinds().items()}
    assert names == {
        "split": "generate",
        "select": "selector",
        "generate": "generate",
        "aggregate": "aggregate",
        "refine": "improve",
        "validate_and_improve": "validate_and_improve",
        "score": "score",
        "keep_best": "keep_best_n",
        "keep_valid": "keep_valid",
        "ground_truth": "ground_truth_evaluator",
    }
