"""The simulated model: reads the prompts, slips with length, seeded and order independent."""

from __future__ import annotations

import asyncio
import random

import pytest

import thoughtgraph
from thoughtgraph.engine.trace import state_dict
from thoughtgraph.errors import UnknownNameError
from thoughtgraph.modelspec import as_model
from thoughtgraph.sim.model import SimulatedModel, expected_slips
from thoughtgraph.sim.sorting import apply_fixes
from thoughtgraph.tasks.prompts import render

from .conftest import INPUT_32


def ask(model: SimulatedModel, prompt: str) -> str:
    return asyncio.run(model.complete(prompt))[0].text


def test_spec_strings():
    model = as_model("sim:latency=0.05,error=0,seed=1")
    assert isinstance(model, SimulatedModel) and model.simulated
    assert (model.latency, model.error, model.seed) == (0.05, 0.0, 1)
    assert as_model("sim").error == 1.0
    for bad in ("sim:speed=2", "sim:error=lots", "sim:error", "simulated"):
        with pytest.raises(UnknownNameError):
            as_model(bad)


def test_error_zero_answers_every_prompt_right():
    model = SimulatedModel(error=0)
    part = render("part", task="T", part="[5, 3, 3, 1]", previous_errors="", format="F")
    merge = render("merge", task="T", result_a="[1, 4]", result_b="[0, 4, 9]", format="F")
    refine = render(
        "refine",
        task="T",
        result="[1, 2, 2, 9, 5]",
        errors="missing one 3; one extra 2; 9 before 5 at positions 4-5",
        format="F",
    )
    assert thoughtgraph.tasks.sorting.parse_int_list(ask(model, part)) == [1, 3, 3, 5]
    assert thoughtgraph.tasks.sorting.parse_int_list(ask(model, merge)) == [0, 1, 4, 4, 9]
    assert thoughtgraph.tasks.sorting.parse_int_list(ask(model, refine)) == [1, 2, 3, 5, 9]


def test_apply_fixes_reads_the_scorers_error_strings():
    assert sorted(apply_fixes([1, 1, 1, 5], "missing two 3s; two extra 1s")) == [1, 3, 3, 5]


def test_slips_grow_with_length():
    # at the default error a 32-item list almost always slips, so compare at a small scale
    model = SimulatedModel(error=0.05)
    rng = random.Random(0)

    def slip_rate(length: int) -> float:
        items = list(range(length))
        return sum(model.slip(items, rng) != items for _ in range(400)) / 400

    assert slip_rate(8) < slip_rate(32) < slip_rate(128)
    assert (
        expected_slips("sorting", "solve", 8)
        < expected_slips("sorting", "solve", 32)
        < expected_slips("sorting", "solve", 64)
    )


def test_same_seed_same_result_and_other_seeds_differ():
    runs = [thoughtgraph.solve("sorting", INPUT_32, model=f"sim:seed={s}") for s in (3, 3, 2)]
    first, again, other = (state_dict(r.state)["thoughts"] for r in runs)
    assert first == again
    assert first != other


def test_answers_do_not_depend_on_completion_order():
    async def both(order):
        model = SimulatedModel(error=5, seed=7)
        prompts = [
            render(
                "part",
                task="T",
                part=str(list(range(i, i + 30))[::-1]),
                previous_errors="",
                format="F",
            )
            for i in range(4)
        ]
        answers = {}
        for i in order:
            answers[i] = (await model.complete(prompts[i]))[0].text
        return answers

    assert asyncio.run(both([0, 1, 2, 3])) == asyncio.run(both([3, 1, 0, 2]))


def test_repeated_prompt_gets_fresh_randomness():
    model = SimulatedModel(error=20, seed=0)
    prompt = render("part", task="T", part=str(list(range(40))), previous_errors="", format="F")
    answers = {ask(model, prompt) for _ in range(5)}
    assert len(answers) > 1


def test_unknown_prompt_gets_an_unhelpful_answer_not_a_crash():
    assert "could not" in ask(SimulatedModel(), "What is the capital of France?")


def test_default_demo_shows_the_pattern_at_work():
    """make demo runs sample 29 of sorting_032 on the default sim: retries must be visible."""
    from thoughtgraph.evaluation.datasets import load_sample

    sample = load_sample("sorting_032", 29)
    result = thoughtgraph.solve("sorting", sample.input, model="sim")
    assert result.calls_by_kind["part"] > 4 and result.calls_by_kind["refine"] >= 1
    assert result.clean and result.output == sample.reference
