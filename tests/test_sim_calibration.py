"""The simulated model on every task: reads each task's prompts, slips by its law, stays seeded,
and lands near the paper's GPT-3.5 figures on a small subset (the full table: bench/calibrate.py).
"""

from __future__ import annotations

import asyncio
import random
import statistics

import pytest

import thoughtgraph
from thoughtgraph import schemes
from thoughtgraph.evaluation.datasets import DATASETS, load_dataset, load_sample
from thoughtgraph.sim.laws import PowerLaw
from thoughtgraph.sim.model import SimulatedModel, expected_slips
from thoughtgraph.sim.profiles import DEFAULT, shipped
from thoughtgraph.sim.readers import read_prompt
from thoughtgraph.tasks import get_task
from thoughtgraph.tasks.clauses import measures
from thoughtgraph.tasks.prompts import render


def ask(model: SimulatedModel, prompt: str) -> str:
    return asyncio.run(model.complete(prompt))[0].text


def test_every_law_grows_with_the_length_of_the_output():
    for (task, kind), law in shipped(DEFAULT).laws.items():
        assert isinstance(law, PowerLaw)
        unit = int(law.unit)
        if law.a:
            assert (
                expected_slips(task, kind, unit // 2)
                < expected_slips(task, kind, unit)
                < expected_slips(task, kind, 2 * unit)
            ), (task, kind)
    assert expected_slips("sorting", "solve", 32, error=0) == 0


@pytest.mark.parametrize("dataset", ["set_intersection_032", "countries", "documents"])
def test_prompts_are_read_as_the_right_task(dataset):
    task = get_task(DATASETS[dataset])
    problem = load_sample(dataset, 0).input
    answer = task.render(task.reference(problem))
    values = {
        "input": task.render(problem),
        "original": task.render(problem),
        "current": answer,
        "parts": 2,
        "length": 1,
        "result_a": answer,
        "result_b": answer,
        "results": f"<a>{answer}</a>\n<b>{answer}</b>",
        "count": 2,
    }
    for name, template in task.prompts.items():
        job = read_prompt(template.render(values))
        assert job is not None and job.task == task.name, name
    spec = render(
        "part",
        task=task.describe(problem),
        part=task.render(problem),
        previous_errors="",
        format=task.format(),
    )
    assert read_prompt(spec).task == task.name


@pytest.mark.parametrize("dataset", ["set_intersection_064", "countries", "documents"])
def test_the_sims_refine_acts_on_the_code_checks_errors(dataset):
    """Without slips, a refine that gets the scorer's errors returns a clean answer."""
    task = get_task(DATASETS[dataset])
    problem = load_sample(dataset, 3).input
    noisy = thoughtgraph.solve(task, problem, model="sim:error=6,seed=2", scheme="io").output
    score = task.score(problem, noisy)
    assert not score.perfect
    prompt = render(
        "refine",
        task=task.describe(problem),
        result=task.render(noisy),
        errors="; ".join(score.errors),
        format=task.format(),
    )
    fixed = task.parse(ask(SimulatedModel(error=0), prompt))
    assert task.score(problem, fixed).value < score.value
    if len(score.errors) <= 20:  # everything was listed
        assert task.score(problem, fixed).perfect


def test_answers_are_seeded_per_prompt_and_occurrence():
    prompt = (
        get_task("keyword-counting")
        .prompts["io"]
        .render({"input": " ".join(load_sample("countries", 0).input)})
    )
    first = [ask(SimulatedModel(seed=4), prompt) for _ in range(2)]
    model = SimulatedModel(seed=4)
    again = [ask(model, prompt), ask(model, prompt)]
    assert first[0] == first[1] == again[0] and again[1] != again[0]


def test_the_simulated_scorer_measures_overlap_with_noise():
    docs = load_sample("documents", 0).input
    merged = "\n\n".join(docs)  # every document as it is: all kept, some said twice
    prompt = (
        get_task("doc-merge")
        .prompts["score"]
        .render({"original": get_task("doc-merge").render(docs), "current": merged})
    )
    exact = SimulatedModel(error=0)
    red, ret = measures(docs, merged)
    assert ask(exact, prompt).endswith(
        f"<Redundancy>{round(red)}</Redundancy>\n<Retained>{round(ret)}</Retained>"
    )
    noisy = {ask(SimulatedModel(seed=s), prompt) for s in range(6)}
    assert len(noisy) > 1


# the paper's GPT-3.5 figures (Figures 5 and 7): dataset, scheme, median error
MEDIANS = [
    ("sorting_064", "io", 40),
    ("sorting_064", "cot", 20),
    ("sorting_064", "tot", 16),
    ("sorting_064", "got_paper", 7),
    ("countries", "io", 14),
    ("countries", "cot", 14),
    ("countries", "tot", 4),
    ("countries", "got_paper", 3),
]


def _run(dataset: str, scheme: str, index: int) -> thoughtgraph.Result:
    sample = load_dataset(dataset)[index]
    task = DATASETS[dataset]
    graph = schemes.build(scheme, task, len(sample.input))
    return thoughtgraph.solve(task, sample.input, model="sim", graph=graph)


@pytest.mark.parametrize(
    ("dataset", "scheme", "paper"), MEDIANS, ids=[f"{d}-{s}" for d, s, _ in MEDIANS]
)
def test_medians_on_ten_samples_are_near_the_papers(dataset, scheme, paper):
    median = statistics.median(_run(dataset, scheme, i).error_count for i in range(10))
    assert abs(median - paper) <= max(0.35 * paper, 3)


def test_sorting_32_solves_rank_as_in_the_paper_on_thirty_samples():
    sample_ids = range(30)
    solved = {
        scheme: sum(_run("sorting_032", scheme, i).clean for i in sample_ids)
        for scheme in ("io", "cot", "tot", "tot2", "got_paper")
    }
    assert max(solved["io"], solved["cot"]) <= 3  # the paper: 1 and 2 of 100
    assert min(solved["tot"], solved["tot2"], solved["got_paper"]) > max(
        solved["io"], solved["cot"]
    )


def test_slips_are_drawn_not_fixed():
    rng = random.Random(0)
    model = SimulatedModel()
    items = list(range(64))
    lengths = {len(model.slip(items, rng)) for _ in range(20)}
    assert len(lengths) > 1
