"""A default cap on each answer's tokens (issue 19): a looping model cannot write unbounded
answers when the user sets no `--max-completion-tokens`. The server's request log shows what
was asked."""

from __future__ import annotations

import json

import pytest

from thoughtgraph.engine.answer_cap import CAP_MARGIN, default_cap
from thoughtgraph.models.openai import OpenAIModel
from thoughtgraph.tasks import get_task

from .conftest import run_cli
from .fake_openai import FakeOpenAI

NUMBERS = "[3, 1, 2, 9, 4, 7, 7, 0]"


def solve(capsys, server: FakeOpenAI, *extra: str) -> tuple[int, str, list[object]]:
    code, out, err = run_cli(
        capsys,
        "solve",
        "sorting",
        "--input",
        NUMBERS,
        "-m",
        "openai:m",
        "--base-url",
        server.base_url,
        "--scheme",
        "io",
        *extra,
    )
    assert code == 0, err
    return code, out, [r.body.get("max_tokens") for r in server.requests]


def test_without_a_cap_each_answer_gets_the_default_and_the_summary_says_so(capsys):
    expected = default_cap(get_task("sorting"), get_task("sorting").parse_input(NUMBERS))
    with FakeOpenAI() as server:
        _, out, caps = solve(capsys, server)
    assert caps == [expected]
    assert CAP_MARGIN < expected < 400  # 4 x a few tokens of answer + the margin
    assert f"answers: capped at {expected:,} tokens each by default" in out


def test_the_default_cap_is_in_the_json_result(capsys):
    with FakeOpenAI() as server:
        _, out, caps = solve(capsys, server, "--json")
    assert json.loads(out)["completion_cap"] == caps[0] > CAP_MARGIN


@pytest.mark.parametrize(("flag", "sent"), [("50", 50), ("0", None)])
def test_a_cap_given_wins_and_0_sends_none(capsys, flag, sent):
    with FakeOpenAI() as server:
        _, out, caps = solve(capsys, server, "--max-completion-tokens", flag)
    assert caps == [sent]
    assert "capped at" not in out


def test_the_cap_grows_with_the_problem():
    task = get_task("sorting")
    small = default_cap(task, task.parse_input(list(range(8))))
    large = default_cap(task, task.parse_input(list(range(800))))
    assert large > 50 * (small - CAP_MARGIN)


def test_a_shared_model_is_not_changed_by_one_runs_cap():
    model = OpenAIModel("m", base_url="http://127.0.0.1:9/v1")
    capped = model.with_default_max_tokens(300)
    assert capped.max_tokens == 300 and model.max_tokens is None
    assert capped.settings["max_tokens"] == 300 and model.settings["max_tokens"] is None
    mine = OpenAIModel("m", base_url="http://127.0.0.1:9/v1", max_tokens=0)
    assert mine.with_default_max_tokens(300) is mine and mine.settings["max_tokens"] is None
