"""Real answers from a real model, parsed as expected (tests/fixtures/real_answers/).

Each fixture file holds answers SmolLM2-135M-Instruct gave through llama-cpp-python's server to
thoughtgraph's own prompts (collected with bench/collect_answers.py and bench/local_eval.py),
with the prompt, the parse expected and why. `parse_error: true` means no usable answer is in
the text: the parser must say so (a scored failure), not invent one. Entries with a `split`
(`tune` / `heldout`) were collected from `thoughtgraph solve` runs and labelled by hand before
the parser read them; bench/parse_agreement.py reports agreement per split. A held-out reply
the parser reads wrong stays in the corpus with `parser_misses` (why) and is an expected
failure here, so the corpus keeps telling the truth about the parser.
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
    for path in sorted(FIXTURES.glob("*.json")):
        corpus = json.loads(path.read_text())
        for index, case in enumerate(corpus["answers"]):
            marks = []
            if case.get("parser_misses"):  # a held-out reply the parser reads wrong: kept, said
                marks = [pytest.mark.xfail(strict=True, reason=case["parser_misses"])]
            cases.append(pytest.param(corpus["task"], case, id=f"{path.stem}-{index}", marks=marks))
    return cases


CASES = _cases()


def test_the_corpus_covers_all_four_tasks_and_says_why():
    tasks = {case.values[0] for case in CASES}
    assert tasks == {"sorting", "set-intersection", "keyword-counting", "doc-merge"}
    for case in CASES:
        entry = case.values[1]
        assert entry["answer"] and entry["prompt"] and len(entry["why"]) > 20


@pytest.mark.parametrize(("task_name", "case"), CASES)
def test_a_real_answer_parses_as_expected(task_name: str, case: dict[str, Any]):
    task = get_task(task_name)
    if case.get("parse_error"):
        with pytest.raises(ParseError):
            task.parse_reply(case["answer"], None, case["prompt"])
        return
    assert task.parse_reply(case["answer"], None, case["prompt"]) == case["expected"], case["why"]
