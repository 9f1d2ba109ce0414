"""Task files as a new user writes them and answers as real models write them: the file's keys
are honoured (a rating's samples), odd but valid files load, and the parsers read what a model
meant without inventing items."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.task_helpers import COUNTS_FILE, ScriptedServer, play_people, run_solve
from thoughtgraph.errors import InputError
from thoughtgraph.tasks import get_task
from thoughtgraph.tasks.base import ParseError
from thoughtgraph.tasks.filetask import FileTask
from thoughtgraph.tasks.score import Score

RATED = """\
name: rated
description: Summarise the text.
answer: {type: text}
split: {by: paragraphs, part_size: 1}
join: model
score: {by: model, rubric: "10: complete and correct.", samples: SAMPLES}
"""


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@pytest.fixture
def people_server() -> Iterator[ScriptedServer]:
    with ScriptedServer(play_people) as server:
        yield server


@pytest.mark.parametrize("samples", [1, 5])
@pytest.mark.parametrize("scheme", ["io", "got"])
def test_a_task_files_rating_samples_are_the_ratings_asked_for(
    capsys, people_server, tmp_path, samples, scheme
):
    task = tmp_path / "rated.yaml"
    task.write_text(RATED.replace("SAMPLES", str(samples)))
    code, out, err = run_solve(
        capsys, people_server, str(task), "--input", "One.\n\nTwo.", "--scheme", scheme, "--json"
    )
    assert code == 0, err
    ratings = [
        r.body
        for r in people_server.requests
        if "Rate the answer" in r.body["messages"][-1]["content"]
    ]
    assert ratings and all(body.get("n", 1) == samples for body in ratings)
    assert json.loads(out)["rating"] == 7.0


def counts_task(tmp_path: Path) -> FileTask:
    path = tmp_path / "counts.yaml"
    path.write_text(COUNTS_FILE)
    task = get_task(str(path))
    assert isinstance(task, FileTask)
    return task


@pytest.mark.parametrize(
    ("reply", "counts"),
    [
        ('{"Éire": 2, "Zoë": 1}', {"Éire": 2, "Zoë": 1}),
        ('{"O\'Brien": 2}', {"O'Brien": 2}),
        ("{'O'Brien': 2, 'Ada': 1}", {"O'Brien": 2, "Ada": 1}),
        ('{"3M": 2, "IBM": 1}', {"3M": 2, "IBM": 1}),
        ('{"tea, green": 2}', {"tea, green": 2}),
        ('{"日本": 2}', {"日本": 2}),
        ('{"The Beatles": 3}', {"The Beatles": 3}),
        ("{" + '"' + "a" * 90 + '": 2}', {"a" * 90: 2}),
        ('```json\n{"tea": 2, "milk": 1,}\n```', {"tea": 2, "milk": 1}),
        ("{tea: 2, milk: '1'}", {"tea": 2, "milk": 1}),
        ('Sure.\n{"tea": 2.0, "milk": 1}\nHope that helps!', {"tea": 2, "milk": 1}),
        ("tea: 2\nmilk: 1", {"tea": 2, "milk": 1}),
        ("Counts:\n1. **green tea**: 2\n2. **Route 66**: 1", {"green tea": 2, "Route 66": 1}),
        ('{"counts": {"tea": 2}}', {"tea": 2}),
        ('{"a": 1, "a": 2, "b": 0}', {"a": 3, "b": 0}),  # a zero as written: it counts nothing
        ("Answer: {}", {}),
        ('Like {"first": 2, "second": 1}. Answer: {"tea": 1}', {"tea": 1}),
    ],
)
def test_a_count_map_is_read_with_its_names_as_written(tmp_path, reply, counts):
    """Names of any script, with apostrophes, digits or commas, come back whole: the keyword
    task's country parser read "Éire" as "ire", "O'Brien" as "Brien" and "3M" as "M"."""
    assert counts_task(tmp_path).parse(reply) == counts


