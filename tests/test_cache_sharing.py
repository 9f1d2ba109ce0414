"""The answer cache as a durable, shared record: every answer is committed the moment it
arrives (the parallel singles of an endpoint that ignores `n` included), many processes on one
file pay for each request once (claims with a lease), and an empty answer is not kept.

The fake server's request log is the judge of what was paid."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from thoughtgraph.models import inflight
from thoughtgraph.models.cache import CachedModel
from thoughtgraph.models.openai import OpenAIModel

from .conftest import INPUT_32
from .fake_openai import FakeOpenAI, Fault
from .test_resume import cli_env, solve_argv, wait_for

SECONDS = 30
PROMPT = "Sort this list of numbers in ascending order: [5, 3, 9, 1]"
# One process asking for 40 answers of one prompt, printing how many it got.
ASK_40 = """
import asyncio, sys
from thoughtgraph.models.cache import CachedModel
from thoughtgraph.models.openai import OpenAIModel
model = CachedModel(OpenAIModel("m", base_url=sys.argv[1], max_retries=0), sys.argv[2])
print(len(asyncio.run(model.complete(sys.argv[3], 40))))
"""


def rows(cache: Path) -> int:
    try:
        with sqlite3.connect(cache) as db:
            return int(db.execute("SELECT count(*) FROM answers").fetchone()[0])
    except sqlite3.Error:  # not created yet
        return 0


@pytest.fixture(autouse=True)
def _fresh_n_memory():
    """The `n` fallback is remembered per process: each test starts without it."""
    inflight.forget_endpoints()
    yield
    inflight.forget_endpoints()


@pytest.mark.slow
def settled(server: FakeOpenAI, quiet: float = 1.0) -> int:
    """The server's request count once no request has arrived for `quiet` seconds."""
    count, since = len(server.requests), time.monotonic()
    while time.monotonic() - since < quiet:
        time.sleep(0.05)
        if len(server.requests) != count:
            count, since = len(server.requests), time.monotonic()
    return count


def test_kill_9_during_ignored_n_singles_keeps_every_answer_that_arrived(tmp_path: Path):
    cache = tmp_path / "answers.sqlite"
    slow = threading.Event()
    slow.set()
    counter = itertools.count()

    def every_other_single_hangs(body: object) -> Fault | None:
        return Fault("delay", 60) if slow.is_set() and next(counter) % 2 else None

    argv = [sys.executable, "-c", ASK_40]
    with FakeOpenAI(honour_n=False, fault_when=every_other_single_hangs) as server:
        first = subprocess.Popen(
            [*argv, server.base_url, str(cache), PROMPT],
            env=cli_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            # the n=40 request (1 answer) and the 19 quick singles of the 39 that follow
            wait_for(lambda: rows(cache) >= 20, "the quick answers committed")
            assert first.poll() is None  # the hanging singles hold it
        finally:
            first.kill()  # SIGKILL: nothing is flushed at exit
            first.communicate(timeout=SECONDS)
        assert first.returncode == -9
        kept = rows(cache)
        slow.clear()
        # a request the killed process had sent may reach the server's log only now (read late
        # from its socket on a loaded machine): let the log settle before counting the rerun's
        before = settled(server)
        rerun = subprocess.run(
            [*argv, server.base_url, str(cache), PROMPT],
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=SECONDS * 2,
            check=False,
        )
        paid_again = len(server.requests) - before

    assert rerun.returncode == 0, rerun.stderr
    assert rerun.stdout.strip() == "40"
    assert kept >= 20
    assert paid_again == 40 - kept  # only the answers that had not arrived
    assert rows(cache) == 40


def test_an_empty_answer_is_returned_but_not_cached(tmp_path: Path):
    cache = tmp_path / "answers.sqlite"

    def ask() -> str:
        with CachedModel(OpenAIModel("m", base_url=server.base_url), cache) as model:
            answer = asyncio.run(model.complete(PROMPT))[0]
        return "cached" if answer.cached else "empty" if not answer.text else "paid"

    with FakeOpenAI() as server:
        server.script(Fault("blank"))
        runs = [ask(), ask(), ask()]  # three runs, one after another, on one file
        paid = len(server.requests)
    assert runs == ["empty", "paid", "cached"]  # the rerun asked again
    assert paid == 2
    assert rows(cache) == 1


def claim(cache: Path, model: CachedModel, sample: int, *, pid: int, expires: float) -> None:
    """Another holder's claim on `sample` of PROMPT, as a second process would write it."""
    with sqlite3.connect(cache) as db:
        db.execute(
            "INSERT INTO claims VALUES (?, ?, ?, ?, ?)",
            (model.key(PROMPT, sample), "another-holder", pid, os.uname().nodename, expires),
        )


def test_a_request_another_holder_has_in_flight_is_waited_for_not_paid(tmp_path: Path):
    cache = tmp_path / "answers.sqlite"
    with FakeOpenAI() as server:
        waiter = CachedModel(OpenAIModel("m", base_url=server.base_url), cache)
        claim(cache, waiter, 0, pid=os.getpid(), expires=time.time() + 600)

        async def scenario() -> str:
            asked = asyncio.ensure_future(waiter.complete(PROMPT))
            await asyncio.sleep(0.3)
            assert not asked.done() and not server.requests  # waiting, not paying
            holder = CachedModel(OpenAIModel("m", base_url=server.base_url), cache)
            holder._store(PROMPT, [(0, holder.key(PROMPT, 0), _answer("[1, 3, 5, 9]"))])
            holder.close()
            return (await asyncio.wait_for(asked, SECONDS))[0].text

        text = asyncio.run(scenario())
        waiter.close()
        paid = len(server.requests)
    assert text == "[1, 3, 5, 9]"
    assert paid == 0


@pytest.mark.parametrize("how", ["holder died", "lease ran out"])
def test_a_claim_whose_holder_is_gone_is_taken_over(tmp_path: Path, how: str):
    cache = tmp_path / "answers.sqlite"
    if how == "holder died":
        pid, expires = _dead_pid(), time.time() + 600  # the lease runs, the process is gone
    else:
        pid, expires = os.getppid(), time.time() - 1  # alive, but it stopped renewing
    with FakeOpenAI() as server:
        model = CachedModel(OpenAIModel("m", base_url=server.base_url), cache)
        claim(cache, model, 0, pid=pid, expires=expires)
        answers = asyncio.run(asyncio.wait_for(model.complete(PROMPT), SECONDS))
        model.close()
        paid = len(server.requests)
    assert answers[0].text and paid == 1
    with sqlite3.connect(cache) as db:  # the claim ended with the request
        assert db.execute("SELECT count(*) FROM claims").fetchone()[0] == 0


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _answer(text: str):
    from thoughtgraph.models.base import Completion

    return Completion(text)


@pytest.mark.slow
def test_two_processes_on_one_cache_pay_as_one(tmp_path: Path):
    with FakeOpenAI(latency=0.05) as server:
        alone = subprocess.run(
            solve_argv(server, tmp_path / "alone.sqlite"),
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=SECONDS * 2,
            check=False,
        )
        assert alone.returncode == 0, alone.stderr
        one = len(server.requests)
        shared = tmp_path / "shared.sqlite"
        runs = [
            subprocess.Popen(
                solve_argv(server, shared),
                env=cli_env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        outs = [run.communicate(timeout=SECONDS * 4) for run in runs]
        two = len(server.requests) - one
    for run, (out, err) in zip(runs, outs, strict=True):
        assert run.returncode == 0, err
        assert json.loads(out)["output"] == sorted(INPUT_32)
    assert one >= 5
    assert two <= one * 1.1  # before claims: 2 x one
