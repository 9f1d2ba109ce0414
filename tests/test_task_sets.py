"""Set intersection: parser on messy answers, the paper's error scope, split/merge, solves."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import thoughtgraph
from thoughtgraph import schemes
from thoughtgraph.errors import InputError
from thoughtgraph.evaluation.datasets import load_sample
from thoughtgraph.tasks import ParseError, SetIntersectionTask, SetProblem, get_task
from thoughtgraph.tasks.sets import intersection_errors, parse_set
from thoughtgraph.testing import ScriptedModel

TASK = SetIntersectionTask()
# the paper's worked example (appendix C, Tables 13-15): sample 0 of set_intersection_032
SET1 = (
    11,
    60,
    1,
    49,
    21,
    33,
    14,
    56,
    54,
    15,
    23,
    40,
    45,
    22,
    7,
    28,
    20,
    46,
    51,
    6,
    34,
    37,
    3,
    50,
    17,
    8,
    25,
    0,
    35,
    47,
    18,
    19,
)
HALF_A = (31, 11, 4, 63, 38, 58, 59, 24, 61, 14, 32, 39, 27, 46, 48, 19)
HALF_B = (52, 57, 50, 56, 3, 2, 53, 29, 5, 37, 62, 41, 36, 12, 49, 16)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[11, 14, 46, 19]", [11, 14, 19, 46]),
        ("Output: [56, 49, 37, 3, 50]", [3, 37, 49, 50, 56]),
        ("```\n[3, 11]\n```", [3, 11]),
        ("The numbers in both sets are [19, 11, 14].", [11, 14, 19]),
        ("{11, 14, 46}", [11, 14, 46]),
        ("Set 1 has [1, 2] and set 2 has [2, 3].\nOutput: [2]", [2]),
        ("11, 14, 46, 14, 19", [11, 14, 14, 19, 46]),  # duplicates are kept for the score
        ("[]", []),
        ("There are no common numbers.", []),
        ('["3", "11"]', [3, 11]),
    ],
)
def test_parser_copes_with_what_models_return(text, expected):
    assert parse_set(text) == expected


def test_a_set_that_is_its_own_intersection_is_the_answer_not_an_echo():
    """A part of Set 2 wholly in Set 1 (common with small parts) is its own intersection:
    the steps' short lists must not win over it (they did: `[7]`)."""
    problem = SetProblem((1, 3, 5, 7), (3, 7))
    prompt = TASK.prompts["cot"].render({"input": TASK.render(problem)})
    text = "First half: [3], in Set 1: [3]\nSecond half: [7], in Set 1: [7]\nOutput: [3, 7]"
    assert TASK.parse_reply(text, problem, prompt) == [3, 7]
    other = SetProblem((1, 3, 5), (3, 7))  # here Set 2 is no answer: it stays an echo
    prompt = TASK.prompts["cot"].render({"input": TASK.render(other)})
    assert TASK.parse_reply("[3]\nSet 2 is [7, 3]", other, prompt) == [3]


@pytest.mark.parametrize("text", ["", "I cannot help with that.", '{"x": 1}', "[a, b"])
def test_parser_raises_parse_error_when_there_is_no_list(text):
    with pytest.raises(ParseError):
        parse_set(text)


def test_the_papers_worked_example_scores_as_the_paper_says():
    part_a, part_b = SetProblem(SET1, HALF_A), SetProblem(SET1, HALF_B)
    # Table 14, step 2a: "[11, 14, 46, 14, 19] (1 Error - Duplicated 14)"
    assert TASK.score(part_a, parse_set("[11, 14, 46, 14, 19]")) == (
        _score(1, "14 is listed two times: list it once")
    )
    assert TASK.score(part_a, parse_set("Output: [11, 14, 46, 19]")).perfect
    # step 2b: "[50, 56, 49] (2 Errors - Missing 3 and 37)"
    assert TASK.score(part_b, parse_set("[50, 56, 49]")) == _score(
        2, "missing 3 (it is in both sets)", "missing 37 (it is in both sets)"
    )
    # step 3: the merged list is the full intersection
    whole = TASK.join([part_a, part_b])
    assert TASK.score(whole, parse_set("[11, 14, 46, 19, 56, 49, 37, 3, 50]")).perfect
    assert TASK.reference(whole) == load_sample("set_intersection_032", 0).reference


def _score(value: float, *errors: str) -> thoughtgraph.Score:
    return thoughtgraph.Score(float(value), errors)


@pytest.mark.parametrize(
    ("output", "value", "errors"),
    [
        ([2, 3], 0, ()),
        ([2, 3, 9], 1, ("9 is not in either set: remove it",)),
        ([1, 2, 3], 1, ("1 is not in Set 2: remove it",)),
        ([2, 3, 4], 1, ("4 is not in Set 1: remove it",)),
        ([2], 1, ("missing 3 (it is in both sets)",)),
        ([2, 2, 2, 3], 2, ("2 is listed three times: list it once",)),
        ([], 2, ("missing 2 (it is in both sets)", "missing 3 (it is in both sets)")),
    ],
)
def test_error_scope_counts_extra_missing_and_duplicates(output, value, errors):
    score = intersection_errors(SetProblem((1, 2, 3), (2, 3, 4)), output)
    assert (score.value, score.errors) == (value, errors)