@pytest.mark.parametrize(
    "reply",
    [
        '{"tea": 2.5}',  # not a whole count
        '{"tea": 2, "milk": 1, "sugar"}',  # a piece that is no pair: nothing is taken from it
        'x = {"tea": 2}',  # code
        "The meeting is at 10:30.",
        "No names.",
    ],
)
def test_a_reply_with_no_count_map_is_unparsed_not_invented(tmp_path, reply):
    with pytest.raises(ParseError):
        counts_task(tmp_path).parse(reply)


def strings_task(tmp_path: Path) -> FileTask:
    path = tmp_path / "people.yaml"
    path.write_text(
        "name: people-edges\ndescription: List every person.\nanswer: {type: strings}\n"
        "split: {by: paragraphs}\njoin: union\nscore: {by: reference}\n"
    )
    task = get_task(str(path))
    assert isinstance(task, FileTask)
    return task


@pytest.mark.parametrize(
    ("reply", "names"),
    [
        ("['O'Brien', 'Ada']", ["O'Brien", "Ada"]),  # a Python-style list, an apostrophe
        ("['O\\'Brien', \"D'Arcy\"]", ["O'Brien", "D'Arcy"]),
        ("Here: ['it's me', 'Bob']", ["it's me", "Bob"]),
        ("[“Ada Lovelace”, “Alan Turing”]", ["Ada Lovelace", "Alan Turing"]),
        ("- **Ada Lovelace** (mathematician)\n- **Alan Turing**", ["Ada Lovelace", "Alan Turing"]),
        ("1. `Ada` - a countess\n2. __Bob__", ["Ada", "Bob"]),
        (
            "Step by step:\n1. The first paragraph names Ada Lovelace.\n"
            "2. The second names Bob Smith.\n\nAnswer:\n- Ada Lovelace\n- Bob Smith",
            ["Ada Lovelace", "Bob Smith"],
        ),
        ("People:\n\n- Ada\n\n- Bob\n\nThat is all.", ["Ada", "Bob"]),
    ],
)
def test_a_string_list_is_read_as_the_model_meant_it(tmp_path, reply, names):
    """Items are never invented: `['O'Brien', 'Ada']` gave ["O", ","], a chain of thought's
    numbered steps became names, and markdown stayed on the names (so none matched)."""
    assert strings_task(tmp_path).parse(reply) == names


def test_long_count_replies_are_read_at_once(tmp_path):
    """A model looping inside its object: read in one pass, not a re-scan per pair."""
    task = counts_task(tmp_path)
    assert task.parse("{" + '"a": 1, ' * 30_000 + "}") == {"a": 30_000}
    assert task.parse('Answer: {"tea": 2, "note": "' + "the " * 25_000) == {"tea": 2}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("description: List every person.", "description: '   '"), "description: is blank"),
        (("split:", 'format: "\\n"\nsplit:'), "format: is blank"),
        (
            ("score: {by: reference}", "score: {by: model, rubric: ' '}"),
            "score.rubric: is blank",
        ),
    ],
    ids=["description", "format", "rubric"],
)
def test_a_blank_text_is_refused_naming_its_key(capsys, tmp_path, change, message):
    """A blank description sent prompts that asked nothing; the file is refused before any call."""
    from tests.conftest import run_cli

    strings_task(tmp_path)  # writes people.yaml
    path = tmp_path / "people.yaml"
    path.write_text(path.read_text().replace(*change))
    code, _, err = run_cli(capsys, "solve", str(path), "--input", "Ada.", "--model", "sim")
    assert code == 2 and err.count("\n") == 1, err
    assert f"task file {path}: {message}" in err


@pytest.mark.parametrize(
    ("reference", "given"),
    [
        ("Ada Lovelace", 'got the text "Ada Lovelace"'),  # a CSV cell that is not JSON
        ("[1, 2]", "got a list holding a number"),
        ("5", 'got the text "5"'),
    ],
)
def test_a_reference_of_the_wrong_type_says_what_it_got(capsys, tmp_path, reference, given):
    """A plain-text reference was called "looks like JSON but is not valid JSON"."""
    from tests.conftest import run_cli

    task = strings_task(tmp_path)
    data = tmp_path / "rows.csv"
    data.write_text(f'input,reference\n"Ada Lovelace met Bob.","{reference}"\n')
    code, _, err = run_cli(
        capsys, "solve", str(tmp_path / "people.yaml"), "--data", str(data), "--model", "sim"
    )
    assert task.name == "people-edges" and code == 2 and err.count("\n") == 1, err
    assert err.startswith('error: rows.csv row 1: "reference": the reference must be a JSON list')
    assert err.rstrip().endswith(given)


