"""Graph files: run a user's file, refuse broken ones before any call, the published schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from thoughtgraph import solve
from thoughtgraph.engine.graph import Graph, json_schema
from thoughtgraph.engine.state import RunState
from thoughtgraph.engine.trace import state_dict
from thoughtgraph.errors import GraphError
from thoughtgraph.testing import ScriptedModel

from .conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]


def test_the_example_graph_files_run(capsys):
    code, out, _ = run_cli(
        capsys,
        "solve",
        "sorting",
        "--dataset",
        "sorting_032",
        "--graph",
        str(ROOT / "examples" / "tot_small.json"),
        "--model",
        "sim:error=0",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["clean"] and (data["calls"], data["completions"]) == (2, 8)
    code, out, _ = run_cli(
        capsys,
        "solve",
        "sorting",
        "--dataset",
        "sorting_064",
        "--graph",
        str(ROOT / "examples" / "got_paper_sorting_64.yaml"),
        "--model",
        "sim:error=0",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and (data["calls"], data["completions"]) == (11, 71)


BROKEN = {
    "unknown_kind.json": (
        {"ops": [{"id": "a", "kind": "ponder"}]},
        "op 1 ('a'): kind: unknown op kind 'ponder'",
    ),
    "unknown_param.json": (
        {"ops": [{"id": "a", "kind": "generate", "params": {"temperature": 2}}]},
        "op 1 ('a'): params.temperature: unknown field",
    ),
    "wrong_type.json": (
        {"ops": [{"id": "a", "kind": "generate", "params": {"n": "five"}}]},
        "op 1 ('a'): params.n: Input should be a valid integer",
    ),
    "cycle.json": (
        {
            "ops": [
                {"id": "a", "kind": "generate", "inputs": ["b"]},
                {"id": "b", "kind": "generate", "inputs": ["a"]},
                {"id": "c", "kind": "keep_best", "inputs": ["b"]},
            ]
        },
        "cycle",
    ),
    "dangling.json": (
        {
            "ops": [
                {"id": "a", "kind": "generate"},
                {"id": "b", "kind": "keep_best", "inputs": ["a", "ghost"]},
            ]
        },
        "op 'b' has unknown input 'ghost'",
    ),
    "inputs_not_list.json": ({"ops": [{"id": "a", "kind": "generate", "inputs": 7}]}, "inputs"),
    "prompt_for_another_op.json": (
        {"ops": [{"id": "a", "kind": "generate", "params": {"prompt": "merge"}}]},
        "op 'a': prompt 'merge' needs result_a, result_b",
    ),
    "unknown_prompt.json": (
        {"ops": [{"id": "a", "kind": "generate", "params": {"prompt": "poem"}}]},
        "op 'a': task 'sorting' has no prompt 'poem'",
    ),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_graph_files_are_refused_with_one_line_naming_the_place(capsys, tmp_path, name):
    data, message = BROKEN[name]
    path = tmp_path / name
    path.write_text(json.dumps(data))
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--input", "[3, 1, 2]", "--graph", str(path)
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err
    assert str(path) in err  # the line names the file
    assert "Traceback" not in err


def test_broken_files_are_refused_before_any_model_call(tmp_path):
    for name, (data, _message) in BROKEN.items():
        path = tmp_path / name
        path.write_text(json.dumps(data))
        model = ScriptedModel()
        with pytest.raises(GraphError):
            solve("sorting", [3, 1, 2], model=model, graph=Graph.load(path))
        assert model.prompts == [], name


def test_invalid_json_and_yaml_files_name_the_file(capsys, tmp_path):
    bad_json = tmp_path / "g.json"
    bad_json.write_text('{"ops": [')
    code, _, err = run_cli(capsys, "solve", "sorting", "--input", "[1]", "--graph", str(bad_json))
    assert code == 2 and str(bad_json) in err and "invalid" in err
    bad_yaml = tmp_path / "g.yaml"
    bad_yaml.write_text("ops: [\n  - id: a\n   kind: x")
    code, _, err = run_cli(capsys, "solve", "sorting", "--input", "[1]", "--graph", str(bad_yaml))
    assert code == 2 and "YAML is invalid" in err


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "twice.yaml",
            "ops:\n- {id: a, kind: generate, params: {prompt: io}}\n"
            "prompts:\n  io: 'A <input>{{input}}</input>'\n  io: 'B {{task}}'\n",
        ),
        (
            "twice.json",
            '{"ops": [{"id": "a", "kind": "generate", "params": {"prompt": "io"}}],'
            ' "prompts": {"io": "A {{input}}", "io": "B {{task}}"}}',
        ),
    ],
)
def test_a_graph_file_that_names_a_prompt_twice_is_refused(capsys, tmp_path, name, text):
    """YAML and JSON keep the last of two equal keys: one of the user's prompts would vanish."""
    path = tmp_path / name
    path.write_text(text)
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--input", "[3, 1, 2]", "--graph", str(path)
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "'io' is given twice" in err and str(path) in err


def test_graph_command_prints_every_format(capsys):
    for fmt, start in (
        ("json", "{"),
        ("yaml", "ops:"),
        ("mermaid", "flowchart TD"),
        ("dot", "digraph"),
    ):
        code, out, _ = run_cli(
            capsys, "graph", "tot", "--task", "sorting", "--size", "64", "--format", fmt
        )
        assert code == 0 and out.startswith(start), fmt
    code, out, _ = run_cli(capsys, "graph", "tot", "--size", "64")
    assert sum(op["kind"] == "generate" for op in json.loads(out)["ops"]) == 4


def test_published_schema_is_up_to_date_and_covers_every_kind(capsys):
    published = json.loads((ROOT / "docs" / "graph.schema.json").read_text())
    assert published == json_schema()
    kinds = {
        v["properties"]["kind"]["const"] for v in published["properties"]["ops"]["items"]["oneOf"]
    }
    assert kinds == {
        "split",
        "select",
        "generate",
        "aggregate",
        "refine",
        "validate_and_improve",
        "score",
        "keep_best",
        "keep_valid",
        "ground_truth",
    }
    code, out, _ = run_cli(capsys, "schema")
    assert code == 0 and json.loads(out) == published


def test_trace_loads_back_as_a_run_state(capsys, tmp_path):
    trace = tmp_path / "run.json"
    code, _, _ = run_cli(
        capsys,
        "solve",
        "sorting",
        "--dataset",
        "sorting_032",
        "--sample",
        "21",
        "--trace",
        str(trace),
    )
    assert code == 0
    state = RunState.load(trace)
    data = json.loads(trace.read_text())
    again = state_dict(state)
    assert again["thoughts"] == data["thoughts"] and again["calls"] == data["calls"]
    assert again["ops"] == data["ops"] and again["edges"] == data["edges"]
    retried = [t for t in state.thoughts.values() if t.previous_attempt]
    assert retried and all(t.previous_attempt in state.thoughts for t in retried)
    # the reference implementation's output_graph: per op, then token and cost totals
    og = data["output_graph"]
    assert og[-1].keys() == {"prompt_tokens", "completion_tokens", "cost"}
    part = next(entry for entry in og if entry.get("op_id") == "part_1")
    assert part["operation"] == "generate" and part["scored"] == [True]
    assert part["scores"] == [state.outputs("part_1")[0].score.value]
