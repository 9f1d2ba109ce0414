"""`solve --show-prompts`: the prompts a row's graph sends, rendered without a model, for a task
file or a task class (`--data FILE --id ID`) and for a built-in dataset (`--dataset NAME
--sample N`); what the model's answers fill at run time shown as placeholders, no request made."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

import thoughtgraph
from thoughtgraph.evaluation.datasets import load_sample
from thoughtgraph.solving.preview import ERRORS, prompts_of
from thoughtgraph.solving.solve import prepare

from .conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
PEOPLE = ROOT / "examples" / "people"


@pytest.fixture
def never(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A `py:` model that fails the test if it is ever called (or even imported)."""
    (tmp_path / "never_called.py").write_text(
        "raise AssertionError('the model was imported')\n"
        "def answer(prompt):\n    raise AssertionError('the model was called')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "never_called", raising=False)
    return "py:never_called:answer"


def test_a_task_files_row_shows_every_op_that_calls_the_model(capsys, never):
    code, out, err = run_cli(
        capsys, "solve", str(PEOPLE / "task.yaml"), "--data", str(PEOPLE / "data.jsonl"),
        "--id", "lab", "--scheme", "got", "--show-prompts", "--model", never,
    )  # fmt: skip
    assert code == 0, err
    heads = [line for line in out.splitlines() if line.startswith("=== ")]
    assert heads == [
        *(f"=== part_{i}: generate, prompt part, 1 answer ===" for i in range(1, 5)),
        "=== merge_1_1: aggregate, prompt merge, 1 answer ===",
        "=== merge_1_2: aggregate, prompt merge, 1 answer ===",
        "=== merge_2_1: aggregate, prompt merge, 1 answer ===",
        "=== refine: refine, prompt refine, 1 answer ===",
    ]
    # each part is the row's own paragraph, known before the run
    assert "<part>By morning the freezer hummed again." in out
    # a merge's inputs and a refine's answer and errors come from the model: placeholders
    assert "<a>⟨the answer of part_1⟩</a>\n<b>⟨the answer of part_2⟩</b>" in out
    assert "<result>⟨the answer of merge_2_1⟩</result>" in out
    assert f"<errors>{ERRORS}</errors>" in out
    assert "⟦" not in out  # no stand-in answer left unnamed


def test_a_built_in_samples_prompt_is_what_a_model_is_sent(capsys, never):
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--dataset", "sorting_032", "--sample", "3",
        "--scheme", "tot", "--show-prompts", "--json", "--model", never,
    )  # fmt: skip
    assert code == 0, err
    shown = {p["op"]: p for p in json.loads(out)["prompts"]}
    assert list(shown) == ["level_1", "level_2"] and shown["level_1"]["answers"] == 20
    sent: list[str] = []

    def recording(prompt: str) -> str:
        sent.append(prompt)
        return "[]"

    thoughtgraph.solve(
        "sorting", load_sample("sorting_032", 3).input, model=recording, scheme="tot"
    )
    assert shown["level_1"]["text"] == sent[0]  # the first request, exactly
    assert "⟨an answer of level_1⟩" in shown["level_2"]["text"]


def test_a_task_class_row_and_a_model_split_say_what_they_show(capsys, never, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT))
    code, out, err = run_cli(
        capsys, "solve", "examples.products.task:Products", "--data",
        "examples/products/data.jsonl", "--id", "tue", "--scheme", "io", "--show-prompts",
        "--model", never,
    )  # fmt: skip
    assert code == 0, err
    assert "=== answer: generate, prompt io, 1 answer ===" in out
    assert '["Linen Apron", "Blue Mug", "Tea Towel", "Cork Mat"' in out  # render()ed
    split = prepare("sorting", list(range(32)), scheme="got_paper")
    found = asyncio.run(prompts_of(split))
    assert found.sent[0].op == "split" and "model's answer at run time" in found.sent[0].note
