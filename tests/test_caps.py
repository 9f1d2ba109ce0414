"""Every cap of the spec (2 regenerations, 1 extra merge, 2 refines), keep-if-better, budgets."""

from __future__ import annotations

import thoughtgraph
from thoughtgraph.testing import ScriptedModel, perfect_sorting_answer, prompt_kind

from .conftest import INPUT_32


def always_wrong(prompt: str, _n: int) -> str:
    """Every answer loses its first number."""
    return str(perfect_sorting_answer(prompt)[1:])


def test_always_wrong_model_hits_every_cap_and_still_returns_its_best_thought():
    model = ScriptedModel(always_wrong)
    result = thoughtgraph.solve("sorting", INPUT_32, model=model, parts=4)
    parts = result.state.calls.values()
    per_op: dict[str, int] = {}
    for call in parts:
        per_op[call.op_id] = per_op.get(call.op_id, 0) + 1
    assert [per_op[f"part_{i}"] for i in range(1, 5)] == [3, 3, 3, 3]  # 1 + 2 regenerations
    assert [per_op[m] for m in ("merge_1_1", "merge_1_2", "merge_2_1")] == [2, 2, 2]  # 1 + 1 extra
    assert per_op["refine"] <= 2
    assert result.calls_by_kind == {"part": 12, "merge": 6, "refine": per_op["refine"]}
    assert result.status == "not clean" and not result.clean
    assert result.output is not None and result.error_count > 0
    assert result.errors  # the remaining errors come back with the thought
    # the returned thought is the best final-level thought the run produced
    finals = [t for t in result.state.thoughts.values() if t.op_id in ("merge_2_1", "refine")]
    assert result.error_count == min(t.score.value for t in finals)


def test_caps_are_options():
    model = ScriptedModel(always_wrong)
    result = thoughtgraph.solve(
        "sorting",
        INPUT_32,
        model=model,
        parts=2,
        max_regenerations=0,
        max_extra_merges=0,
        max_refines=1,
    )
    assert result.calls_by_kind == {"part": 2, "merge": 1, "refine": 1}


def _refine_scenario(refine_answer):
    """Parts and merges are right except the final merge, which drops one number."""

    def respond(prompt: str, _n: int) -> str:
        kind = prompt_kind(prompt)
        answer = perfect_sorting_answer(prompt)
        if kind == "merge" and len(answer) == 32:
            return str(answer[:-1])
        if kind == "refine":
            return refine_answer(answer)
        return str(answer)

    return ScriptedModel(respond)


def test_refine_that_fixes_the_error_is_kept_and_stops_the_loop():
    model = _refine_scenario(lambda fixed: str(fixed))
    result = thoughtgraph.solve("sorting", INPUT_32, model=model, parts=4)
    assert result.calls_by_kind["refine"] == 1
    assert result.output == sorted(INPUT_32) and result.clean
    assert result.final.op_id == "refine" and result.final.kept


def test_refine_that_scores_worse_is_discarded():
    def worse(fixed):  # drops two numbers instead of fixing one
        return str(fixed[2:])

    model = _refine_scenario(worse)
    result = thoughtgraph.solve("sorting", INPUT_32, model=model, parts=4)
    assert result.calls_by_kind["refine"] == 2
    assert result.final.op_id == "merge_2_1"  # the unrefined merge is still the best thought
    assert result.error_count == 1 and result.status == "not clean"
    refines = [t for t in result.state.thoughts.values() if t.op_id == "refine"]
    assert len(refines) == 2 and not any(t.kept for t in refines)


def test_refine_that_scores_equal_is_not_kept():
    # swaps two neighbours: still one error (order) instead of one (missing): not strictly better
    def same(fixed):
        fixed = list(fixed)
        fixed[0], fixed[-1] = fixed[-1], fixed[0]
        return str(fixed[1:])

    model = _refine_scenario(same)
    result = thoughtgraph.solve("sorting", INPUT_32, model=model, parts=4)
    assert result.final.op_id == "merge_2_1"


def test_budget_exhausted_returns_best_thought_so_far_not_clean():
    model = ScriptedModel()
    result = thoughtgraph.solve("sorting", INPUT_32, model=model, parts=4, max_requests=5)
    assert len(model.prompts) == 5 and result.calls == 5
    assert result.status == "not clean" and result.stop_reason == "budget exhausted"
    assert result.final.op_id.startswith("merge_1_")  # a 16-item merge beats any 8-item part
    assert sorted(result.output) == result.output and len(result.output) == 16


def test_zero_budget_returns_the_input_unchanged_not_clean():
    result = thoughtgraph.solve("sorting", [3, 1, 2], model=ScriptedModel(), max_requests=0)
    assert result.calls == 0 and result.output == [3, 1, 2]
    assert result.status == "not clean" and result.stop_reason == "budget exhausted"


def test_unparseable_answers_are_scored_failures_not_crashes():
    model = ScriptedModel(
        lambda prompt, n: (
            "I'm sorry, I can't help with that." if n < 2 else str(perfect_sorting_answer(prompt))
        )
    )
    result = thoughtgraph.solve("sorting", [5, 4, 3, 2, 1, 0, 9, 8], model=model, parts=1)
    first = result.state.thoughts["part_1:0.1"]
    assert not first.valid and first.content is None
    assert first.score.errors == ("the answer contains no list of integers",)
    assert result.clean and result.calls_by_kind["part"] == 3
