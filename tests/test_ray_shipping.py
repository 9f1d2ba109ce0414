"""What `eval --ray` sends its workers (scale/shipping.py), without a cluster: a worker
process that has neither the driver's working directory, nor its import path, nor the task the
driver loaded gets them from the shipment; what cannot travel is one line in the driver."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.task_helpers import EVENS_MODULE, write_module
from thoughtgraph.errors import InputError
from thoughtgraph.evaluation.datasets import load_data
from thoughtgraph.evaluation.runner import plan
from thoughtgraph.scale import shipping
from thoughtgraph.tasks import get_task, loading

pytest.importorskip("ray", reason="ray is not installed: pip install -e '.[ray]'")

ROWS = [{"input": [1, 2, 3, 4, 5, 6, 7]}]
TASK_FILE = (
    "name: evens-shipped\ndescription: Keep the even numbers of the list, in order.\n"
    "answer:\n  type: integers\nsplit:\n  by: items\n  part_size: 3\n"
    "join: concatenate\nscore:\n  by: reference\n"
)


def as_a_fresh_worker(monkeypatch: pytest.MonkeyPatch, elsewhere: Path) -> None:
    """This process as a Ray worker starts: another working directory, the default import
    path, nothing loaded or unpacked."""
    monkeypatch.chdir(elsewhere)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", os.getcwd())])
    monkeypatch.setattr(loading, "_LOADED", {})
    monkeypatch.setattr(shipping, "_UNPACKED", {})


def test_a_task_file_given_by_a_relative_path_reaches_a_worker_elsewhere(tmp_path, monkeypatch):
    (tmp_path / "user").mkdir()
    (tmp_path / "worker").mkdir()
    monkeypatch.chdir(tmp_path / "user")
    Path("evens.yaml").write_text(TASK_FILE)
    row = {"input": [1, 2, 3, 4, 5, 6, 7], "reference": [2, 4, 6]}  # scored against it
    Path("rows.jsonl").write_text(json.dumps(row) + "\n")
    the_plan = plan(
        "evens.yaml", 32, ["got"], 5, data=load_data(Path("rows.jsonl"), "evens.yaml", "input")
    )
    here = the_plan.graph_for("got", 7)
    shipment = shipping.pack(the_plan, "sim")
    Path("evens.yaml").unlink()  # the worker reads the text the driver shipped, not a file
    as_a_fresh_worker(monkeypatch, tmp_path / "worker")

    there = shipping.unpack_plan(shipment)
    assert there.spec.name == "evens-shipped" and loading.loaded("evens-shipped") is there.spec
    assert there.graph_for("got", 7) == here  # part_size 3 from the task, not the default 8
    assert shipping.unpack_model(shipment).name.startswith("sim")


def test_a_module_in_the_drivers_folder_is_imported_in_a_worker_elsewhere(tmp_path, monkeypatch):
    (tmp_path / "user").mkdir()
    (tmp_path / "worker").mkdir()
    monkeypatch.chdir(tmp_path / "user")
    write_module(tmp_path / "user", "shipped_evens_mod")
    spec = "shipped_evens_mod:EvensTask"
    the_plan = plan(spec, 32, ["got"], 5, data=load_data(ROWS, spec, "input"))
    shipment = shipping.pack(the_plan, "sim")
    sys.modules.pop("shipped_evens_mod", None)
    as_a_fresh_worker(monkeypatch, tmp_path / "worker")
    try:
        task = shipping.unpack_plan(shipment).spec
        assert type(task).__module__ == "shipped_evens_mod" and task.name == "evens"
        assert str(tmp_path / "user") in sys.path  # appended after the worker's own entries
    finally:
        sys.modules.pop("shipped_evens_mod", None)


def test_a_task_object_that_cannot_be_pickled_is_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_module(tmp_path, "shipped_locked_mod", EVENS_MODULE + "\nimport threading\n"
                 "class Locked(EvensTask):\n    lock = None\n"
                 "LOCKED = Locked()\nLOCKED.lock = threading.Lock()\n")  # fmt: skip
    try:
        locked = get_task("shipped_locked_mod:LOCKED")  # the object, given as such
        the_plan = plan(locked, 32, ["got"], 2, data=load_data(ROWS, locked, "input"))
        with pytest.raises(InputError) as caught:
            shipping.pack(the_plan, "sim")
    finally:
        sys.modules.pop("shipped_locked_mod", None)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("--ray: the task 'evens' cannot be sent to Ray workers")
    assert "TypeError: cannot pickle '_thread.lock' object" in message
