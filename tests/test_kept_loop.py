"""The event loop of a synchronous `solve()` (solving/loop.py): kept for the next call only when
the run left it as it found it; anything left on it is finished as `asyncio.run` finishes it."""

from __future__ import annotations

import asyncio
import contextvars
import os
import signal
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import thoughtgraph
from thoughtgraph.solving import loop

SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="unset")


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    loop.close_kept()
    yield
    loop.close_kept()


def _solve(model: object) -> thoughtgraph.Result:
    return thoughtgraph.solve("sorting", [2, 1], model=model, scheme="io")  # type: ignore[arg-type]


def _loop_noting_model() -> tuple[list[asyncio.AbstractEventLoop], Any]:
    """A model that notes the event loop each call runs on, and the list it notes them in."""
    loops: list[asyncio.AbstractEventLoop] = []

    async def model(prompt: str) -> str:
        loops.append(asyncio.get_running_loop())
        return "[1, 2]"

    return loops, model


def test_two_solves_in_a_row_run_on_one_loop_left_open_between() -> None:
    loops, model = _loop_noting_model()

    assert _solve(model).output == [1, 2]
    assert _solve(model).output == [1, 2]
    assert loops[0] is loops[1] and not loops[0].is_closed()
    loop.close_kept()
    assert loops[0].is_closed()
    _solve(model)
    assert loops[2] is not loops[0]  # closed, so the next call made a new one


def test_a_task_left_pending_is_cancelled_and_its_loop_closed_as_asyncio_run_does() -> None:
    left: list[asyncio.Task[None]] = []

    async def model(prompt: str) -> str:
        left.append(asyncio.get_running_loop().create_task(asyncio.sleep(3600)))
        return "[1, 2]"

    assert _solve(model).output == [1, 2]
    assert left[0].cancelled()
    assert left[0].get_loop().is_closed()


def test_an_async_generator_left_open_is_closed_with_its_loop() -> None:
    closed = []

    async def parked():
        try:
            yield
        finally:
            closed.append(True)

    async def model(prompt: str) -> str:
        generator = parked()
        await generator.__anext__()  # alive on the loop, as an HTTP client's closer is
        model.generator = generator  # type: ignore[attr-defined]
        return "[1, 2]"

    _solve(model)
    assert closed == [True]


def test_a_timer_left_set_is_dropped_with_its_loop_never_kept_for_a_later_solve() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def model(prompt: str) -> str:
        loops.append(asyncio.get_running_loop())
        asyncio.get_running_loop().call_later(3600, print, "a timer left set")
        return "[1, 2]"

    _solve(model)
    _solve(model)
    assert loops[0].is_closed() and loops[0] is not loops[1]


def test_a_run_that_raises_closes_its_loop() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def model(prompt: str) -> str:
        loops.append(asyncio.get_running_loop())
        raise KeyError("boom")

    with pytest.raises(KeyError):
        _solve(model)
    assert loops and loops[0].is_closed()


def test_each_solve_runs_in_a_fresh_copy_of_the_callers_context() -> None:
    seen: list[str] = []

    async def model(prompt: str) -> str:
        seen.append(SEEN.get())
        SEEN.set("set by a run")
        return "[1, 2]"

    token = SEEN.set("the caller's")
    try:
        _solve(model)
        _solve(model)
    finally:
        SEEN.reset(token)
    assert seen == ["the caller's", "the caller's"]


def test_another_thread_gets_a_loop_of_its_own_each_call() -> None:
    loops, model = _loop_noting_model()

    def twice() -> None:
        _solve(model)
        _solve(model)

    worker = threading.Thread(target=twice)
    worker.start()
    worker.join()
    assert len(loops) == 2 and loops[0] is not loops[1]
    assert all(made.is_closed() for made in loops)


def test_the_threads_current_event_loop_is_left_alone() -> None:
    policy = asyncio.get_event_loop_policy()
    before = policy._local._loop  # type: ignore[attr-defined]
    _solve(lambda prompt: "[1, 2]")
    assert policy._local._loop is before  # type: ignore[attr-defined]


def test_a_new_event_loop_policy_gets_a_loop_of_its_own() -> None:
    loops, model = _loop_noting_model()

    _solve(model)
    old = asyncio.get_event_loop_policy()
    asyncio.set_event_loop_policy(asyncio.DefaultEventLoopPolicy())
    try:
        _solve(model)
    finally:
        asyncio.set_event_loop_policy(old)
    assert loops[0] is not loops[1] and loops[0].is_closed()


@pytest.mark.skipif(
    signal.getsignal(signal.SIGINT) is not signal.default_int_handler,
    reason="Ctrl-C is not Python's default here",
)
def test_ctrl_c_during_a_solve_returns_the_run_so_far_and_restores_the_handler() -> None:
    async def model(prompt: str) -> str:
        signal.raise_signal(signal.SIGINT)  # Ctrl-C while the first call is answered
        await asyncio.sleep(0)
        return "[1, 2]"

    with pytest.raises(thoughtgraph.RunInterrupted) as stop:
        thoughtgraph.solve("sorting", [3, 1, 2], model=model, parts=1)
    assert stop.value.result.stop_reason == "interrupted"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_fork_closes_the_kept_loop_first_so_no_child_shares_its_selector() -> None:
    loops, model = _loop_noting_model()

    _solve(model)
    assert not loops[0].is_closed()
    child = os.fork()
    if child == 0:  # the child: leave at once, running nothing of the parent's
        os._exit(0)
    os.waitpid(child, 0)
    assert loops[0].is_closed()
    _solve(model)
    assert loops[1] is not loops[0]
