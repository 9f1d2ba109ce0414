"""Real answers from a real model, parsed as expected (tests/fixtures/real_answers/).

Each fixture file holds answers SmolLM2-135M-Instruct gave through llama-cpp-python's server to
thoughtgraph's own prompts (collected with bench/collect_answers.py and bench/local_eval.py),
with the prompt, the parse expected and why. `parse_error: true` means no usable answer is in
the text: the parser must say so (a scored failure), not invent one. Entries with a `split`
(`tune` / `heldout`) were collected from `thoughtgraph solve` runs and labelled by hand before
the parser read them; bench/parse_agreement.py reports agreement per split. A held-out reply
the parser reads wrong stays in the corpus with `parser_misses` (why) and is an expected
failure here, so the corpus keeps telling the truth about the parser.

`top/` holds capable models' replies: a sample of gpt-3.5-turbo's and Llama-3-70B-Instruct's
replies in the Tree of Problems release (Apache-2.0; its README says how they were drawn and
split), each with the release's prompt as a template and the values it was filled with, and the
problem the reply answers (given to the parser, as a run gives it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from thoughtgraph.tasks import ParseError, get_task

FIXTURES = Path(__file__).parent / "fixtures" / "real_answers"


def _cases() -> list[Any]:
    cases = []
    for path in sorted(FIXTURES.glob("*.json")) + sorted(FIXTURES.glob("top/*.json")):
        corpus = json.loads(path.read_text())
        name = path.stem if path.parent == FIXTURES else f"top-{path.stem}"
        for index, case in enumerate(corpus["answers"]):
            marks = []
            if case.get("parser_misses"):  # a held-out reply the parser reads wrong: kept, said
                marks = [pytest.mark.xfail(strict=True, reason=case["parser_misses"])]
            entry = _with_prompt(corpus, case)
            cases.append(pytest.param(corpus["task"], entry, id=f"{name}-{index}", marks=marks))
    return cases


def _with_prompt(corpus: dict[str, Any], case: dict[str, Any]) -> dict[str, Any]:
    """The entry with its prompt: given, or its template filled (`{{` is a brace)."""
    if "prompt" in case:
        return case
    template = corpus["templates"][case["prompt_of"]].strip()
    return {**case, "prompt": template.format(**case["fields"])}


CASES = _cases()


def test_the_corpus_covers_all_four_tasks_and_says_why():
    tasks = {case.values[0] for case in CASES}
    assert tasks == {"sorting", "set-intersection", "keyword-counting", "doc-merge"}
    for case in CASES:
        entry = case.values[1]
        assert entry["answer"] and entry["prompt"] and len(entry["why"]) > 20


def test_the_capable_models_sample_holds_both_models_both_splits_and_no_answers():
    top = [case.values[1] for case in CASES if "model" in case.values[1]]
    assert {c["model"] for c in top} == {"gpt-3.5-turbo", "llama-3-70b-instruct"}
    assert {c["split"] for c in top} == {"tune", "heldout"}
    assert sum(bool(c.get("parse_error")) for c in top) >= 4  # refusals: no answer
    assert len(top) <= 400  # a sample, never the release


@pytest.mark.parametrize(("task_name", "case"), CASES)
def test_a_real_answer_parses_as_expected(task_name: str, case: dict[str, Any]):
    task = get_task(task_name)
    problem = task.parse_input(case["input"]) if "input" in case else None
    if case.get("parse_error"):
        with pytest.raises(ParseError):
            task.parse_reply(case["answer"], problem, case["prompt"])
        return
    got = task.parse_reply(case["answer"], problem, case["prompt"])
    assert got == case["expected"], case["why"]


SCRIPT_REPLY = """<script>
const json_data = JSON.JSON_ARRAY(
    {
        "Chile": 2,
        "Japan": 2
    },
{
    "South Korea": 1,
    "USA": {
        "United States": 3,
        "Canada": 2
    },
});</script>"""


@pytest.mark.parametrize("reply", [SCRIPT_REPLY, SCRIPT_REPLY.removesuffix("</script>")])
def test_objects_inside_a_script_block_are_code_not_counts(reply: str):
    # a tune reply of the corpus: the inner object was read as the counts (an invented answer)
    with pytest.raises(ParseError):
        get_task("keyword-counting").parse_reply(reply, None, "")


def test_a_list_inside_a_script_block_is_code_and_one_after_it_still_counts():
    task = get_task("sorting")
    with pytest.raises(ParseError):
        task.parse_reply("<script>\nconsole.log(\n[1, 2, 3]);\n</script>", None, "")
    assert task.parse_reply("<script>let a = 1;</script>\nOutput: [1, 2, 3]", None, "") == [
        1,
        2,
        3,
    ]


def test_a_lone_made_up_set_in_the_steps_leaves_the_output_the_answer():
    # a tune reply of the corpus: `Set 1: [50, 29]` was taken for another problem, so its
    # `Output:` was discarded as that problem's answer
    prompt = "<input>Set 1: [51, 76, 50, 6]\nSet 2: [108, 50, 72]</input>"
    reply = "Set 1: [50, 29]\nThe second half holds the common numbers.\nOutput: [50, 6]"
    assert get_task("set-intersection").parse_reply(reply, None, prompt) == [6, 50]


def test_a_made_up_pair_of_sets_is_still_another_problem():
    prompt = "<input>Set 1: [3, 4, 8]\nSet 2: [4, 3, 7]</input>"
    reply = "[3, 4]\nSet 1: [1, 2, 9]\nSet 2: [9, 5, 6]\nOutput: [9]"
    assert get_task("set-intersection").parse_reply(reply, None, prompt) == [3, 4]


def test_camel_case_field_names_are_no_countries():
    # a tune reply of the corpus: `{"ContentTypeId": 1, "CategoryId": "2034867"}` in a made-up
    # schema was read as counts (an invented answer)
    reply = '{"Description": {\n  "ContentTypeId": 1,\n  "CategoryId": "2034867"\n}}'
    with pytest.raises(ParseError):
        get_task("keyword-counting").parse_reply(reply, None, "")
    assert get_task("keyword-counting").parse_reply('{"New Zealand": 2, "Peru": 1}', None, "") == {
        "New Zealand": 2,
        "Peru": 1,
    }
