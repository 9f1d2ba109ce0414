"""The simulated model's waits: one timer per event loop and latency, not one per request.

`asyncio.sleep` puts a timer on the loop's heap for every request (a handle, a push and a pop
whose comparisons run in Python, a wake-up handle): at 8,191 requests of 0.05 s that was about
5% of a 32,768-number run's profile. Waits of one length end in the order they began (the
loop's clock only goes forward), so the waiters of one latency queue up in order behind one
timer set for the first of them; when it fires it wakes every waiter that is due, in that order,
and sets itself for the next. A waiter wakes no earlier than `asyncio.sleep` would wake it
(the loop's own rule: due within the clock's resolution); one cancelled while it waits leaves
the queue, and the last to leave takes the timer with it, as `asyncio.sleep` cancels its own
(a run stopped by Ctrl-C leaves no timer on the loop).
"""

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from collections import deque

_RESOLUTION = time.get_clock_info("monotonic").resolution  # asyncio's `_clock_resolution`


class Wakeups:
    """The waiters of one latency on one loop, in the order they began. It holds no reference
    to its loop (the table of them is keyed weakly by the loop): the loop is passed in."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self._due: deque[tuple[float, asyncio.Future[None]]] = deque()
        self._timer: asyncio.TimerHandle | None = None

    def wait(self, loop: asyncio.AbstractEventLoop) -> asyncio.Future[None]:
        """A future done `delay` seconds from now (what `asyncio.sleep(delay)` awaits)."""
        future: asyncio.Future[None] = loop.create_future()
        deadline = loop.time() + self.delay
        self._due.append((deadline, future))
        if self._timer is None:
            self._timer = loop.call_at(deadline, self._fire, loop)
        return future

    def _fire(self, loop: asyncio.AbstractEventLoop) -> None:
        due, now = self._due, loop.time() + _RESOLUTION
        while due and due[0][0] < now:
            future = due.popleft()[1]
            if not future.done():
                future.set_result(None)
        self._timer = loop.call_at(due[0][0], self._fire, loop) if due else None

    def forget(self, future: asyncio.Future[None]) -> None:
        """A waiter cancelled before it was due leaves the queue; the timer goes with the last."""
        for entry in self._due:
            if entry[1] is future:
                self._due.remove(entry)
                break
        if not self._due and self._timer is not None:
            self._timer.cancel()
            self._timer = None


_lock = threading.Lock()
_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[float, Wakeups]] = (
    weakref.WeakKeyDictionary()
)


Waiting = tuple[Wakeups, "asyncio.Future[None]"]
"""A wait begun (`begin`) and not yet awaited (`finish`)."""


def begin(delay: float) -> Waiting:
    """Start `sleep(delay)`'s wait now, on the running loop, without awaiting it: work done
    before `finish` (or `abandon`) overlaps the wait."""
    loop = asyncio.get_running_loop()
    table = _by_loop.get(loop)
    if table is None:
        with _lock:
            table = _by_loop.setdefault(loop, {})
    wakeups = table.get(delay)
    if wakeups is None:
        wakeups = table.setdefault(delay, Wakeups(delay))
    return wakeups, wakeups.wait(loop)


async def finish(waiting: Waiting) -> None:
    """Await a begun wait: done `delay` seconds after `begin`, not after this call."""
    wakeups, future = waiting
    try:
        await future
    finally:
        if future.cancelled():
            wakeups.forget(future)


def abandon(waiting: Waiting) -> None:
    """A begun wait nobody will await leaves the queue (and its timer, if it was the last)."""
    wakeups, future = waiting
    future.cancel()
    wakeups.forget(future)


async def sleep(delay: float) -> None:
    """`asyncio.sleep(delay)` (delay > 0) on the running loop, on the loop's shared timer."""
    await finish(begin(delay))
