"""Samples from your function: a `py:` model (or a function given as `model=`) that takes a
keyword `sample` is told which sample of its prompt it answers, as the simulated model varies by
it; one that does not is noted; the object form needs only `complete` and its tokens are
counted."""

from __future__ import annotations

import json
import sqlite3
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType

import pytest

import thoughtgraph
from thoughtgraph.evaluation.session import Note
from thoughtgraph.models.samples import SAMPLES_PER_REPEAT

from .conftest import run_cli

MODELS = '''
import json

from thoughtgraph import Completion

CALLS = []  # (prompt, sample) of every call


def numbers_of(prompt):
    return json.loads(prompt.rsplit("<input>", 1)[1].split("</input>")[0])


def sampled(prompt, sample=0):
    """Sorts, and drops one number from every sample but the first: each sample is its own."""
    CALLS.append((prompt, sample))
    answer = sorted(numbers_of(prompt))
    return json.dumps(answer[1:] if sample and len(answer) > 1 else answer)


def plain(prompt):
    CALLS.append((prompt, None))
    return json.dumps(sorted(numbers_of(prompt)))


class Bare:
    """The object form with nothing but complete: no name, no simulated flag."""

    def complete(self, prompt, n=1):
        CALLS.append((prompt, None))
        return [Completion(json.dumps(sorted(numbers_of(prompt))))] * n


class Flagged:
    """The object form as it had to be written before: a name, a simulated flag, async."""

    name = "flagged"
    simulated = False

    async def complete(self, prompt, n=1):
        return [Completion(json.dumps(sorted(numbers_of(prompt))))] * n


class Sampling:
    name = "my-sampler"

    async def complete(self, prompt, n=1, *, sample=0):
        return [sampled(prompt, sample + i) for i in range(n)]


class OneArgument:
    def complete(self, prompt):
        return ["[1]"]


class TooFew:
    def complete(self, prompt, n=1):
        return ["[1, 2, 3]"][:1] if n > 1 else 42


BARE = Bare()
ONE_ARGUMENT = OneArgument()
TOO_FEW = TooFew()
FLAGGED = Flagged()
SAMPLING = Sampling()
'''

ROWS = "".join(json.dumps({"input": row}) + "\n" for row in ([3, 1, 2], [9, 7, 8, 6], [5, 4]))


