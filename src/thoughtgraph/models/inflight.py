"""How many requests one endpoint gets at once, learned from its timeouts.

Local servers often answer one request at a time (llama.cpp's, measured in
docs/local-models.md: a burst of 6 finished 1.9, 4.4, 4.9, 7.1, 11.3 and 13.1 s after it was
sent). Sent 16 at once, the last ones wait in the server's queue, time out although the server
was busy with their elders, and are sent again: the queue only grows. A request that waits
*here*, for a slot, starts no timeout clock. So:

- each endpoint (base URL) has a gate; with no limit known it lets every request through;
- when a request times out while others were in flight to the same endpoint, the endpoint is
  taken to queue: its limit becomes half the requests that were in flight (at least 1), logged
  once, and kept for the process (like the `n` fallback). Later requests wait at the gate;
- `max_in_flight=K` in the model spec sets the limit from the start.

Gates are per event loop (asyncio primitives cannot cross loops); limits are process-wide.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

logger = logging.getLogger(__name__)

# base_url -> the most requests in flight at once (learned, or set by max_in_flight).
LIMITS: dict[str, int] = {}
_lock = threading.Lock()
_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, _Gate]]
_gates = weakref.WeakKeyDictionary()


class _Gate:
    """Admits requests to one endpoint while fewer than its limit are in flight."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.in_flight = 0
        self._changed = asyncio.Condition()

    def _open(self) -> bool:
        limit = LIMITS.get(self.endpoint)
        return limit is None or self.in_flight < limit

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[int]:
        """Hold a slot; yields how many other requests were in flight when it was taken."""
        async with self._changed:
            await self._changed.wait_for(self._open)
            others = self.in_flight
            self.in_flight += 1
        try:
            yield others
        finally:
            async with self._changed:
                self.in_flight -= 1
                self._changed.notify_all()


def gate(endpoint: str) -> _Gate:
    """The gate of `endpoint` in the running loop."""
    loop = asyncio.get_running_loop()
    with _lock:
        gates = _gates.setdefault(loop, {})
        if endpoint not in gates:
            gates[endpoint] = _Gate(endpoint)
        return gates[endpoint]


def set_limit(endpoint: str, limit: int) -> None:
    """`max_in_flight`: at most `limit` requests at once to `endpoint` from now on."""
    if limit < 1:
        raise ValueError(f"max_in_flight must be at least 1, got {limit}")
    with _lock:
        LIMITS[endpoint] = limit


def learn_from_timeout(endpoint: str, name: str, others: int) -> None:
    """A request timed out with `others` more in flight: the endpoint queues; lower its limit."""
    if others < 1:
        return  # alone and still too slow: the timeout is too short, not the queue too long
    in_flight = others + 1
    limit = max(1, in_flight // 2)
    with _lock:
        known = LIMITS.get(endpoint)
        if known is not None and known <= limit:
            return
        LIMITS[endpoint] = limit
    logger.info(
        "%s timed out with %d requests in flight: it seems to queue them; "
        "sending at most %d at once from now on",
        name,
        in_flight,
        limit,
    )
