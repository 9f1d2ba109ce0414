"""Resume: a CLI run killed with `kill -9` mid-run and started again with the same cache pays only
for the answers it had not yet received. The server's request log is the judge."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import INPUT_32
from .fake_openai import FakeOpenAI, Fault

SECONDS = 30  # an upper bound for slow machines; the test waits for events, not for time


def cli_env() -> dict[str, str]:
    """The test's environment without any real key, endpoint, proxy or cache."""
    drop = {
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "THOUGHTGRAPH_CACHE",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    }
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return env | {"NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}


def solve_argv(server: FakeOpenAI, cache: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "thoughtgraph.cli.main",
        "solve",
        "sorting",
        "--input",
        str(INPUT_32),
        "--model",
        "openai:gpt-4o-mini",
        "--base-url",
        server.base_url,
        "--cache",
        str(cache),
        "--max-retries",
        "0",
        "--json",
        "--no-progress",
    ]


def cached_prompts(cache: Path) -> list[str]:
    try:
        with sqlite3.connect(cache) as db:
            return [row[0] for row in db.execute("SELECT prompt FROM answers")]
    except sqlite3.Error:  # not created yet
        return []


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def prompt_of(request) -> str:
    return request.body["messages"][-1]["content"]


@pytest.mark.slow
def test_kill_9_mid_run_then_rerun_pays_only_for_what_was_not_received(tmp_path: Path):
    cache = tmp_path / "answers.sqlite"
    with FakeOpenAI(error=0.0) as server:
        server.script(Fault("delay", 60))  # the first part to arrive hangs; the others answer
        first = subprocess.Popen(
            solve_argv(server, cache), env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        try:
            wait_for(lambda: len(cached_prompts(cache)) >= 3, "three committed answers")
            assert first.poll() is None  # still running: the hanging part holds it
        finally:
            first.kill()  # SIGKILL: no cleanup, no chance to flush anything
            first.communicate(timeout=SECONDS)
        assert first.returncode == -9
        committed = set(cached_prompts(cache))
        before = len(server.requests)

        rerun = subprocess.run(
            solve_argv(server, cache),
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=SECONDS * 2,
            check=False,
        )
        again = server.requests[before:]

    assert rerun.returncode == 0, rerun.stderr
    data = json.loads(rerun.stdout)
    assert data["status"] == "clean" and data["output"] == sorted(INPUT_32)
    # no paid request repeats an answer already committed in the killed run
    assert not committed & {prompt_of(r) for r in again}
    assert data["cached_calls"] == len(committed) >= 3
    assert data["paid_calls"] == len(again) >= 1  # at least the part that hung
    assert len(cached_prompts(cache)) == data["calls"]  # every answer of the run is now cached
