"""Helpers for the task-source tests: a loopback server that plays a user's task, the CLI run
against it, and the tiny user task module and plugin distribution the tests write."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fake_openai import FakeOpenAI


class ScriptedServer(FakeOpenAI):
    """The OpenAI-compatible test server, answering every prompt with `play(prompt)`."""

    def __init__(self, play: Callable[[str], str]) -> None:
        super().__init__(error=0.0)
        self.play = play

    def _answer(self, prompt: str) -> str:
        return self.play(prompt)


def block(prompt: str, tag: str) -> str | None:
    """The text between <tag> and </tag> in a prompt (the first such block)."""
    match = re.search(rf"<{tag}>\n?(.*?)\n?</{tag}>", prompt, re.DOTALL)
    return match.group(1) if match else None


def play_evens(prompt: str) -> str:
    """A model that keeps the even numbers: parts, merges (a + b) and refines (as is)."""
    if "<a>" in prompt:
        return json.dumps(
            json.loads(block(prompt, "a") or "[]") + json.loads(block(prompt, "b") or "[]")
        )
    if "<result>" in prompt:
        return block(prompt, "result") or "[]"
    numbers = json.loads(block(prompt, "part") or block(prompt, "input") or "[]")
    return json.dumps([n for n in numbers if n % 2 == 0])


def play_people(prompt: str) -> str:
    """A model that lists the full names (two capitalised words) of a text, and rates 7/10."""
    if "Rate the answer" in prompt:
        return "It keeps most of it.\nScore: 7"
    if "<a>" in prompt:
        a, b = json.loads(block(prompt, "a") or "[]"), json.loads(block(prompt, "b") or "[]")
        return json.dumps(list(dict.fromkeys(a + b)))
    if "<result>" in prompt:
        return block(prompt, "result") or "[]"
    text = block(prompt, "part") or block(prompt, "input") or ""
    names = re.findall(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b", text)
    skip = ("The ", "Harrow ", "Captain ", "Halfway ", "At ", "In ", "Two ", "A ")
    return json.dumps([n for n in dict.fromkeys(names) if not n.startswith(skip)])


def run_solve(
    capsys: pytest.CaptureFixture[str], server: FakeOpenAI, task: str, *args: str
) -> tuple[int, str, str]:
    """`thoughtgraph solve TASK ...` in-process against the server: (code, stdout, stderr)."""
    argv = ["solve", task, "--model", "openai:m", "--base-url", server.base_url]
    return run_cli(capsys, *argv, "--max-retries", "0", "--timeout", "5", "--no-progress", *args)


def model_flags(server: FakeOpenAI) -> list[str]:
    """The flags that point a command at the loopback server, with no retries."""
    return ["--model", "openai:m", "--base-url", server.base_url, "--max-retries", "0"]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`thoughtgraph ARGV...` in-process: (exit code, stdout, stderr)."""
    from thoughtgraph.cli.main import main

    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


# A task file whose answers are counts of names, scored against a reference.
COUNTS_FILE = """\
name: word-counts
description: Count how often each name appears in the text.
answer: {type: counts}
split: {by: lines}
join: add
score: {by: reference}
"""


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def solve_example(
    capsys: pytest.CaptureFixture[str], server: FakeOpenAI, example: str, given: object, *args: str
) -> tuple[int, str, str]:
    """`thoughtgraph solve examples/EXAMPLE/task.yaml --input-file GIVEN ...` on the server."""
    task = str(EXAMPLES / example / "task.yaml")
    return run_solve(capsys, server, task, "--input-file", str(given), *args)


EVENS_MODULE = '''
from thoughtgraph import BaseTask, ParseError, Score
import json


class EvensTask(BaseTask):
    """Keep the even numbers of a list, in order."""

    name = "evens"
    part_size = 2

    def parse_input(self, raw):
        return json.loads(raw) if isinstance(raw, str) else list(raw)

    def describe(self, problem):
        return "Keep the even numbers of the list, in order."

    def format(self):
        return "a JSON list of integers"

    def parse(self, text):
        try:
            value = json.loads(text)
        except ValueError:
            raise ParseError("no JSON list") from None
        if not isinstance(value, list):
            raise ParseError("not a list")
        return value

    def score(self, problem, content):
        want = [n for n in problem if n % 2 == 0]
        errors = () if content == want else ("keep exactly " + str(want),)
        return Score(float(content != want), errors)


TASK = EvensTask()


def make_task():
    return EvensTask()


class NotATask:
    name = "not-a-task"


class Broken(EvensTask):
    def __init__(self):
        raise RuntimeError("cannot start\\nsecond line")
'''


def write_module(folder: Path, name: str, source: str = EVENS_MODULE) -> None:
    (folder / f"{name}.py").write_text(textwrap.dedent(source))


def write_plugin(site: Path, dist: str, entries: dict[str, str], module_source: str | None) -> None:
    """A tiny installed distribution in `site`: its package (when `module_source`) and a
    dist-info declaring `entries` in the `thoughtgraph.tasks` group."""
    package = dist.replace("-", "_")
    if module_source is not None:
        (site / package).mkdir()
        (site / package / "__init__.py").write_text(textwrap.dedent(module_source))
    info = site / f"{package}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    lines = "\n".join(f"{name} = {target}" for name, target in entries.items())
    (info / "entry_points.txt").write_text(f"[thoughtgraph.tasks]\n{lines}\n")


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def play_summary(prompt: str) -> str:
    """A model that summarises a text by its first sentence, joins summaries whole, and rates a
    summary 2 points a sentence (at most 10): splitting a report keeps a sentence of each part,
    so a graph with more parts is rated higher, and costs more."""
    if "Rate the answer" in prompt:
        answer = prompt.rpartition("<answer>")[2].partition("</answer>")[0]
        rated = min(10, 2 * len(sentences(answer)))
        return f"Two points a sentence.\nScore: {rated}"
    if "<a>" in prompt:
        return f"{block(prompt, 'a') or ''} {block(prompt, 'b') or ''}".strip()
    if "<results>" in prompt:
        return " ".join((block(prompt, "results") or "").split())
    if "<result>" in prompt:
        return block(prompt, "result") or ""
    text = block(prompt, "part") or block(prompt, "input") or ""
    return (sentences(text) or ["Nothing."])[0]
