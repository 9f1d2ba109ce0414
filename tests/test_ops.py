"""The framework's op kinds, each on a small hand-built graph."""

from __future__ import annotations

import pytest

from thoughtgraph import solve
from thoughtgraph.engine.graph import Graph
from thoughtgraph.engine.trace import output_graph
from thoughtgraph.errors import GraphError
from thoughtgraph.tasks import SortingTask
from thoughtgraph.testing import ScriptedModel, ints, prompt_kind, section


def graph(*ops: dict) -> Graph:
    return Graph.from_dict({"ops": list(ops)})


def sort_input(prompt: str, _n: int) -> str:
    return str(sorted(ints(section(prompt, "input"))))


def test_generate_n_is_one_request_and_repeat_is_independent_requests():
    for params, requests in (({"n": 4}, 1), ({"repeat": 4}, 4), ({"n": 2, "repeat": 3}, 3)):
        model = ScriptedModel(sort_input)
        g = graph(
            {"id": "gen", "kind": "generate", "params": {"prompt": "io", **params}},
            {"id": "best", "kind": "keep_best", "inputs": ["gen"]},
        )
        result = solve("sorting", [3, 1, 2], model=model, graph=g)
        assert result.calls == requests
        assert result.completions == params.get("n", 1) * params.get("repeat", 1)
        assert len(result.state.outputs("gen")) == result.completions
        assert len(result.state.outputs("best")) == 1


def test_keep_best_lower_or_higher_and_ties_go_to_the_earlier_input():
    answers = iter(["[1, 2]", "[2, 1, 3]", "[1, 2, 3]", "[1, 3, 2]", "[1, 2, 3]"])
    model = ScriptedModel(lambda p, n: next(answers))
    g = graph(
        {"id": "gen", "kind": "generate", "params": {"prompt": "io", "repeat": 5}},
        {"id": "best", "kind": "keep_best", "inputs": ["gen"], "params": {"n": 2}},
    )
    result = solve("sorting", [3, 1, 2], model=model, graph=g, concurrency=1)
    kept = result.state.outputs("best")
    assert [t.text for t in kept] == ["[1, 2, 3]", "[1, 2, 3]"]
    assert [t.id for t in kept] == ["gen:0.r3.1", "gen:0.r5.1"]  # the earlier of the ties first
    g_high = graph(
        {"id": "gen", "kind": "generate", "params": {"prompt": "io", "repeat": 3}},
        {
            "id": "worst",
            "kind": "keep_best",
            "inputs": ["gen"],
            "params": {"higher_is_better": True},
        },
    )
    answers = iter(["[1, 2, 3]", "[3, 2, 1]", "[1]"])
    result = solve(
        "sorting",
        [3, 1, 2],
        model=ScriptedModel(lambda p, n: next(answers)),
        graph=g_high,
        concurrency=1,
    )
    assert result.state.outputs("worst")[0].text == "[3, 2, 1]"


def test_keep_valid_drops_unparseable_answers():
    answers = iter(["nonsense", "[1, 2, 3]", "no list here"])
    g = graph(
        {"id": "gen", "kind": "generate", "params": {"prompt": "io", "repeat": 3}},
        {"id": "valid", "kind": "keep_valid", "inputs": ["gen"]},
    )
    result = solve(
        "sorting",
        [3, 1, 2],
        model=ScriptedModel(lambda p, n: next(answers)),
        graph=g,
        concurrency=1,
    )
    assert [t.text for t in result.state.outputs("valid")] == ["[1, 2, 3]"]


def test_aggregate_with_n_passes_on_every_answer():
    g = graph(
        {"id": "split", "kind": "split", "params": {"parts": 2}},
        {"id": "parts", "kind": "generate", "inputs": ["split"]},
        {"id": "s1", "kind": "select", "inputs": ["parts"], "params": {"index": 0}},
        {"id": "s2", "kind": "select", "inputs": ["parts"], "params": {"index": 1}},
        {"id": "merge", "kind": "aggregate", "inputs": ["s1", "s2"], "params": {"n": 3}},
        {"id": "best", "kind": "keep_best", "inputs": ["merge"]},
    )
    model = ScriptedModel()
    result = solve("sorting", [4, 3, 2, 1], model=model, graph=g)
    assert len(result.state.outputs("merge")) == 3 and len(model.prompts_of("merge")) == 1
    assert result.output == [1, 2, 3, 4] and result.clean


def test_refine_without_keep_if_better_takes_every_pass():
    answers = iter(["[1, 2]", "[1]", "[]"])

    def respond(prompt, n):
        return next(answers)

    g = graph(
        {"id": "gen", "kind": "generate", "params": {"prompt": "io"}},
        {
            "id": "fix",
            "kind": "refine",
            "inputs": ["gen"],
            "params": {"keep_if_better": False, "max_refines": 2},
        },
    )
    result = solve("sorting", [3, 1, 2], model=ScriptedModel(respond), graph=g, concurrency=1)
    assert result.final.id == "fix:0.2" and result.output == []