@pytest.fixture
def mod(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The user's module of models, importable from the current directory (as a user runs it)."""
    name = f"samplers_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(MODELS)
    (tmp_path / "rows.jsonl").write_text(ROWS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.delitem(sys.modules, name, raising=False)
    return __import__(name)


def samples_per_prompt(mod: ModuleType) -> dict[str, list[int | None]]:
    asked: dict[str, list[int | None]] = defaultdict(list)
    for prompt, sample in mod.CALLS:
        asked[prompt].append(sample)
    return asked


@pytest.mark.parametrize("scheme", ["tot", "cot_sc", "got_paper"])
def test_a_function_taking_sample_sees_n_distinct_indices_for_one_prompt(capsys, mod, scheme):
    code, _, err = run_cli(
        capsys, "solve", "sorting", "--input", "[5, 3, 8, 1, 9, 2, 7, 4]", "--scheme", scheme,
        "--model", f"py:{mod.__name__}:sampled", "--json", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    asked = samples_per_prompt(mod)
    several = [samples for samples in asked.values() if len(samples) > 1]
    assert several, "the scheme asked no prompt for several answers"
    for samples in asked.values():
        assert sorted(samples) == list(range(len(samples)))  # type: ignore[type-var]


def test_a_plain_function_given_as_model_is_told_its_samples_too(mod):
    result = thoughtgraph.solve("sorting", [4, 2, 3, 1], model=mod.sampled, scheme="cot_sc")
    (samples,) = [s for s in samples_per_prompt(mod).values() if len(s) > 1]
    assert sorted(samples) == [0, 1, 2, 3, 4]  # type: ignore[type-var]
    assert result.completions == 5


def medians_per_repeat(results: list[dict[str, object]]) -> list[float]:
    errors: dict[int, list[float]] = defaultdict(list)
    for row in results:
        errors[int(row["repeat"])].append(float(row["error"]))  # type: ignore[call-overload, arg-type]
    return [statistics.median(errors[r]) for r in sorted(errors)]


def test_repeats_ask_a_sampling_function_for_their_own_samples_from_the_cli(capsys, mod, tmp_path):
    code, _, err = run_cli(
        capsys, "eval", "sorting", "--data", "rows.jsonl", "--schemes", "io", "--repeats", "2",
        "--model", f"py:{mod.__name__}:sampled", "--out", str(tmp_path / "e"), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    lines = (tmp_path / "e" / "results.jsonl").read_text().splitlines()
    first, second = medians_per_repeat([json.loads(line) for line in lines])
    assert first == 0 and second > 0  # repeat 1 is answered by samples other than repeat 0's
    assert "takes no keyword sample" not in err


def test_repeats_ask_a_sampling_function_for_their_own_samples_from_python(mod):
    results = thoughtgraph.evaluate(
        "sorting", "rows.jsonl", schemes="io", repeats=2, model=mod.sampled
    )
    first, second = medians_per_repeat([vars(r) for r in results.results])
    assert first == 0 and second > 0
    assert {s for _p, s in mod.CALLS} == {0, SAMPLES_PER_REPEAT}  # io: sample 0 of each repeat


def cached_answers(cache: Path) -> list[tuple[str, int, str]]:
    with sqlite3.connect(cache) as db:
        return list(db.execute("SELECT prompt, sample, text FROM answers ORDER BY prompt, sample"))


def test_the_cache_keeps_k_distinct_answers_and_a_rerun_pays_nothing(capsys, mod, tmp_path):
    cache = tmp_path / "answers.sqlite"
    args = (
        "solve", "sorting", "--input", "[4, 2, 3, 1]", "--scheme", "cot_sc", "--cache", str(cache),
        "--model", f"py:{mod.__name__}:sampled", "--json", "--no-progress",
    )  # fmt: skip
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    first = json.loads(out)
    stored = cached_answers(cache)
    assert [s for _p, s, _t in stored] == [0, 1, 2, 3, 4]
    assert len({t for _p, _s, t in stored}) == 2  # sample 0 sorts, the others drop a number
    mod.CALLS.clear()
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    again = json.loads(out)
    assert mod.CALLS == [] and again["requests"] == 0 and again["answers_cached"] == 5
    assert again["output"] == first["output"]


def test_the_cache_asks_the_function_for_exactly_the_samples_it_lacks(capsys, mod, tmp_path):
    cache = tmp_path / "answers.sqlite"
    args = (
        "solve", "sorting", "--input", "[4, 2, 3, 1]", "--scheme", "cot_sc", "--cache", str(cache),
        "--model", f"py:{mod.__name__}:sampled", "--json", "--no-progress",
    )  # fmt: skip
    assert run_cli(capsys, *args)[0] == 0
    before = cached_answers(cache)
    with sqlite3.connect(cache) as db:
        db.execute("DELETE FROM answers WHERE sample IN (1, 3)")  # as if killed before they came
    mod.CALLS.clear()
    assert run_cli(capsys, *args)[0] == 0
    assert sorted(s for _p, s in mod.CALLS) == [1, 3]  # type: ignore[type-var]
    assert cached_answers(cache) == before  # the same answers under the same samples


def test_a_function_without_sample_is_noted_once_when_a_row_samples(capsys, mod, tmp_path):
    code, _, err = run_cli(
        capsys, "eval", "sorting", "--data", "rows.jsonl", "--schemes", "io,cot_sc,tot",
        "--repeats", "2", "--model", f"py:{mod.__name__}:plain", "--out", str(tmp_path / "e"),
        "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    notes = [line for line in err.splitlines() if "takes no keyword sample" in line]
    assert len(notes) == 1
    assert notes[0].startswith(f"note: py:{mod.__name__}:plain takes no keyword sample")
    assert "cot_sc, tot and --repeats 2" in notes[0]
    # called once for each answer all the same (cot_sc's 5 in each repeat), with the same prompt
    assert max(len(samples) for samples in samples_per_prompt(mod).values()) >= 2 * 5


def test_no_note_when_nothing_asks_for_several_answers(capsys, mod, tmp_path):
    code, _, err = run_cli(
        capsys, "eval", "sorting", "--data", "rows.jsonl", "--schemes", "io,cot",
        "--model", f"py:{mod.__name__}:plain", "--out", str(tmp_path / "e"), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    assert "takes no keyword sample" not in err


def test_python_evaluate_hears_the_note_too(mod):
    heard: list[str] = []
    thoughtgraph.evaluate(
        "sorting", "rows.jsonl", schemes="io,got_paper", model=mod.plain,
        on_event=lambda e: heard.append(e.text) if isinstance(e, Note) else None,
    )  # fmt: skip
    assert [n for n in heard if "takes no keyword sample" in n] == [
        "function:plain takes no keyword sample, so the several answers got_paper asks of "
        "one prompt are that prompt sent again: they differ only if it draws at random "
        "itself (give it a keyword sample to vary them: docs/models.md)"
    ]


@pytest.mark.parametrize(("target", "name"), [("BARE", None), ("FLAGGED", "flagged")])
def test_the_object_form_needs_only_complete_and_its_tokens_are_counted(capsys, mod, target, name):
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--input", "[3, 1, 2]", "--scheme", "cot_sc",
        "--model", f"py:{mod.__name__}:{target}", "--json", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert result["output"] == [1, 2, 3]
    assert result["model"] == (name or f"py:{mod.__name__}:{target}")
    assert result["simulated"] is False
    assert result["tokens"] > 0 and result["tokens_estimated"] is True
    assert result["prompt_tokens"] > 0 and result["completion_tokens"] > 0


def test_the_object_form_taking_sample_is_asked_for_consecutive_samples(capsys, mod):
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--input", "[5, 3, 8, 1, 9, 2, 7, 4]", "--scheme", "tot",
        "--model", f"py:{mod.__name__}:SAMPLING", "--json", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert result["model"] == "my-sampler" and result["tokens_estimated"] is True
    for samples in samples_per_prompt(mod).values():
        assert sorted(samples) == list(range(len(samples)))  # type: ignore[type-var]
    assert max(len(s) for s in samples_per_prompt(mod).values()) > 1


@pytest.mark.parametrize(
    ("target", "scheme", "message"),
    [
        ("ONE_ARGUMENT", "io", "model 'py:{m}:ONE_ARGUMENT' has complete(prompt): it is called "
                               "as complete(prompt, n) (and sample=, when it takes one)"),
        ("TOO_FEW", "cot_sc", "py:{m}:TOO_FEW returned 1 of the 5 answers asked for: "
                              "complete(prompt, n) must return n answers"),
        ("TOO_FEW", "io", "py:{m}:TOO_FEW returned int, not a list of answers: complete(prompt, "
                          "n) must return n answers, each a str or a Completion"),
    ],
)  # fmt: skip
def test_an_object_that_breaks_the_form_is_one_line(capsys, mod, target, scheme, message):
    code, _, err = run_cli(
        capsys, "solve", "sorting", "--input", "[3, 1, 2]", "--scheme", scheme, "--no-progress",
        "--model", f"py:{mod.__name__}:{target}",
    )  # fmt: skip
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == "error: " + message.format(m=mod.__name__)
