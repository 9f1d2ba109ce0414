"""A task class gets the baselines: a class that defines only the required methods runs every
scheme in `solve` and `eval` (generic io/cot/improve/paper_merge prompts built from its
`describe` and `format`, got_paper split in code); its own prompts come first, and may be plain
strings (a bad one is one line); its `matches_reference` decides "solved" everywhere."""

from __future__ import annotations

import csv
import importlib
import json
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import thoughtgraph
from thoughtgraph.schemes import SCHEMES
from thoughtgraph.tasks import check_task
from thoughtgraph.tasks.prompts import COT, IO, TemplateError

from .conftest import run_cli

ROWS = [
    {"id": "short", "input": [3, 4, 8, 1, 6], "reference": [4, 8, 6]},
    {"id": "long", "input": [2, 7, 10, 5, 12, 9, 14, 1], "reference": [2, 10, 12, 14]},
]

MODULE = '''
import json
import re

from thoughtgraph import BaseTask, ParseError, PromptTemplate, Score

SEEN = []  # every prompt the model was sent


class Evens(BaseTask):
    """The abstract methods and parse_input, nothing else: no prompts, no reference solver,
    no reader for a model's split."""

    name = "evens-{tag}"
    part_size = 2

    def parse_input(self, raw):
        return json.loads(raw) if isinstance(raw, str) else list(raw)

    def describe(self, problem):
        return "List the even numbers of the input list, in their order."

    def format(self):
        return "a JSON list of whole numbers"

    def parse(self, text):
        found = re.findall(r"\\[[^\\[\\]]*\\]", text)
        if not found:
            raise ParseError("no list")
        return json.loads(found[-1])

    def score(self, problem, content):
        want = [n for n in problem if n % 2 == 0]
        errors = tuple(f"missing {{n}}" for n in want if n not in content)
        errors += tuple(f"{{n}} does not belong" for n in content if n not in want)
        return Score(float(len(errors)), errors)


class AnyOrder(Evens):
    """The same, an answer right in any order (a set): its own test of "solved"."""

    name = "evens-any-order-{tag}"

    def matches_reference(self, problem, content, reference=None):
        if reference is None:
            return None
        return content is not None and sorted(content) == sorted(reference)


class OwnTexts(Evens):
    name = "evens-texts-{tag}"
    prompts = {{"io": "Evens only, as {{{{format}}}}: <input>{{{{input}}}}</input>"}}


class OwnTemplates(Evens):
    name = "evens-templates-{tag}"
    prompts = {{
        "io": PromptTemplate("Evens please, as {{{{format}}}}: <input>{{{{input}}}}</input>")
    }}


class BadText(Evens):
    name = "evens-bad-{tag}"
    prompts = {{"io": "Evens of <input>{{{{input}}</input>"}}


def _block(prompt, tag):
    found = re.findall(rf"<{{tag}}>((?:(?!<{{tag}}>).)*?)</{{tag}}>", prompt, re.DOTALL)
    return found[-1] if found else ""


def model(prompt):
    """A flawless model for every prompt kind: merges (a, b, ...), fixes (answer, result),
    parts and whole inputs; reversed order for an input, so "in any order" matters."""
    SEEN.append(prompt)
    for tags in (("a", "b", "c", "d"), ("answer",), ("result",), ("part",), ("input",)):
        blocks = [_block(prompt, tag) for tag in tags]
        if any(blocks):
            numbers = [n for block in blocks if block for n in json.loads(block)]
            break
    return json.dumps([n for n in numbers if n % 2 == 0])
'''


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str, Path]]:
    """(module name, its tag, the data file) in a fresh working directory."""
    tag = uuid.uuid4().hex[:8]
    name = f"evens_tasks_{tag}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE.format(tag=tag)))
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    yield name, tag, data
    sys.modules.pop(name, None)


def module(name: str) -> ModuleType:
    return importlib.import_module(name)


