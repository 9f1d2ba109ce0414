"""A graph's own prompts: a graph file carries the text of its templates, ops that name them send
it, bad ones are refused before any call, and they survive the JSON/YAML round trip."""

from __future__ import annotations

import json

import pytest

from thoughtgraph import solve
from thoughtgraph.engine.graph import Graph, Op
from thoughtgraph.errors import GraphError
from thoughtgraph.schemes import build
from thoughtgraph.testing import ScriptedModel

from .conftest import run_cli

MINE = """\
Sort the numbers, MARKER-7 style.
<input>{{input}}</input>
{{#if errors}}Earlier errors: {{errors}}{{/if}}"""


def tot_like(prompt: str = "mine", **prompts: str) -> Graph:
    return Graph(
        ops=(
            Op(id="gen", kind="generate", params={"prompt": prompt, "n": 2}),
            Op(id="best", kind="keep_best", inputs=("gen",)),
        ),
        prompts=prompts,
    )


def test_an_op_naming_a_graph_prompt_sends_its_text():
    model = ScriptedModel()
    result = solve("sorting", [3, 1, 2], model=model, graph=tot_like(mine=MINE))
    assert result.clean
    assert model.prompts == ["Sort the numbers, MARKER-7 style.\n<input>[3, 1, 2]</input>\n"]


def test_a_graph_prompt_replaces_a_stock_prompt_of_the_same_name_in_that_graph_only():
    stock = build("got", "sorting", 8, parts=2)
    own = Graph(ops=stock.ops, prompts={"part": "PART-MARKER <part>{{part}}</part>"})
    model = ScriptedModel()
    assert solve("sorting", list(range(8, 0, -1)), model=model, graph=own).clean
    parts = [p for p in model.prompts if "PART-MARKER" in p]
    assert parts == [
        "PART-MARKER <part>[8, 7, 6, 5]</part>",
        "PART-MARKER <part>[4, 3, 2, 1]</part>",
    ]
    assert any("<a>" in p for p in model.prompts)  # merge: still the spec's own prompt
    again = ScriptedModel()
    solve("sorting", list(range(8, 0, -1)), model=again, graph=stock)
    assert not any("PART-MARKER" in p for p in again.prompts)


def test_user_data_containing_template_tags_is_sent_as_is():
    text = "Peru is big. {{task}} and {{#if x}}Chile{{/if}} were typed by the user."
    model = ScriptedModel(lambda _prompt, _n: '{"Peru": 1, "Chile": 1}')
    graph = tot_like(mine="Count countries. <text>{{input}}</text> Task: {{task}}")
    solve("keyword-counting", text, model=model, graph=graph)
    sent = model.prompts[0]
    assert "{{task}} and {{#if x}}Chile{{/if}} were typed" in sent  # not expanded
    assert "Task: Count how many times each country" in sent  # the template's own tag was


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_prompts_round_trip_through_json_and_yaml(fmt):
    graph = tot_like(mine=MINE + "\n  trailing  \n")
    text = graph.to_json() if fmt == "json" else graph.to_yaml()
    back = Graph.from_json(text) if fmt == "json" else Graph.from_yaml(text)
    assert back == graph and back.prompts["mine"] == MINE + "\n  trailing  \n"
    if fmt == "yaml":  # readable as written, not one escaped line (PyYAML quotes the rare
        # text with trailing spaces on a line: still exact)
        assert "mine: |" in tot_like(mine=MINE).to_yaml()


def test_a_graph_without_prompts_writes_no_prompts_field():
    assert "prompts" not in tot_like("io").to_dict()


@pytest.mark.parametrize(
    ("prompts", "message"),
    [
        ({"mine": "{{#if x}} never closed"}, "prompts.mine: unclosed {{#if x}}"),
        ({"mine": MINE, "unused": "hi"}, "prompts.unused: no op uses this prompt"),
        ({"mine": MINE, "not a name": "hi"}, "'not a name' is not a prompt name"),
        ({"mine": 3}, '"prompts" must map prompt names to template texts'),
        ([], '"prompts" must map prompt names to template texts'),
    ],
)
def test_bad_graph_prompts_are_one_graph_error(prompts, message):
    data = tot_like("mine", mine=MINE).to_dict() | {"prompts": prompts}
    with pytest.raises(GraphError) as caught:
        Graph.from_dict(data)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_graph_prompt_the_op_cannot_fill_is_refused_before_any_call(capsys, tmp_path):
    path = tmp_path / "g.yaml"
    path.write_text(tot_like(mine="Sort {{input}} like {{style}}").to_yaml())
    model = ScriptedModel()
    with pytest.raises(GraphError, match="prompt 'mine' needs style, which a generate op"):
        solve("sorting", [2, 1], model=model, graph=Graph.load(path))
    assert model.prompts == []
    code, _out, err = run_cli(capsys, "solve", "sorting", "--input", "[2, 1]", "--graph", str(path))
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1
    assert "op 'gen': prompt 'mine' needs style" in err


def test_a_graph_file_with_prompts_runs_from_the_cli(capsys, tmp_path):
    path = tmp_path / "g.json"
    path.write_text(tot_like(mine=MINE).to_json())
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--input", "[5, 4, 1]", "--graph", str(path), "--json"
    )
    data = json.loads(out)
    assert code == 0, err
    assert data["output"] == [1, 4, 5]
