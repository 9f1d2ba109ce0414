"""The trace format: every trace carries a version; one reader serves every consumer.

`RunState.load`, `RunState.from_dict`, `viewer.load_trace` and `thoughtgraph trace view` accept
the same files and refuse the same files with the same one line: old unversioned traces are
read, traces from a newer thoughtgraph are refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import thoughtgraph
from thoughtgraph import RunState
from thoughtgraph.engine.trace import state_dict, write_trace
from thoughtgraph.errors import InputError
from thoughtgraph.io.tracefile import TRACE_VERSION, read_trace
from thoughtgraph.viewer.html import load_trace

from .conftest import run_cli

NUMBERS = "[5, 3, 8, 1, 9, 2, 7, 4, 6, 0, 3, 5, 1, 8, 2, 9]"

# fields added to the state after the first traces were written (they read with defaults)
LATER_FIELDS = {
    "thoughts": ("validated", "solved", "round", "kept"),
    "calls": ("n", "cached", "saved", "cost"),
    "ops": ("end_round",),
}


@pytest.fixture
def cli_trace(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    trace = tmp_path / "run.json"
    code, _, _ = run_cli(
        capsys, "solve", "sorting", "-i", NUMBERS, "-m", "sim:error=0", "--trace", str(trace)
    )
    assert code == 0
    return trace


def readers(path: Path) -> list[Any]:
    """What each reader makes of the file (raising InputError on a refusal)."""
    return [RunState.load(path), load_trace(path), RunState.from_dict(json.loads(path.read_text()))]


def test_every_written_trace_starts_with_its_version(cli_trace: Path, tmp_path: Path) -> None:
    from_cli = json.loads(cli_trace.read_text())
    assert next(iter(from_cli)) == "trace_version" and from_cli["trace_version"] == TRACE_VERSION
    assert "result" in from_cli
    state = RunState.load(cli_trace)
    write_trace(tmp_path / "state.json", state)
    saved = json.loads((tmp_path / "state.json").read_text())
    assert next(iter(saved)) == "trace_version" and saved["trace_version"] == TRACE_VERSION


def test_an_old_unversioned_trace_is_read_by_every_reader(
    cli_trace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(cli_trace.read_text())
    del data["trace_version"]
    for key, fields in LATER_FIELDS.items():
        for item in data[key]:
            for field in fields:
                item.pop(field, None)
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))

    state, trace, rebuilt = readers(old)
    assert state.thoughts.keys() == rebuilt.thoughts.keys() == {t["id"] for t in data["thoughts"]}
    assert all(t.kept and t.round == 0 for t in state.thoughts.values())  # defaults
    assert trace["trace_version"] == TRACE_VERSION and trace["result"] == data["result"]
    code, _, err = run_cli(capsys, "trace", "view", str(old), "-o", str(tmp_path / "old.html"))
    assert code == 0 and err == "" and (tmp_path / "old.html").exists()


@pytest.mark.parametrize(
    ("version", "message"),
    [
        (
            TRACE_VERSION + 1,
            f"is a version {TRACE_VERSION + 1} trace, written by a newer thoughtgraph; this one "
            f"reads versions up to {TRACE_VERSION}: upgrade thoughtgraph to read it",
        ),
        ("1", "has an unknown trace version '1'"),
        (-1, "has an unknown trace version -1"),
    ],
)
def test_a_trace_of_an_unknown_version_is_refused_by_every_reader_in_one_line(
    cli_trace: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    version: Any,
    message: str,
) -> None:
    data = json.loads(cli_trace.read_text())
    data["trace_version"] = version
    future = tmp_path / "future.json"
    future.write_text(json.dumps(data))
    for read in (RunState.load, load_trace, read_trace):
        with pytest.raises(InputError) as caught:
            read(future)
        assert str(caught.value) == f"{future} {message}"
    with pytest.raises(InputError, match="the trace " + message.split(":")[0]):
        RunState.from_dict(data)
    code, _, err = run_cli(capsys, "trace", "view", str(future))
    assert code == 2 and err == f"error: {future} {message}\n"


def test_a_trace_that_cannot_be_rebuilt_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"trace_version": TRACE_VERSION, "thoughts": [{"id": "a"}]}))
    with pytest.raises(InputError) as caught:
        RunState.load(path)
    assert str(caught.value) == f"{path} cannot be read as a run state (no 'graph')"
    assert load_trace(path)["thoughts"] == [{"id": "a"}]  # the viewer draws partial traces


def test_a_trace_round_trips_through_the_reader() -> None:
    result = thoughtgraph.solve("sorting", json.loads(NUMBERS), model="sim:error=0")
    data = json.loads(json.dumps(state_dict(result.state), default=str))
    assert state_dict(RunState.from_dict(data)) == data
