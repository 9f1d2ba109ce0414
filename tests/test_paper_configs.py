"""The other tasks' paper configurations: the reference implementation's request/completion counts.

Derived from spcl/graph-of-thoughts, examples/set_intersection, keyword_counting, doc_merge
(`Generate(1, k)` = one request for k answers, `Score(3)` = one request for 3 samples per thought,
`ValidateAndImprove` asks nothing while merges are valid). Every call succeeds and every answer is
right under `sim:error=0`, so the counts are the configuration's, not the model's.
"""

from __future__ import annotations

import pytest

import thoughtgraph
from thoughtgraph import schemes
from thoughtgraph.evaluation.datasets import load_sample

# task -> dataset -> scheme -> (requests, completions) per sample
TABLE = {
    "set-intersection": {
        "set_intersection_032": {
            "io": (1, 1),
            "cot": (1, 1),
            "tot": (2, 40),
            "tot2": (3, 30),
            "got_paper": (4, 21),
        },
        "set_intersection_064": {
            "io": (1, 1),
            "cot": (1, 1),
            "tot": (4, 80),
            "tot2": (7, 70),
            "got_paper": (8, 51),
        },
        "set_intersection_128": {
            "io": (1, 1),
            "cot": (1, 1),
            "tot": (4, 100),
            "tot2": (9, 90),
            "got_paper": (16, 76),
        },
    },
    "keyword-counting": {
        # GoT4: split 1 + 4 parts x 10 + 3 merges x 3 (no improvement needed)
        "countries": {
            "io": (1, 1),
            "cot": (1, 1),
            "tot": (4, 80),
            "tot2": (6, 60),
            "got_paper": (8, 50),
        },
    },
    "doc-merge": {
        # io: 1 answer + 1 scoring request of 3 samples; tot: 3 levels x (1 x 10 + 10 x 3);
        # got: 5 merges (+5 x 3 scores), 1 x 5 merges of the best 3 (+5 x 3), 1 x 10 improvements
        # (+10 x 3); tot2 is ours (the paper has none here): 6 levels x (1 x 5 + 5 x 3)
        "documents": {
            "io": (2, 4),
            "cot": (2, 4),
            "tot": (33, 120),
            "tot2": (36, 120),
            "got_paper": (23, 80),
        },
    },
}
CASES = [
    (task, dataset, scheme, counts)
    for task, row in TABLE.items()
    for dataset, schemes_ in row.items()
    for scheme, counts in schemes_.items()
]


@pytest.mark.parametrize(
    ("task", "dataset", "scheme", "counts"), CASES, ids=[f"{d}-{s}" for _, d, s, _ in CASES]
)
def test_requests_and_completions_equal_the_reference_implementation(task, dataset, scheme, counts):
    sample = load_sample(dataset, 1)
    graph = schemes.build(scheme, task, len(sample.input))
    result = thoughtgraph.solve(task, sample.input, model="sim:error=0", graph=graph)
    assert (result.calls, result.completions) == counts
    assert result.clean
    if sample.reference is not None:
        assert result.output == sample.reference


def test_keyword_counting_variants_got8_and_gotx():
    sample = load_sample("countries", 1)
    size = len(sample.input)
    got8 = schemes.build("got_paper", "keyword-counting", size, parts=8)
    result = thoughtgraph.solve("keyword-counting", sample.input, model="sim:error=0", graph=got8)
    assert (result.calls, result.completions) == (1 + 8 + 7, 1 + 80 + 21)
    gotx = schemes.build("got_paper", "keyword-counting", size, parts=size, part_prompt="sentence")
    result = thoughtgraph.solve("keyword-counting", sample.input, model="sim:error=0", graph=gotx)
    assert (result.calls, result.completions) == (
        1 + size + size - 1,
        1 + 10 * size + 3 * (size - 1),
    )
    assert result.output == sample.reference


def test_configurations_follow_the_reference_structure():
    si = schemes.build("got_paper", "set-intersection", 128)
    assert si.op("split").params.parts == 8 and si.op("merge_1_1").params.n == 5
    assert not any(op.id.endswith("_fix") for op in si.ops)  # set intersection never fixes
    assert schemes.build("tot", "set-intersection", 128).op("level_1").params.n == 25
    kc = schemes.build("got_paper", "keyword-counting", 15)
    assert kc.op("part_1").params.model_dump() == {
        "prompt": "cot",
        "n": 10,
        "repeat": 1,
        "max_regenerations": 0,
        "bar": 0,
    }
    assert kc.op("merge_1_1_improve").params.model_dump() == {"prompt": "improve_merge", "tries": 3}
    assert kc.op("merge_1_1_improve").inputs == ("merge_1_1",)
    assert schemes.build("tot", "keyword-counting", 15).op("level_1").params.prompt == "cot"
    assert schemes.build("got_paper", "keyword-counting", 3).op("split").params.parts == 3


def test_every_scheme_builds_and_runs_for_every_task():
    samples = {
        "set-intersection": load_sample("set_intersection_032", 2),
        "keyword-counting": load_sample("countries", 2),
        "doc-merge": load_sample("documents", 2),
    }
    for task, sample in samples.items():
        for name in schemes.SCHEMES:
            graph = schemes.build(name, task, len(sample.input))
            result = thoughtgraph.solve(task, sample.input, model="sim:error=0", graph=graph)
            assert result.clean, (task, name)
