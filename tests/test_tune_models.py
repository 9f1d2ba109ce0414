"""`thoughtgraph.tune()` takes a model as `thoughtgraph.evaluate()` does: a spec string, a
`LanguageModel` object, or a plain function `prompt -> text`, sync or async. With Ray, a model
object that cannot be pickled is one line before any request."""

from __future__ import annotations

import math
import threading
from pathlib import Path

import pytest

import thoughtgraph
from tests.task_helpers import EXAMPLES, ScriptedServer, play_people
from thoughtgraph.errors import InputError
from thoughtgraph.modelspec import from_spec
from thoughtgraph.sim.model import SimulatedModel

pytest.importorskip("optuna")

TASK = str(EXAMPLES / "people" / "task.yaml")
DATA = str(EXAMPLES / "people" / "data.jsonl")
SMALL = {"schemes": "got", "trials": 2, "pilot": 2, "holdout": 1}


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def checked(found: thoughtgraph.TuneResults) -> None:
    """A tune that ran: trials complete, the picked graph and finite figures for each row."""
    assert found.trials == 2 and found.stop is None
    assert found.best.ops and any(row.mark == "pick" for row in found.rows)
    assert all(math.isfinite(row.tune_error) for row in found.rows), found.rows


@pytest.mark.parametrize("form", ["spec", "object", "sync", "async"])
def test_tune_takes_a_model_in_each_form_evaluate_takes(tmp_path: Path, form: str) -> None:
    asked: list[str] = []

    def names(prompt: str) -> str:
        asked.append(prompt)
        return play_people(prompt)

    async def names_async(prompt: str) -> str:
        return names(prompt)

    with ScriptedServer(play_people) as served:
        options = {"base_url": served.base_url, "max_retries": 0}  # as evaluate() takes them
        spec = {"model": "openai:m", "model_options": options}
        model = {
            "spec": spec,
            "object": {"model": from_spec("openai:m", base_url=served.base_url, max_retries=0)},
            "sync": {"model": names},
            "async": {"model": names_async},
        }[form]
        found = thoughtgraph.tune(TASK, DATA, out=tmp_path / form, **SMALL, **model)
        paid = len(served.requests)
    checked(found)
    if form in ("spec", "object"):
        assert paid > 0 and not asked
    else:  # the function answered every call, and nothing went to the server
        assert asked and paid == 0
        assert any("<part>" in prompt for prompt in asked)


def test_a_simulated_model_object_tunes_as_its_spec_does(tmp_path: Path) -> None:
    """Each run gets a fresh copy of a simulated model object, as a spec gives: same trials."""
    options = {"schemes": "got", "trials": 3, "pilot": 2, "holdout": 1}
    by_spec = thoughtgraph.tune("sorting", "sorting_016", model="sim:seed=3", **options)
    by_object = thoughtgraph.tune("sorting", "sorting_016", model=SimulatedModel(seed=3), **options)
    assert [r.label for r in by_object.rows] == [r.label for r in by_spec.rows]
    assert [(r.tune_error, r.tune_cost) for r in by_object.rows] == [
        (r.tune_error, r.tune_cost) for r in by_spec.rows
    ]


def test_openai_options_with_a_model_object_are_one_line() -> None:
    with pytest.raises(InputError, match="--base-url: only with a model spec string"):
        thoughtgraph.tune(TASK, DATA, model=play_people, base_url="http://127.0.0.1:9/v1", **SMALL)


def test_a_model_that_cannot_be_pickled_for_ray_is_one_line_and_no_request(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    import ray

    lock = threading.Lock()
    asked: list[str] = []

    def names(prompt: str) -> str:
        with lock:  # a lock cannot be pickled: neither can this function
            asked.append(prompt)
        return play_people(prompt)

    with pytest.raises(InputError) as caught:
        thoughtgraph.tune(TASK, DATA, model=names, ray="local", out=tmp_path / "t", **SMALL)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("--ray: the model 'function:names' cannot be sent to Ray workers")
    assert "cannot pickle '_thread.lock' object" in message
    assert not asked and not (tmp_path / "t").exists()
    assert not ray.is_initialized()  # refused before any cluster was started