@given(
    st.sets(st.integers(0, 40), min_size=1),
    st.sets(st.integers(0, 40), min_size=1),
    st.lists(st.integers(0, 45)),
)
def test_score_is_the_papers_formula(first, second, output):
    want = first & second
    x1 = len(set(output) - want)
    x2 = len(want - set(output))
    xd = len(output) - len(set(output))
    assert TASK.score(SetProblem(tuple(first), tuple(second)), output).value == x1 + x2 + xd


@given(
    st.sets(st.integers(0, 60), min_size=1),
    st.lists(st.integers(0, 60), min_size=1, unique=True),
    st.integers(1, 8),
)
def test_a_union_of_correct_parts_is_correct(first, second, parts):
    problem = SetProblem(tuple(first), tuple(second))
    parts = min(parts, len(second))
    pieces = TASK.split(problem, parts)
    assert all(p.set1 == problem.set1 for p in pieces)
    assert TASK.join(pieces) == problem
    union = sorted(x for piece in pieces for x in TASK.reference(piece))
    assert TASK.score(problem, union).perfect


@pytest.mark.parametrize(
    "raw",
    [
        {"set1": [1, 2, 3], "set2": [3, 4]},
        [[1, 2, 3], [3, 4]],
        '{"set1": [1, 2, 3], "set2": [3, 4]}',
        "[[1, 2, 3], [3, 4]]",
        SetProblem((1, 2, 3), (3, 4)),
    ],
)
def test_input_forms(raw):
    assert TASK.parse_input(raw) == SetProblem((1, 2, 3), (3, 4))


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("1, 2, 3", "write the input as"),
        ({"set1": [1]}, "missing set2"),
        ([[1, 2], [2, "x"]], "set2 item 2 is not an integer"),
        ([[1, 1], [2]], "set1 is a set: 1 appears more than once"),
        ([[], [2]], "at least one integer"),
        ([[1], [2], [3]], "two sets"),
    ],
)
def test_bad_input_is_one_clear_line(raw, message):
    with pytest.raises(InputError, match=message):
        TASK.parse_input(raw)


def test_a_model_split_keeps_the_first_set_with_every_part():
    def respond(prompt: str, _n: int) -> str:
        if "Split Set 2" in prompt:
            return 'Sure:\n{"List 1": [4, 3], "List 2": [9, 1]}'
        if "<a>" in prompt:
            return "[3, 1]"
        return "[3]" if "[4, 3]" in prompt else "[1]"

    graph = schemes.build("got_paper", "set-intersection", 4, parts=2)
    model = ScriptedModel(respond)
    result = thoughtgraph.solve(
        "set-intersection", [[1, 3, 5], [4, 3, 9, 1]], model=model, graph=graph
    )
    parts = [result.state.outputs(f"select_{i}")[0].content for i in (1, 2)]
    assert parts == [SetProblem((1, 3, 5), (4, 3)), SetProblem((1, 3, 5), (9, 1))]
    assert "Set 1: [1, 3, 5]" in model.prompts[1] and result.output == [1, 3] and result.clean


@pytest.mark.parametrize("scheme", ["got", "got_paper"])
def test_a_dataset_sample_is_solved_clean_without_slips(scheme):
    sample = load_sample("set_intersection_064", 7)
    result = thoughtgraph.solve(
        "set-intersection", sample.input, model="sim:error=0", scheme=scheme
    )
    assert result.clean and result.output == sample.reference


def test_registered_with_its_prompts():
    task = get_task("set-intersection")
    assert isinstance(task, SetIntersectionTask)
    assert {"io", "cot", "improve", "split", "paper_merge"} <= set(task.prompts)
    assert json.loads(json.dumps(TASK.reference(SetProblem((1, 2), (2, 1))))) == [1, 2]


def test_a_large_input_renders_set_1_once_and_builds_prompts_as_calls_get_slots(monkeypatch):
    """50,000 + 50,000 numbers took 70 s and 2.16 GB before the first request: every one of
    6,250 parts rendered the whole Set 1 again, and every part's prompt was built before any
    was sent. Now Set 1 is rendered once, and a prompt is built when its call gets a slot."""
    from thoughtgraph.errors import FatalModelError
    from thoughtgraph.tasks import sets

    size = 800
    renders: list[int] = []
    real_show = sets.show_ints

    def counting_show(items):
        if len(items) == size:
            renders.append(1)
        return real_show(items)

    built: list[int] = []
    real_render = SetIntersectionTask.render

    def counting_render(self, value):
        if isinstance(value, SetProblem) and len(value) <= 8:
            built.append(1)  # a part rendered into a prompt
        return real_render(self, value)

    monkeypatch.setattr(sets, "show_ints", counting_show)
    monkeypatch.setattr(SetIntersectionTask, "render", counting_render)
    at_first_call: list[int] = []

    async def model(prompt: str) -> str:
        at_first_call.append(len(built))
        raise FatalModelError("stop at the first request")

    numbers = list(range(2 * size))
    problem = {"set1": numbers[:size], "set2": numbers[400:1040]}  # 80 parts of 8
    with pytest.raises(FatalModelError):
        thoughtgraph.solve("set-intersection", problem, model=model, concurrency=4)
    assert len(renders) == 1  # Set 1 once, not once per part
    assert at_first_call and at_first_call[0] <= 2 * 4  # at most the slots' prompts, not 80
