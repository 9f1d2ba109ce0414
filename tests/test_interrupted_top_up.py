"""Ctrl-C while the parallel singles of a top-up are arriving (an endpoint that ignores `n`):
each single's answer is in the cache the moment it arrives, and the one line after Ctrl-C
counts them (it said "0 answers kept" with 19 in the cache: the call, cut short, had counted
none). The server is tests/fake_openai.py on 127.0.0.1."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .fake_openai import FakeOpenAI, Fault
from .test_durability import _ctrl_c_reaches_python
from .test_resume import cli_env


def rows(cache: Path) -> int:
    if not cache.exists():
        return 0
    try:
        with sqlite3.connect(cache) as db:
            return int(db.execute("SELECT count(*) FROM answers").fetchone()[0])
    except sqlite3.Error:  # the file is being made
        return 0


@pytest.mark.slow
def test_ctrl_c_during_a_top_up_counts_the_answers_in_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "answers.sqlite"
    with FakeOpenAI(honour_n=False) as server:
        # cot_sc asks for 5 answers in one request: 1 comes back, 4 singles top it up; two
        # arrive, two hang until Ctrl-C
        server.script(
            Fault("delay", 0.0), Fault("delay", 0.1), Fault("delay", 0.2), *[Fault("delay", 5)] * 2
        )
        args = [sys.executable, "-m", "thoughtgraph.cli.main", "solve", "sorting"]
        args += ["--input", "[3, 1, 2, 5, 4]", "--scheme", "cot_sc", "--model", "openai:m"]
        args += ["--base-url", server.base_url, "--cache", str(cache), "--no-progress"]
        run = subprocess.Popen(
            args,
            env=cli_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_ctrl_c_reaches_python,
        )
        deadline = time.monotonic() + 30
        while rows(cache) < 3:
            assert run.poll() is None and time.monotonic() < deadline, run.communicate()
            time.sleep(0.02)
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=60)
    kept = rows(cache)
    assert run.returncode == 130 and kept == 3
    assert err.splitlines()[-1] == (
        "error: interrupted after 1 model calls: 3 answers kept in the cache "
        f"{cache} (rerun with it to resume)"
    )
