"""Run the Python API's coroutines from sync code, also where an event loop already runs."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import Any, TypeVar

from thoughtgraph.solving.loop import in_running_loop

T = TypeVar("T")


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """`coroutine` run to its end: here, or inside a running event loop (Jupyter) in a helper
    thread with its own loop."""
    if not in_running_loop():  # asked outside an except: errors are not chained to its own
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
