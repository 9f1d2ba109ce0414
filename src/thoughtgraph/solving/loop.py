"""The event loop a synchronous `solve()` runs on in the main thread, kept for its next call.

`asyncio.run` builds an event loop for every call and tears it down after (a selector, a
self-pipe, the shutdown steps, a Ctrl-C handler whose restoring formats the finished task):
on an in-process model about a sixth of a sorting-32 solve's CPU. `run` keeps the loop of a
call that left it as it found it: no task pending, no callback queued or timer set, no async
generator alive on it (each HTTP client parks one: models/clients.py), no default executor
started. A call that leaves any of them, or raises, is finished exactly as `asyncio.run`
finishes one (`asyncio.Runner.close`: tasks cancelled, async generators closed, the executor
joined, the loop closed), so whatever a run leaves behind is still released when `solve()`
returns. Ctrl-C is handled as `asyncio.run` handles it (the first cancels the run, a second
raises `KeyboardInterrupt`), and every call runs in a fresh copy of the caller's context. The
thread's current event loop is left alone (the kept loop is never set as it).

Only the main thread keeps a loop (a thread's own would outlive it unclosed); the kept one is
closed at exit and before a fork, so a child never shares its selector with the parent.
"""

from __future__ import annotations

import asyncio
import atexit
import contextvars
import importlib
import os
import threading
from collections.abc import Coroutine
from types import FrameType
from typing import Any, TypeVar


def _raw_signals() -> Any:
    """`signal` without its enum wrapping (CPython's `_signal`): `signal.signal` formats the
    handler it replaces into an error it then drops, 6 us a swap, four swaps a run."""
    try:
        return importlib.import_module("_signal")
    except ImportError:  # not CPython
        return importlib.import_module("signal")


signal = _raw_signals()
T = TypeVar("T")

_lock = threading.Lock()
# the runner kept clean by the last call, and the event-loop policy its loop was made under
_idle: tuple[asyncio.Runner, asyncio.AbstractEventLoopPolicy] | None = None


def in_running_loop() -> bool:
    """Is an event loop running in this thread (Jupyter, an async caller)? Asked outside any
    `except` block, so an error of the run that follows is not chained to the RuntimeError
    `asyncio.get_running_loop` raises when none runs."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` to its end, as `asyncio.run` does; in the main thread, on the loop the
    last call left clean (module doc)."""
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(coroutine)
    runner, policy = _take()
    try:
        result = _run_on(runner.get_loop(), coroutine)
    except BaseException:
        runner.close()
        raise
    if left_as_found(runner.get_loop()):
        _keep(runner, policy)
    else:
        runner.close()
    return result


def _run_on(loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, T]) -> T:
    """`asyncio.Runner.run` on `loop`, with a SIGINT handler that is cheap to swap."""
    task = loop.create_task(coroutine, context=contextvars.copy_context())
    interrupts = None
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        interrupts = _Interrupts(loop, task)
        try:
            signal.signal(signal.SIGINT, interrupts)
        except ValueError:  # signals not available here (an embedded interpreter)
            interrupts = None
    try:
        return loop.run_until_complete(task)
    except asyncio.CancelledError:
        if interrupts is not None and interrupts.count > 0 and task.uncancel() == 0:
            raise KeyboardInterrupt() from None
        raise
    finally:
        if interrupts is not None and signal.getsignal(signal.SIGINT) is interrupts:
            signal.signal(signal.SIGINT, signal.default_int_handler)


class _Interrupts:
    """Ctrl-C during a run, as `asyncio.Runner` takes it: the first cancels the run (which
    then returns what it did), a second raises `KeyboardInterrupt`."""

    def __init__(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> None:
        self.loop, self.task, self.count = loop, task, 0

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        if self.count == 1 and not self.task.done():
            self.task.cancel()
            self.loop.call_soon_threadsafe(_wake)  # the loop may be waiting in select()
            return
        raise KeyboardInterrupt()

    def __repr__(self) -> str:
        return "<thoughtgraph run's Ctrl-C handler>"


def _wake() -> None:
    """A callback that only wakes the loop."""


def left_as_found(loop: asyncio.AbstractEventLoop) -> bool:
    """Did the run leave nothing on `loop` that `asyncio.run` would still run, close or drop?
    A loop whose state cannot be read (not asyncio's own kind) is never kept."""
    scheduled = getattr(loop, "_scheduled", None)
    ready = getattr(loop, "_ready", None)
    generators = getattr(loop, "_asyncgens", None)
    if scheduled is None or ready is None or generators is None:
        return False
    return (
        not ready
        and not generators
        and getattr(loop, "_default_executor", True) is None
        and all(timer.cancelled() for timer in scheduled)
        and not asyncio.all_tasks(loop)
    )


def _take() -> tuple[asyncio.Runner, asyncio.AbstractEventLoopPolicy]:
    """The kept runner, if it was made under the policy in force; else a new one."""
    global _idle
    with _lock:
        kept, _idle = _idle, None
    policy = asyncio.get_event_loop_policy()
    if kept is not None:
        if kept[1] is policy:
            return kept
        kept[0].get_loop().close()  # kept clean: nothing on it to finish
    return asyncio.Runner(loop_factory=policy.new_event_loop), policy


def _keep(runner: asyncio.Runner, policy: asyncio.AbstractEventLoopPolicy) -> None:
    global _idle
    with _lock:
        _idle = (runner, policy)


def close_kept() -> None:
    """Close the kept loop, if any (at exit, before a fork; the next call makes a new one)."""
    global _idle
    with _lock:
        kept, _idle = _idle, None
    if kept is not None:  # kept clean: nothing on it to finish, so closing it runs nothing
        kept[0].get_loop().close()


atexit.register(close_kept)
os.register_at_fork(before=close_kept)
