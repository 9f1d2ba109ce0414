"""Task files as a new user writes them and answers as real models write them: the file's keys
are honoured (a rating's samples), odd but valid files load, and the parsers read what a model
meant without inventing items."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.task_helpers import ScriptedServer, play_people, run_solve

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