def solve(capsys: Any, name: str, task: str, *args: str) -> tuple[int, str, str]:
    return run_cli(capsys, "solve", f"{name}:{task}", "--model", f"py:{name}:model", *args)


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_a_class_with_only_the_required_methods_solves_with_every_scheme(
    capsys: Any, user: tuple[str, str, Path], scheme: str
) -> None:
    name, _, data = user
    code, out, err = solve(
        capsys, name, "Evens", "--data", str(data), "--id", "long", "--scheme", scheme, "--json"
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["output"] == [2, 10, 12, 14] and result["status"] == "clean"
    assert result["matches_reference"] is True


@pytest.mark.parametrize("scheme", ["io", "tot", "got_paper"])
def test_without_a_reference_a_scheme_runs_and_solved_is_unknown(
    capsys: Any, user: tuple[str, str, Path], scheme: str
) -> None:
    """Nothing to compare with (no reference given, no solver): the scheme runs without its
    ground_truth op instead of being refused."""
    name, _, _ = user
    code, out, err = solve(capsys, name, "Evens", "--input", "[1, 2, 3, 4]", "--scheme", scheme)
    assert code == 0, err
    assert "[2, 4]" in out and "dataset:" not in out


def test_the_baseline_prompts_are_the_classs_own_words(
    capsys: Any, user: tuple[str, str, Path]
) -> None:
    name, _, _ = user
    for scheme in ("io", "cot"):
        code, _, err = solve(capsys, name, "Evens", "--input", "[1, 2]", "--scheme", scheme)
        assert code == 0, err
    io, cot = module(name).SEEN
    values = {
        "task": "List the even numbers of the input list, in their order.",
        "format": "a JSON list of whole numbers",
        "input": "[1, 2]",
    }
    assert io == thoughtgraph.PromptTemplate(IO).render(values)
    assert cot == thoughtgraph.PromptTemplate(COT).render(values)


@pytest.mark.parametrize("scheme", ["io", "got_paper"])
def test_a_class_object_runs_the_baselines_from_python(scheme: str) -> None:
    """The object itself, never loaded by name: got_paper still splits it in code."""
    namespace: dict[str, Any] = {}
    exec(textwrap.dedent(MODULE.format(tag=uuid.uuid4().hex[:8])), namespace)
    problem = [3, 4, 8, 1, 6, 2, 9, 10]
    result = thoughtgraph.solve(
        namespace["Evens"](), problem, scheme=scheme, model=namespace["model"]
    )
    assert result.clean and result.output == [4, 8, 6, 2, 10]
    if scheme == "got_paper":
        assert "split" not in result.calls_by_kind  # in code: the class reads no model's split


def test_eval_runs_the_schemes_on_a_class(capsys: Any, user: tuple[str, str, Path]) -> None:
    name, _, data = user
    out = Path("runs")
    code, _, err = run_cli(
        capsys, "eval", f"{name}:Evens", "--data", str(data),
        "--schemes", "io,cot,tot,got,got_paper", "--model", f"py:{name}:model",
        "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted({r["scheme"] for r in rows}) == ["cot", "got", "got_paper", "io", "tot"]
    assert len(rows) == 10 and all(r["solved"] and r["error"] == 0 for r in rows)


def test_evaluate_takes_the_class_object_and_runs_every_scheme_on_it() -> None:
    """The object itself, never loaded by name: eval builds its graphs for it (got_paper split
    in code, got in parts of its part size), as for `pkg.mod:Class`."""
    namespace: dict[str, Any] = {}
    exec(textwrap.dedent(MODULE.format(tag=uuid.uuid4().hex[:8])), namespace)
    found = thoughtgraph.evaluate(
        namespace["Evens"](), ROWS, schemes="io,cot,tot,got,got_paper", model=namespace["model"]
    )
    assert len(found.results) == 10 and all(r.solved and r.error == 0 for r in found.results)


@pytest.mark.parametrize(
    ("task", "words"), [("OwnTexts", "Evens only"), ("OwnTemplates", "Evens please")]
)
def test_a_classs_own_prompts_come_first_as_texts_or_templates(
    capsys: Any, user: tuple[str, str, Path], task: str, words: str
) -> None:
    name, _, _ = user
    for scheme in ("io", "cot"):
        code, _, err = solve(capsys, name, task, "--input", "[1, 2]", "--scheme", scheme)
        assert code == 0, err
    io, cot = module(name).SEEN
    assert io.startswith(words) and io.endswith("<input>[1, 2]</input>")
    assert cot.startswith("List the even numbers")  # the baseline for what it does not name


def test_a_bad_template_text_is_one_line_naming_the_prompt_before_any_call(
    capsys: Any, user: tuple[str, str, Path]
) -> None:
    name, tag, _ = user
    code, out, err = solve(capsys, name, "BadText", "--input", "[1, 2]", "--scheme", "io")
    assert (code, out) == (2, "")
    assert err == (
        f"error: task 'evens-bad-{tag}': prompt 'io': '{{{{input}}</input>' is not a template "
        "tag: write {{name}}, {{#if name}}, {{else}} or {{/if}}\n"
    )
    assert module(name).SEEN == []


def test_prompts_that_are_no_mapping_or_hold_no_text_are_one_line(
    user: tuple[str, str, Path],
) -> None:
    name, tag, _ = user
    evens = importlib.import_module(name).Evens
    for prompts, message in (
        (["io"], "prompts must be a mapping of prompt names to template texts, got list"),
        ({"io": 3}, "prompt 'io' must be a template text (str) or a PromptTemplate, got int"),
    ):
        task = evens()
        task.prompts = prompts
        with pytest.raises(TemplateError) as caught:
            check_task(task)
        assert str(caught.value) == f"task 'evens-{tag}': {message}"


def test_matches_reference_decides_solved_in_solve_eval_and_tune(
    capsys: Any, user: tuple[str, str, Path]
) -> None:
    """The model answers in the input's order; the rows' references are reversed. Equality
    (the default) says not solved; a class whose answers are right in any order says solved,
    in solve's summary, eval's rows and tune's measure, with or without a ground_truth op."""
    name, _, data = user
    data.write_text(
        "".join(json.dumps({**row, "reference": row["reference"][::-1]}) + "\n" for row in ROWS)
    )
    for task, verdict in (("Evens", "differs from"), ("AnyOrder", "matches")):
        for scheme in ("io", "got"):  # got has no ground_truth op
            code, out, err = solve(
                capsys, name, task, "--data", str(data), "--id", "long", "--scheme", scheme
            )
            assert code == 0, err
            assert f"dataset: output {verdict} the reference" in out
        code, _, err = run_cli(
            capsys, "eval", f"{name}:{task}", "--data", str(data), "--schemes", "io,got",
            "--model", f"py:{name}:model", "--out", f"eval-{task}", "--no-progress",
        )  # fmt: skip
        assert code == 0, err
        lines = Path(f"eval-{task}", "results.jsonl").read_text().splitlines()
        assert {json.loads(line)["solved"] for line in lines} == {task == "AnyOrder"}


def test_tune_measures_solved_by_the_classs_own_test(
    capsys: Any, user: tuple[str, str, Path]
) -> None:
    pytest.importorskip("optuna")
    name, _, data = user
    data.write_text(
        "".join(json.dumps({**row, "reference": row["reference"][::-1]}) + "\n" for row in ROWS)
    )
    solved = {}
    for task in ("Evens", "AnyOrder"):
        code, _, err = run_cli(
            capsys, "tune", f"{name}:{task}", "--data", str(data), "--pilot", "1",
            "--holdout", "1", "--trials", "1", "--schemes", "got",
            "--model", f"py:{name}:model", "--out", f"tune-{task}",
        )  # fmt: skip
        assert code == 0, err
        with Path(f"tune-{task}", "front.csv").open() as handle:
            solved[task] = {row["holdout_solved"] for row in csv.DictReader(handle)}
    assert solved == {"Evens": {"0.0"}, "AnyOrder": {"1.0"}}
