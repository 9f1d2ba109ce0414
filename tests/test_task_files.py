"""Task files: validated before any call (one line naming the key), the task they declare
(split, join, parse, score against a reference, by a function, by the model), and the two
shipped examples end to end on a scripted model behind the loopback server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.task_helpers import ScriptedServer, play_people, solve_example
from thoughtgraph.errors import InputError
from thoughtgraph.tasks import get_task
from thoughtgraph.tasks.base import ParseError
from thoughtgraph.tasks.filetask import FileTask, parse_string_list
from thoughtgraph.tasks.reference import attach_reference
from thoughtgraph.tasks.score import Score
from thoughtgraph.tasks.taskfile import read_task_file, task_file_schema

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DOCS = Path(__file__).resolve().parent.parent / "docs"

BASE = """\
name: things
description: List the things.
answer:
  type: strings
split:
  by: lines
join: union
score:
  by: reference
"""


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def write(tmp_path: Path, text: str, name: str = "task.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def task_of(tmp_path: Path, text: str = BASE, name: str = "task.yaml") -> FileTask:
    task = get_task(str(write(tmp_path, text, name)))
    assert isinstance(task, FileTask)
    return task


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ("by: lines", "by: words"),
            "split.by: must be one of items, sentences, paragraphs, lines",
        ),
        (("join: union", "join: glue"), "join: must be one of concatenate, union, add, model"),
        (("type: strings", "type: floats"), "answer.type: must be one of integers, strings"),
        (
            ("  by: reference", "  by: reference\n  colour: red"),
            "score.colour: unknown key (known: by, function",
        ),
        (("name: things", "name: Things!"), "name: use lower-case letters"),
        (("description: List the things.\n", ""), "description: required"),
        (("join: union", "join: add"), "join: add needs answer.type: counts, not strings"),
        (
            ("  by: reference", "  by: function"),
            "score.function: required when score.by is function",
        ),
        (("  by: reference", "  by: model"), "score.rubric: required when score.by is model"),
        (
            ("by: lines", "by: lines\n  parts: 0"),
            "split.parts: input should be greater than or equal to 1",
        ),
        (("name: things", "name: things\nname: again"), "the key 'name' is given twice (line 2)"),
        (("name: things", "name: [unclosed"), "not valid YAML"),
        (("type: strings", "type: text"), "join: union needs answer.type: integers or strings"),
    ],
)
def test_each_mistake_in_a_task_file_is_one_line_naming_the_key(tmp_path, change, message):
    old, new = change
    assert old in BASE
    path = write(tmp_path, BASE.replace(old, new, 1))
    with pytest.raises(InputError) as caught:
        read_task_file(path)
    text = str(caught.value)
    assert text.startswith(f"task file {path}: ") and "\n" not in text
    assert message in text, text


def test_a_toml_task_file_declares_the_same_task(tmp_path):
    toml = """\