@pytest.mark.parametrize(
    "text", ["{\\rtf1 Ada Lovelace met Bob Smith.}", '{"note": "Ada Lovelace met Bob Smith."}']
)
def test_a_text_that_starts_with_a_brace_is_the_input(capsys, people_server, tmp_path, text):
    """RTF, LaTeX or a JSON document to read were refused as "looks like JSON but is not valid
    JSON" or "an input object must be {"input": ...}"; only the object form is an object."""
    strings_task(tmp_path)
    given = tmp_path / "story.txt"
    given.write_text(text)
    code, out, err = run_solve(
        capsys, people_server, str(tmp_path / "people.yaml"), "--input-file", str(given),
        "--scheme", "io", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["output"] == ["Ada Lovelace", "Bob Smith"]
    assert text in people_server.requests[0].body["messages"][-1]["content"]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ('{"input": "Ada.", "reference": ["Ada"]', "the input looks like JSON but is not valid"),
        ('{"input": "Ada.", "refrence": ["Ada"]}', 'an input object must be {"input": ...'),
        ('{"reference": ["Ada"]}', 'an input object must be {"input": ...'),
    ],
)
def test_a_broken_input_object_is_refused_not_solved_as_text(capsys, tmp_path, given, message):
    from tests.conftest import run_cli

    strings_task(tmp_path)
    code, _, err = run_cli(capsys, "solve", str(tmp_path / "people.yaml"), "--input", given)
    assert code == 2 and err.startswith(f"error: {message}") and err.count("\n") == 1, err


SCORERS = """
import math
from fractions import Fraction

def one_error_as_text(answer, problem):
    return 1, "Bob Smith is missing: add him"

def as_a_list(answer, problem):
    return [2, ["a", "b"]]

def a_fraction(answer, problem):
    return Fraction(1, 2)

def not_a_number(answer, problem):
    return math.nan

def below_zero(answer, problem):
    return -2
"""


def scored_by(tmp_path, monkeypatch, function: str):
    """The counts task file scored by `my_scorers_edges:FUNCTION` (SCORERS, in the cwd)."""
    (tmp_path / "my_scorers_edges.py").write_text(SCORERS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    path = tmp_path / "scored.yaml"
    path.write_text(
        COUNTS_FILE.replace(
            "{by: reference}", f"{{by: function, function: 'my_scorers_edges:{function}'}}"
        )
    )
    return get_task(str(path))


@pytest.mark.parametrize(
    ("function", "score"),
    [
        ("one_error_as_text", Score(1.0, ("Bob Smith is missing: add him",))),
        ("as_a_list", Score(2.0, ("a", "b"))),
        ("a_fraction", Score(0.5)),  # any real number (numpy's too), not only int and float
    ],
)
def test_a_scoring_functions_result_is_read_as_meant(tmp_path, monkeypatch, function, score):
    """`(1, "Bob is missing")` gave one error per character: "B", "o", "b", ..."""
    task = scored_by(tmp_path, monkeypatch, function)
    assert task.score(task.parse_input("Ada"), {"Ada": 1}) == score


@pytest.mark.parametrize(("function", "shown"), [("not_a_number", "nan"), ("below_zero", "-2")])
def test_a_scoring_function_returning_no_error_count_stops_in_one_line(
    tmp_path, monkeypatch, function, shown
):
    task = scored_by(tmp_path, monkeypatch, function)
    with pytest.raises(InputError, match=f"returned {shown}: an error count is a number from 0 up"):
        task.score(task.parse_input("Ada"), {"Ada": 1})
