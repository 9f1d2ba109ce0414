"""The JSONL event log: complete and in order on a run with retries, on disk line by line as the
run goes (so `tail -f` follows it), strict JSON, and a history left behind by a crashed run."""

from __future__ import annotations

import json
import threading
import time

import pytest

import thoughtgraph
from thoughtgraph.events import Event, OpStarted, RunStarted, ThoughtMade
from thoughtgraph.io.eventlog import EventLog, combine, event_record, read_events, to_json_line
from thoughtgraph.testing import ScriptedModel, perfect_sorting_answer

from .conftest import INPUT_32


def always_wrong(prompt: str, _n: int) -> str:
    """Every answer loses its first number: every regeneration, extra merge and refine happens."""
    return str(perfect_sorting_answer(prompt)[1:])


def strict(line: str) -> dict:
    def refuse(name: str) -> None:
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(line, parse_constant=refuse)


def test_events_of_a_run_with_retries_are_complete_and_in_order(tmp_path):
    path = tmp_path / "run.jsonl"
    with EventLog.open(path) as log:
        result = thoughtgraph.solve(
            "sorting", INPUT_32, model=ScriptedModel(always_wrong), parts=4, on_event=log
        )
    lines = path.read_text().splitlines()
    events = [strict(line) for line in lines]
    assert log.lines == len(events)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert kinds.count("run_started") == kinds.count("run_finished") == 1
    assert events[0]["model"] == "scripted" and events[0]["graph"] == result.graph.to_dict()
    assert "started_at" in events[0]
    assert events[-1]["calls"] == result.calls
    times = [e["time"] for e in events]
    assert times == sorted(times)

    position = {
        (e["event"], e.get("op_id")): i
        for i, e in enumerate(events)
        if e["event"] in ("op_started", "op_finished")
    }
    for op in result.graph.ops:  # every op once, after all of its inputs finished
        start, end = position[("op_started", op.id)], position[("op_finished", op.id)]
        assert start < end
        for source in op.inputs:
            assert position[("op_finished", source)] < start
    assert kinds.count("op_started") == kinds.count("op_finished") == len(result.graph.ops)

    calls = result.state.calls
    started = {e["call_id"]: i for i, e in enumerate(events) if e["event"] == "call_started"}
    finished = {e["call_id"]: (i, e) for i, e in enumerate(events) if e["event"] == "call_finished"}
    assert set(started) == set(finished) == set(calls)
    for call_id, (index, event) in finished.items():
        call = calls[call_id]
        assert started[call_id] < index
        assert position[("op_started", call.op_id)] < started[call_id]
        assert index < position[("op_finished", call.op_id)]
        assert event["op_id"] == call.op_id and event["kind"] == call.kind
        assert event["tokens"] == call.usage.total_tokens and event["cached"] is False
        assert event["latency"] == pytest.approx(call.latency)

    thoughts = [e for e in events if e["event"] == "thought"]
    made = {t.id for t in result.state.thoughts.values() if t.call_id}
    assert {e["thought_id"] for e in thoughts} == made
    assert [(e["thought_id"], e["attempt"]) for e in thoughts if e["op_id"] == "part_1"] == [
        ("part_1:0.1", 1),
        ("part_1:0.2", 2),
        ("part_1:0.3", 3),
    ]  # 2 regenerations
    merges = [e["thought_id"] for e in thoughts if e["op_id"] == "merge_2_1"]
    assert merges == ["merge_2_1:0.1", "merge_2_1:0.2"]  # 1 extra merge
    assert all(e["score"] > 0 for e in thoughts)  # every answer was wrong


def test_each_event_is_on_disk_before_the_next_one_happens(tmp_path):
    path = tmp_path / "run.jsonl"
    reader = None
    seen: list[str] = []

    def check(event: Event) -> None:  # runs after the log wrote this event
        nonlocal reader
        reader = reader or path.open()
        seen.extend(line for line in reader.readlines())
        assert seen and seen[-1].endswith("\n")
        assert strict(seen[-1])["event"] == event.name

    with EventLog.open(path) as log:
        thoughtgraph.solve(
            "sorting",
            INPUT_32,
            model=ScriptedModel(always_wrong),
            parts=4,
            on_event=combine(log, check),
        )
    assert reader is not None
    reader.close()
    assert len(seen) == log.lines


def test_a_run_can_be_followed_while_it_goes(tmp_path):
    """Like `tail -f`: another reader sees calls finish while the run is still going."""
    path = tmp_path / "run.jsonl"
    log = EventLog.open(path)
    run = threading.Thread(
        target=thoughtgraph.solve,
        args=("sorting", INPUT_32),
        kwargs={"model": ScriptedModel(delay=0.05), "parts": 4, "on_event": log, "concurrency": 1},
    )
    run.start()
    followed: list[str] = []
    deadline = time.monotonic() + 20
    with path.open() as tail:  # EventLog.open created it
        while time.monotonic() < deadline:
            followed.extend(strict(line)["event"] for line in tail.readlines())
            if "call_finished" in followed:
                break
            time.sleep(0.01)
        running = run.is_alive()
    run.join()
    log.close()
    assert "call_finished" in followed and running  # seen mid-run, not only at the end
    assert "run_finished" not in followed
    assert [e["event"] for e in read_events(path)][-1] == "run_finished"


def test_a_crashed_run_leaves_its_history(tmp_path):
    def respond(prompt: str, number: int) -> str:
        if number == 2:
            raise RuntimeError("the model process died")
        return str(perfect_sorting_answer(prompt))

    path = tmp_path / "run.jsonl"
    with EventLog.open(path) as log, pytest.raises(RuntimeError, match="died"):
        thoughtgraph.solve(
            "sorting", INPUT_32, model=ScriptedModel(respond), parts=4, concurrency=1, on_event=log
        )
    events = list(read_events(path))
    kinds = [e["event"] for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert kinds.count("call_finished") == 2 and kinds.count("call_started") == 3
    assert (
        next(e for e in events if e.get("op_id") == "part_3" and e["event"] == "op_finished")[
            "status"
        ]
        == "failed"
    )


def test_a_half_written_last_line_is_skipped(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"event":"run_started","time":0}\n{"event":"op_sta')
    assert [e["event"] for e in read_events(path)] == ["run_started"]


def test_dash_writes_to_stderr(capsys):
    log = EventLog.open("-")
    log(OpStarted(0.5, "part_1", "generate"))
    log.close()  # never closes stderr
    err = capsys.readouterr().err
    assert strict(err) == {
        "event": "op_started",
        "time": 0.5,
        "op_id": "part_1",
        "kind": "generate",
    }


def test_lines_are_strict_json_whatever_the_data():
    line = to_json_line(event_record(ThoughtMade(1.0, "x", "x:0", "generate", float("inf"), 0)))
    assert strict(line) == {
        "event": "thought",
        "time": 1.0,
        "op_id": "x",
        "thought_id": "x:0",
        "kind": "generate",
        "score": "inf",
        "attempt": 0,
    }
    odd = to_json_line({"obj": object()})
    assert strict(odd)["obj"].startswith("<object")


def test_combine_calls_each_handler_in_order():
    calls: list[str] = []
    both = combine(lambda e: calls.append("a"), None, lambda e: calls.append("b"))
    assert both is not None
    both(RunStarted(0.0, {}, "sim"))
    assert calls == ["a", "b"]
    assert combine() is None and combine(None) is None
    only = print
    assert combine(None, only) is only