name = "evens-toml"
description = "Keep the even numbers."
join = "concatenate"
[answer]
type = "integers"
ordered = true
from_input = true
[split]
by = "items"
part_size = 2
[score]
by = "reference"
"""
    task = task_of(tmp_path, toml, "evens.toml")
    problem = task.parse_input('{"input": [1, 2, 3, 4], "reference": [2, 4]}')
    assert task.score(problem, [4, 2]) == Score(1.0, ("2 must come before 4 (positions 1 and 2)",))
    assert task.score(problem, [2, 4]).perfect
    with pytest.raises(InputError, match="not valid TOML"):
        read_task_file(write(tmp_path, 'name = "again"\n' + toml, "dup.toml"))


def test_reference_errors_are_instructions_a_model_can_act_on(tmp_path):
    task = task_of(tmp_path)
    problem = attach_reference(task, task.parse_input("a\nb"), '["Ada Byron", "Alan Turing"]')
    score = task.score(problem, ["ada  byron", "Grace Hopper", "Grace Hopper"])
    assert score.value == 3.0
    assert score.errors == (
        '"Alan Turing" is missing: add it',
        '"Grace Hopper" does not belong in the answer: remove it (2 fewer times)',
    )
    assert task.matches_reference(problem, ["Alan Turing", "ADA BYRON"]) is True
    assert task.matches_reference(task.parse_input("a"), ["x"]) is None  # no reference: unknown
    with pytest.raises(InputError, match="the reference must be a JSON list of strings"):
        attach_reference(task, problem, "[1, 2]")


def test_parts_of_a_from_input_task_get_their_share_of_the_reference(tmp_path):
    text = BASE.replace("type: strings", "type: strings\n  from_input: true")
    task = task_of(tmp_path, text)
    problem = task.parse_input(
        {
            "input": "Ada Byron met Alan Turing.\nGrace Hopper wrote.\nNobody here.",
            "reference": ["Ada Byron", "Alan Turing", "Grace Hopper"],
        }
    )
    parts = task.split(problem, 3)
    assert [p.reference for p in parts] == [["Ada Byron", "Alan Turing"], ["Grace Hopper"], []]
    assert task.score(parts[1], ["Grace Hopper", "Ada Byron"]).errors == (
        '"Ada Byron" does not belong in the answer: remove it',
    )
    # the merge of every part is the row again, with the row's reference
    assert task.join(parts) is problem and task.join([parts[0], parts[1]]).reference == [
        "Ada Byron",
        "Alan Turing",
        "Grace Hopper",
    ]
    # problems of two rows join into one without a reference (and hold their lists fine)
    other = task.parse_input({"input": "Bo Li.", "reference": ["Bo Li"]})
    mixed = task.join([parts[0], other, other])
    assert mixed.units == (*parts[0].units, "Bo Li.") and mixed.reference is None
    # without a reference, code still checks that every name is in the text
    bare = task.parse_input("Ada Byron met Alan Turing.")
    assert task.score(bare, ["Ada Byron", "Bob Smith"]).errors == (
        '"Bob Smith" does not appear in the text: remove it',
    )
    assert "only that every item is in the input was checked" in (task.unchecked(bare) or "")


def test_counts_add_up_and_are_scored_per_name(tmp_path):
    text = (
        BASE.replace("type: strings", "type: counts")
        .replace("join: union", "join: add")
        .replace("by: lines", "by: sentences")
    )
    task = task_of(tmp_path, text)
    problem = task.parse_input({"input": "Tea. Tea and cake.", "reference": {"tea": 2, "cake": 1}})
    assert task.join_answers([{"tea": 1}, {"tea": 1, "cake": 1}]) == {"tea": 2, "cake": 1}
    score = task.score(problem, task.parse('Here: {"Tea": 3, "jam": 1}'))
    assert score.value == 3.0
    assert set(score.errors) == {
        'the count of "tea" is 2, not 3',
        '"cake" is missing: its count is 1',
        '"jam" does not belong in the answer: remove it',
    }


def test_a_scoring_function_named_by_an_import_string(tmp_path, monkeypatch):
    (tmp_path / "my_scorer_tf.py").write_text(
        "def score(answer, problem):\n    return len(answer), ['say less'] if answer else []\n"
    )
    monkeypatch.chdir(tmp_path)
    text = BASE.replace("  by: reference", "  by: function\n  function: my_scorer_tf:score")
    task = task_of(tmp_path, text)
    assert task.score(task.parse_input("x"), ["a", "b"]) == Score(2.0, ("say less",))
    missing = text.replace("my_scorer_tf:score", "my_scorer_tf:nothing")
    with pytest.raises(LookupError, match="has no attribute 'nothing'"):
        get_task(str(write(tmp_path, missing, "other.yaml")))


def test_a_scoring_function_beside_the_task_file_is_found_from_another_directory(
    tmp_path, monkeypatch
):
    """`myscore.py` next to the task file, the command run from elsewhere (a user's habit)."""
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir(), elsewhere.mkdir()
    module = f"beside_scorer_{tmp_path.name[-8:].replace('-', '_')}"
    (project / f"{module}.py").write_text("def score(answer, problem):\n    return 0\n")
    text = BASE.replace("  by: reference", f"  by: function\n  function: {module}:score")
    path = write(project, text)
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", ".")])
    task = get_task(str(path))
    assert task.score(task.parse_input("x"), ["a"]) == Score(0.0)


def test_parsers_read_what_models_write():
    assert parse_string_list('Answer: ["Ada", "Bo"]') == ["Ada", "Bo"]
    assert parse_string_list("The people are:\n- Ada Byron\n- Bo Li\n") == ["Ada Byron", "Bo Li"]
    # the format's example is an echo, the model's own list wins
    prompt = 'format: a JSON list of strings, such as ["first", "second"]'
    assert parse_string_list('["first", "second"]\n["Ada"]', prompt) == ["Ada"]
    assert parse_string_list("[]") == []


def test_the_model_scorer_uses_the_rubric_as_a_value(tmp_path):
    text = (
        BASE.replace("type: strings", "type: text")
        .replace("join: union", "join: model")
        .replace("  by: reference", "  by: model\n  rubric: 'count {{input}} as words'\n  scale: 5")
    )
    task = task_of(tmp_path, text)
    prompt = task.prompts["score"].render({"task": "T", "original": "O", "current": "C"})
    assert "<rubric>count {{input}} as words</rubric>" in prompt and "from 0 to 5" in prompt
    assert task.parse_score("I think 3 of 5. Score: 4") == 4.0
    assert task.parse_score("Score: 9") == 5.0  # clipped to the scale
    assert task.parse_score("A fair summary, 3/5.") == 3.0
    assert task.parse_score(" 2 ") == 2.0
    with pytest.raises(ParseError):  # a number the answer repeats is no rating
        task.parse_score("The committee met on 12 June and cut fees by 5 percent.")
    assert task.combine_scores(["Score: 4", "Score: 2", "no idea"]) == Score(
        3.0, ("model rating 3.0/5, the mean of 2 ratings (1 unreadable)",)
    )


def test_the_published_task_schema_is_up_to_date(capsys):
    from tests.conftest import run_cli

    code, out, _ = run_cli(capsys, "schema", "task")
    assert code == 0
    assert json.loads(out) == task_file_schema()
    assert json.loads((DOCS / "task.schema.json").read_text()) == task_file_schema()
    assert set(task_file_schema()["properties"]) == {
        "name",
        "description",
        "format",
        "answer",
        "split",
        "join",
        "score",
    }


@pytest.fixture
def people_server() -> Iterator[ScriptedServer]:
    with ScriptedServer(play_people) as server:
        yield server


def test_every_shipped_example_row_loads_with_its_reference():
    for example in ("people", "summary"):
        task = get_task(str(EXAMPLES / example / "task.yaml"))
        rows = [
            json.loads(line)
            for line in (EXAMPLES / example / "data.jsonl").read_text().splitlines()
        ]
        assert len(rows) >= 3
        for row in rows:
            problem = attach_reference(task, task.parse_input(row["input"]), row.get("reference"))
            assert len(problem) >= 3  # long enough to split


@pytest.mark.parametrize("scheme", ["io", "cot", "got", "got_paper", "tot"])
def test_the_people_example_runs_every_scheme_on_the_loopback_server(
    capsys, people_server, tmp_path, scheme
):
    row = json.loads((EXAMPLES / "people" / "data.jsonl").read_text().splitlines()[0])
    given = write(
        tmp_path, json.dumps({"input": row["input"], "reference": row["reference"]}), "row.json"
    )
    code, out, err = solve_example(
        capsys,
        people_server,
        "people",
        str(given),
        "--scheme",
        scheme,
        "--json",
        "--trace",
        str(tmp_path / "trace.json"),
    )
    assert code == 0, err
    result = json.loads(out)
    assert sorted(result["output"]) == sorted(row["reference"]) and result["status"] == "clean"
    if scheme != "got":  # the paper-style schemes end with a ground_truth op
        thoughts = json.loads((tmp_path / "trace.json").read_text())["thoughts"]
        truths = [t for t in thoughts if t.get("solved") is not None]
        assert truths and all(t["solved"] for t in truths)


def test_the_summary_example_is_rated_by_the_model(capsys, people_server, tmp_path):
    code, out, err = solve_example(
        capsys,
        people_server,
        "summary",
        str(EXAMPLES / "summary" / "report.txt"),
        "--scheme",
        "io",
        "--json",
        "--trace",
        str(tmp_path / "trace.json"),
    )
    assert code == 0, err
    assert json.loads(out)["output"]
    thoughts = json.loads((tmp_path / "trace.json").read_text())["thoughts"]
    scored = [t for t in thoughts if t.get("score") == 7.0]
    assert scored, thoughts
    bodies = [r.body for r in people_server.requests]
    rating = next(b for b in bodies if "Rate the answer" in b["messages"][-1]["content"])
    assert rating.get("n") == 3  # three samples, averaged
    assert "<rubric>10: every decision" in rating["messages"][-1]["content"]


def test_a_graph_the_task_file_cannot_run_is_refused_before_any_call(
    capsys, people_server, tmp_path
):
    graph = write(
        tmp_path,
        "ops:\n  - {id: a, kind: generate, params: {prompt: sentence}}\n",
        "g.yaml",
    )
    code, _, err = solve_example(
        capsys,
        people_server,
        "people",
        str(EXAMPLES / "people" / "story.txt"),
        "--graph",
        str(graph),
    )
    assert code == 2 and err.count("\n") == 1 and "sentence" in err, err
    assert people_server.requests == []


def test_a_graph_that_splits_by_the_model_is_refused_for_a_task_file(
    capsys, people_server, tmp_path
):
    graph = write(
        tmp_path, "ops:\n  - {id: s, kind: split, params: {parts: 2, by: model}}\n", "g.yaml"
    )
    code, _, err = solve_example(
        capsys,
        people_server,
        "people",
        str(EXAMPLES / "people" / "story.txt"),
        "--graph",
        str(graph),
    )
    assert code == 2 and err.count("\n") == 1, err
    assert "needs a reader for the model's split (parse_split), which task 'people' lacks" in err
    assert people_server.requests == []


def test_solve_shows_the_models_rating_of_a_model_scored_answer(capsys, people_server):
    code, out, err = solve_example(
        capsys,
        people_server,
        "summary",
        str(EXAMPLES / "summary" / "report.txt"),
        "--scheme",
        "io",
    )
    assert code == 0, err
    assert "thoughtgraph · summary · 4 paragraphs · " in out  # what its units are, not "items"
    assert "rating:  7 of 10, the model's rating of the final answer (higher is better)" in out
    assert "model rating 7.0/10, the mean of 3 ratings" in out


def test_the_python_api_takes_a_task_file_path():
    import thoughtgraph
    from tests.task_helpers import play_people

    row = json.loads((EXAMPLES / "people" / "data.jsonl").read_text().splitlines()[0])
    result = thoughtgraph.solve(
        str(EXAMPLES / "people" / "task.yaml"),
        {"input": row["input"], "reference": row["reference"]},
        model=play_people,
        scheme="got_paper",
    )
    assert result.status == "clean" and sorted(result.output) == sorted(row["reference"])
    assert result.task == "people"
