"""Outputs that cannot be written, and Ctrl-C, never lose the result or the cache.

An event log on a full disk, a trace that cannot be written at the end: the result is printed
anyway, each failed file gets one `error:` line, exit 2. Ctrl-C prints one line saying what was
kept, writes the partial trace, logs stop_reason "interrupted", and leaves a cache a rerun resumes.
"""

from __future__ import annotations

import asyncio
import errno
import io
import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import thoughtgraph
from thoughtgraph.events import CallFinished
from thoughtgraph.io.eventlog import EventLog, read_events

from .conftest import INPUT_32, run_cli

DEV_FULL = Path("/dev/full")
needs_dev_full = pytest.mark.skipif(not DEV_FULL.exists(), reason="needs /dev/full")


class FillingDisk(io.StringIO):
    """A file whose disk fills after `room` writes: every later write fails with ENOSPC."""

    def __init__(self, room: int) -> None:
        super().__init__()
        self.room = room

    def write(self, text: str) -> int:
        if self.room <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= 1
        return super().write(text)


def test_an_event_log_whose_disk_fills_mid_run_does_not_stop_the_run():
    log = EventLog(FillingDisk(room=5), name="run.jsonl")
    result = thoughtgraph.solve("sorting", INPUT_32, model="sim:error=0", parts=4, on_event=log)
    assert result.clean and result.output == sorted(INPUT_32)
    assert log.lines == 5
    assert log.error == (
        "cannot write events to run.jsonl: No space left on device (stopped after 5 events)"
    )
    assert len(log.stream.getvalue().splitlines()) == 5


@needs_dev_full
def test_events_to_dev_full_prints_the_result_and_one_error_line(capsys):
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--dataset", "sorting_032", "--events", str(DEV_FULL)
    )
    assert code == 2
    assert "status:  clean" in out and "output:  [0, 0, 0" in out
    assert err == (
        "error: cannot write events to /dev/full: No space left on device "
        "(stopped after 0 events)\n"
    )


@needs_dev_full
def test_a_trace_that_cannot_be_written_keeps_the_result_and_the_cache(tmp_path, capsys):
    cache = tmp_path / "answers.sqlite"
    args = ("solve", "sorting", "--dataset", "sorting_032", "--cache", str(cache), "--json")
    code, out, err = run_cli(capsys, *args, "--trace", str(DEV_FULL))
    assert code == 2
    result = json.loads(out)
    assert result["clean"] and result["calls"] > 0
    assert err == "error: cannot write trace /dev/full: No space left on device\n"
    code, out, _ = run_cli(capsys, *args)  # every answer was kept: the rerun pays for none
    assert code == 0 and json.loads(out)["cached_calls"] == result["calls"]


def test_a_cancelled_asolve_carries_the_run_so_far():
    async def main() -> thoughtgraph.Result:
        def cancel_after_two_calls(event: thoughtgraph.Event) -> None:
            if isinstance(event, CallFinished) and event.call_id and not task.done():
                finished.append(event.call_id)
                if len(finished) == 2:
                    task.cancel()

        finished: list[str] = []
        task = asyncio.ensure_future(
            thoughtgraph.asolve(
                "sorting", INPUT_32, "sim", parts=4, concurrency=1, on_event=cancel_after_two_calls
            )
        )
        with pytest.raises(asyncio.CancelledError) as caught:
            await task
        return caught.value.result

    partial = asyncio.run(main())
    assert partial.stop_reason == "interrupted" and partial.status == "not clean"
    assert partial.calls == 2  # stopped mid-run, with what had been answered
    assert partial.output is not None  # the best part so far, not nothing


def _ctrl_c_reaches_python() -> None:
    """A suite started in the background (`make test &`) runs with SIGINT ignored, and a child
    inherits that, so Python would never raise KeyboardInterrupt: give the child the default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_ctrl_c_in_solve_raises_run_interrupted_with_the_result(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(
        "import thoughtgraph\n"
        "try:\n"
        "    thoughtgraph.solve('sorting', list(range(64, 0, -1)), 'sim:latency=0.3',\n"
        "                       concurrency=1, on_event=lambda e: print(e.name, flush=True))\n"
        "except thoughtgraph.RunInterrupted as stop:\n"
        "    assert isinstance(stop, KeyboardInterrupt)\n"
        "    print('kept', stop.result.stop_reason, stop.result.calls, flush=True)\n"
    )
    run = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ctrl_c_reaches_python,
    )
    assert run.stdout is not None
    for line in run.stdout:  # wait for the first answer, then press Ctrl-C
        if line.strip() == "call_finished":
            break
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    kept = out.splitlines()[-1].split()
    assert kept[:2] == ["kept", "interrupted"] and int(kept[2]) >= 1


@pytest.mark.slow
def test_ctrl_c_says_what_was_kept_writes_the_trace_and_keeps_the_cache(tmp_path):
    cache, trace, events = tmp_path / "c.sqlite", tmp_path / "t.json", tmp_path / "e.jsonl"
    args = [sys.executable, "-m", "thoughtgraph.cli.main", "solve", "sorting", "--dataset"]
    args += ["sorting_064", "--model", "sim:latency=0.3", "--concurrency", "2"]
    args += ["--cache", str(cache), "--no-progress"]
    run = subprocess.Popen(
        [*args, "--trace", str(trace), "--events", str(events)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ctrl_c_reaches_python,
    )
    while not events.exists() or '"call_finished"' not in events.read_text():
        assert run.poll() is None, run.communicate()
        time.sleep(0.05)
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=60)

    assert run.returncode == 130
    saved = json.loads(trace.read_text())["result"]
    answers = saved["completions"]
    assert saved["stop_reason"] == "interrupted" and 1 <= saved["calls"] < 21
    assert err.splitlines() == [
        f"error: interrupted after {saved['calls']} model calls: {answers} answer"
        f"{'s' if answers != 1 else ''} kept in the cache {cache} (rerun with it to resume) "
        f"and in the trace {trace}"
    ]
    assert "status:  not clean (interrupted" in out
    last = list(read_events(events))[-1]
    assert last["event"] == "run_finished" and last["stop_reason"] == "interrupted"

    with sqlite3.connect(cache) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    again = subprocess.run([*args, "--json"], capture_output=True, text=True, timeout=120)
    resumed = json.loads(again.stdout)
    assert resumed["clean"] and resumed["cached_calls"] == saved["calls"]


@pytest.mark.slow
def test_ctrl_c_in_eval_says_how_many_pairs_were_kept(tmp_path):
    out = tmp_path / "ev"
    args = [sys.executable, "-m", "thoughtgraph.cli.main", "eval", "sorting", "--schemes", "io,got"]
    args += ["--samples", "20", "--model", "sim:latency=0.2", "--parallel", "1"]
    args += ["--out", str(out), "--no-progress"]
    run = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ctrl_c_reaches_python,
    )
    results = out / "results.jsonl"
    while not results.exists() or not results.read_text().strip():
        assert run.poll() is None, run.communicate()
        time.sleep(0.05)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)

    assert run.returncode == 130
    kept = len(results.read_text().splitlines())
    assert 1 <= kept < 40
    assert err.splitlines()[-1] == (
        f"error: interrupted: {kept} of 40 pairs kept in {results} "
        "(run the same command again to resume)"
    )
