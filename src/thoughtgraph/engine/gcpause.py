"""Fewer garbage-collector passes while a run is under way, the process's settings restored after.

A run allocates many small objects that live until it ends (ops, thoughts, calls, events), so
CPython's collector, triggered every 700 allocations, keeps re-scanning a heap that only grows:
on a 10,000-op graph that was a quarter of the run's CPU and the part of it that grew faster
than the graph. While at least one run is active in the process (runs may overlap: an
evaluation, several threads) the first generation's threshold is raised; the last run to end
puts back whatever thresholds were set before, so a user's own tuning is left as it was.
Collection still happens, only less often, so memory stays bounded.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

RUN_THRESHOLD = 400_000  # allocations between first-generation passes during a run (CPython:
# 700). Not 50,000: calls in flight (4,096 parts at 0.05 s a request) keep their tasks and
# coroutine frames alive across passes, so every pass rescanned them and moved them on to be
# scanned again: the 32,768-number `got` run made 7 young and 1 middle pass in its run (0.28 s
# of its 1.9 s of CPU), none at 400,000. Acyclic garbage is freed at once either way; only
# cycles wait for a pass, so memory stays bounded.

_lock = threading.Lock()
_active = 0
_saved: tuple[int, ...] | None = None


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's first threshold for the duration; nests and overlaps safely."""
    _enter()
    try:
        yield
    finally:
        _exit()


def _enter() -> None:
    global _active, _saved
    with _lock:
        _active += 1
        if _active == 1:
            _saved = gc.get_threshold()
            first, *rest = _saved
            if first:  # 0: the user disabled automatic collection; leave that alone
                gc.set_threshold(max(first, RUN_THRESHOLD), *rest)


def _exit() -> None:
    global _active, _saved
    with _lock:
        _active -= 1
        if _active == 0 and _saved is not None:
            gc.set_threshold(*_saved)
            _saved = None