def test_validate_and_improve_stops_when_valid_and_caps_tries():
    answers = iter(["[1, 3]", "[1, 2]", "[1, 2, 3]", "[9]"])
    g = graph(
        {"id": "gen", "kind": "generate", "params": {"prompt": "io"}},
        {"id": "vi", "kind": "validate_and_improve", "inputs": ["gen"], "params": {"tries": 3}},
    )
    model = ScriptedModel(lambda p, n: next(answers))
    result = solve("sorting", [3, 1, 2], model=model, graph=g, concurrency=1)
    assert result.calls == 3 and result.output == [1, 2, 3]
    assert result.final.validated and result.final.valid
    never = ScriptedModel(lambda p, n: "[1]")
    result = solve("sorting", [3, 1, 2], model=never, graph=g)
    assert result.calls == 1 + 3 and not result.final.valid


def test_ground_truth_is_recorded_and_never_chooses():
    answers = iter(["[1, 2]", "[1, 2, 3]"])
    g = graph(
        {"id": "gen", "kind": "generate", "params": {"prompt": "io", "repeat": 2}},
        {"id": "truth", "kind": "ground_truth", "inputs": ["gen"]},
    )
    result = solve(
        "sorting",
        [3, 1, 2],
        model=ScriptedModel(lambda p, n: next(answers)),
        graph=g,
        concurrency=1,
    )
    out = result.state.outputs("truth")
    assert [t.solved for t in out] == [False, True] and len(out) == 2
    entry = next(e for e in output_graph(result.state) if e.get("op_id") == "truth")
    assert entry["operation"] == "ground_truth_evaluator" and entry["problem_solved"] == [
        False,
        True,
    ]


def test_model_split_uses_the_models_parts_or_falls_back_to_code():
    g = graph(
        {"id": "split", "kind": "split", "params": {"parts": 2, "by": "model"}},
        {"id": "s2", "kind": "select", "inputs": ["split"], "params": {"index": 1}},
    )
    good = ScriptedModel(lambda p, n: 'Here: {"List 1": [4, 3], "List 2": [2, 1]}')
    result = solve("sorting", [4, 3, 2, 1], model=good, graph=g)
    assert result.state.outputs("s2")[0].content == [2, 1] and result.calls == 1
    bad = ScriptedModel(lambda p, n: "I'd rather not.")
    result = solve("sorting", [4, 3, 2, 1], model=bad, graph=g)
    answer = result.state.thoughts["split:0.answer"]
    assert not answer.valid and "split in code" in answer.score.errors[0]
    assert result.state.outputs("s2")[0].content == [2, 1]


class ScoredByModel(SortingTask):
    """Sorting, but scored by a model (0-10, higher is better) as doc-merge will be."""

    def __init__(self) -> None:
        from thoughtgraph.tasks.prompts import PromptTemplate

        self.prompts = {
            **SortingTask.prompts,
            "score": PromptTemplate("Rate 0-10 how well sorted: <result>{{result}}</result>"),
        }


def test_model_scorer_averages_samples_in_one_request():
    scores = iter(["Score: 6", "7", "eight?", "Score: 8"])

    def respond(prompt, n):
        if prompt.startswith("Rate"):
            return next(scores)
        return str(sorted(ints(section(prompt, "input"))))

    g = graph(
        {"id": "gen", "kind": "generate", "params": {"prompt": "io"}},
        {
            "id": "judge",
            "kind": "score",
            "inputs": ["gen"],
            "params": {"scorer": "model", "samples": 4, "force": True},
        },
    )
    model = ScriptedModel(respond)
    result = solve(ScoredByModel(), [3, 1, 2], model=model, graph=g)
    judged = result.state.outputs("judge")[0]
    assert judged.score.value == pytest.approx(7.0)  # (6 + 7 + 8) / 3: "eight?" is unreadable
    assert result.calls_by_kind["score"] == 1 and result.completions == 1 + 4


def test_a_prompt_the_task_lacks_is_refused_before_any_call():
    g = graph({"id": "gen", "kind": "generate", "params": {"prompt": "haiku"}})
    model = ScriptedModel()
    with pytest.raises(GraphError, match="op 'gen': task 'sorting' has no prompt 'haiku'"):
        solve("sorting", [3, 1, 2], model=model, graph=g)
    assert model.prompts == []


def test_a_split_into_more_parts_than_items_is_refused_before_any_call():
    g = graph(
        {"id": "split", "kind": "split", "params": {"parts": 5}},
        {"id": "gen", "kind": "generate", "inputs": ["split"]},
    )
    model = ScriptedModel()
    with pytest.raises(GraphError, match="cannot exceed"):
        solve("sorting", [3, 1, 2], model=model, graph=g)
    assert model.prompts == []


def test_select_out_of_range_is_a_graph_error():
    g = graph(
        {"id": "split", "kind": "split", "params": {"parts": 2}},
        {"id": "s", "kind": "select", "inputs": ["split"], "params": {"index": 7}},
    )
    with pytest.raises(GraphError, match="selects thought 7"):
        solve("sorting", [3, 1, 2], model=ScriptedModel(), graph=g)


def test_regenerations_need_a_single_answer():
    with pytest.raises(GraphError, match="max_regenerations needs n = repeat = 1"):
        graph({"id": "g", "kind": "generate", "params": {"n": 3, "max_regenerations": 2}})
    assert prompt_kind("Solve this part of a larger task.") == "part"
