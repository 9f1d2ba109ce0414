"""The spec's required test, and the same scenario through every kind of model the API accepts."""

from __future__ import annotations

import asyncio

import pytest

import thoughtgraph
from thoughtgraph.testing import ints, perfect_sorting_answer, prompt_kind, section

from .conftest import INPUT_32

CHUNK_2 = INPUT_32[8:16]


def make_stub(fmt=lambda items: str(items)):
    """Drops one number from the second chunk on its first try; correct afterwards."""
    seen = {"chunk2": 0}
    calls = {"part": 0, "merge": 0, "refine": 0}

    def stub(prompt: str) -> str:
        kind = prompt_kind(prompt)
        calls[kind] += 1
        answer = perfect_sorting_answer(prompt)
        if kind == "part" and ints(section(prompt, "part")) == CHUNK_2:
            seen["chunk2"] += 1
            if seen["chunk2"] == 1:
                answer = answer[1:]  # one number dropped
        return fmt(answer)

    return stub, calls, seen


def test_spec_required_stub_drops_one_number_from_second_chunk_first_try():
    stub, calls, seen = make_stub()
    result = thoughtgraph.solve("sorting", INPUT_32, model=stub, parts=4)
    assert calls["part"] == 5  # 4 chunks + 1 regeneration of chunk 2 only
    assert seen["chunk2"] == 2
    assert result.output == sorted(INPUT_32)
    assert result.status == "clean" and result.clean
    assert result.calls_by_kind == {"part": 5, "merge": 3, "refine": 0}
    assert result.calls == 8


def test_regeneration_prompt_carries_the_errors_of_the_failed_attempt():
    stub, _calls, _seen = make_stub()
    model = thoughtgraph.testing.ScriptedModel(lambda prompt, _n: stub(prompt))
    thoughtgraph.solve("sorting", INPUT_32, model=model, parts=4)
    chunk2_prompts = [p for p in model.prompts_of("part") if ints(section(p, "part")) == CHUNK_2]
    assert len(chunk2_prompts) == 2
    assert "previous attempt" not in chunk2_prompts[0]
    dropped = min(CHUNK_2)
    assert section(chunk2_prompts[1], "errors") == f"missing one {dropped}"


MESSY_FORMATS = {
    "bare": lambda items: str(items),
    "fenced": lambda items: (
        f"Sure! Here it is:\n```json\n{items}\n```\nLet me know if you need more."
    ),
    "output_prefix": lambda items: f"Reasoning: I sorted the numbers.\nOutput: {items}",
    "prose": lambda items: f"The sorted list is {items}. I kept every duplicate.",
    "no_spaces": lambda items: "[" + ",".join(map(str, items)) + "]",
}


@pytest.mark.parametrize("style", sorted(MESSY_FORMATS))
def test_scenario_with_messy_answer_formats(style):
    stub, calls, _ = make_stub(MESSY_FORMATS[style])
    result = thoughtgraph.solve("sorting", INPUT_32, model=stub, parts=4)
    assert calls["part"] == 5
    assert result.output == sorted(INPUT_32) and result.clean


def test_scenario_with_an_async_function_model():
    stub, calls, _ = make_stub()

    async def model(prompt: str) -> str:
        await asyncio.sleep(0.001)
        return stub(prompt)

    result = thoughtgraph.solve("sorting", INPUT_32, model=model, parts=4)
    assert calls["part"] == 5
    assert result.output == sorted(INPUT_32) and result.clean


def test_scenario_with_a_language_model_object():
    stub, _calls, _ = make_stub()
    model = thoughtgraph.testing.ScriptedModel(lambda prompt, _n: stub(prompt))
    result = thoughtgraph.solve("sorting", INPUT_32, model=model)  # default parts: chunks of 8
    assert len(model.prompts_of("part")) == 5
    assert result.output == sorted(INPUT_32) and result.clean
