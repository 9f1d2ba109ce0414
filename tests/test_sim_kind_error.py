"""A job kind's own slip scale in the simulated model (`sim:error=1,part_error=6`): only that
kind's answers change, the name (cache keys, eval fingerprints) tells settings apart, and a bad
option is one line."""

from __future__ import annotations

import asyncio

import pytest

from thoughtgraph.errors import UnknownNameError
from thoughtgraph.evaluation import fingerprint
from thoughtgraph.evaluation.runner import for_repeat
from thoughtgraph.modelspec import as_model
from thoughtgraph.sim.model import SimulatedModel
from thoughtgraph.tasks.prompts import render
from thoughtgraph.tasks.sorting import parse_int_list

from .conftest import run_cli

PART = render("part", task="T", part="[5, 3, 9, 1, 7, 7, 0, 2]", previous_errors="", format="F")
MERGE = render(
    "merge", task="T", result_a="[0, 1, 2, 3, 5, 7, 7, 9]", result_b="[1, 2, 4, 6]", format="F"
)
REFINE = render("refine", task="T", result="[1, 2, 2, 9, 5]", errors="one extra 2", format="F")


def answers(spec: str, prompt: str, times: int = 12) -> list[str]:
    model = as_model(spec)

    async def ask() -> list[str]:
        return [(await model.complete(prompt))[0].text for _ in range(times)]

    return asyncio.run(ask())


def test_a_kinds_scale_replaces_error_for_that_kind_only():
    # parts answer as the uniform model at the part's scale, the other kinds as at `error`
    mixed = "sim:error=3,part_error=40,seed=5"
    assert answers(mixed, PART) == answers("sim:error=40,seed=5", PART)
    assert answers(mixed, PART) != answers("sim:error=3,seed=5", PART)
    for prompt in (MERGE, REFINE):
        assert answers(mixed, prompt) == answers("sim:error=3,seed=5", prompt)
    # a model that never slips but at sorting parts
    flawless_else = "sim:error=0,part_error=40"
    parts = {tuple(parse_int_list(a)) for a in answers(flawless_else, PART)}
    assert len(parts - {(0, 1, 2, 3, 5, 7, 7, 9)}) > 1
    merged = {tuple(parse_int_list(a)) for a in answers(flawless_else, MERGE)}
    assert merged == {(0, 1, 1, 2, 2, 3, 4, 5, 6, 7, 7, 9)}


def test_the_name_tells_the_settings_apart_and_survives_copies():
    model = as_model("sim:merge_error=0.02,error=3,part_error=6,seed=2")
    assert isinstance(model, SimulatedModel)
    assert model.name == (
        "sim:profile=gpt-3.5-paper,latency=0,error=3,seed=2,merge_error=0.02,part_error=6"
    )
    assert as_model(model.name).name == model.name
    assert for_repeat(model, 1).name.endswith(",seed=3,merge_error=0.02,part_error=6")
    # another setting is another model in a cache and an eval's fingerprint
    names = {as_model(s).name for s in ("sim:error=3", "sim:error=3,part_error=6", "sim:error=6")}
    assert len(names) == 3
    prints = {fingerprint.of_model(as_model(s))["model"] for s in ("sim", "sim:part_error=2")}
    assert len(prints) == 2
    # a kind at the uniform scale answers as without it: the same name, the same cache key
    assert as_model("sim:error=2,part_error=2").name == as_model("sim:error=2").name


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        (
            "sim:sort_error=2",
            "sim option 'sort_error': unknown job kind 'sort' (known: solve, cot, fix, merge, "
            "split, part, refine, score)",
        ),
        ("sim:part_error=-1", "sim option part_error must be 0 or more, got -1"),
        ("sim:part_error=lots", "sim option part_error='lots' is not a number"),
        ("sim:part_error=inf", "sim option part_error='inf' is not a finite number"),
        (
            "sim:_error=1",
            "unknown sim option '_error' (known: error, latency, seed, profile, KIND_error such "
            "as part_error)",
        ),
    ],
)
def test_a_bad_kind_scale_is_one_line(capsys, spec, says):
    with pytest.raises(UnknownNameError) as raised:
        as_model(spec)
    assert str(raised.value) == says
    code, _, err = run_cli(capsys, "solve", "sorting", "--input", "[3, 1, 2]", "--model", spec)
    assert (code, err) == (2, f"error: {says}\n")
