"""What this process knows about one OpenAI-compatible endpoint (base URL), in one object: how
many requests it takes at once, learned from its timeouts, and which of its models ignore `n`.

Local servers often answer one request at a time (llama.cpp's, measured in
docs/local-models.md: a burst of 6 finished 1.9, 4.4, 4.9, 7.1, 11.3 and 13.1 s after it was
sent). Sent 16 at once, the last ones wait in the server's queue, time out although the server
was busy with their elders, and are sent again: the queue only grows. A request that waits
*here*, for a slot, starts no timeout clock. So:

- each endpoint has a gate (`Endpoint.slot`); with no limit known it lets every request through;
- when a request times out while others were in flight to the same endpoint, the endpoint is
  taken to queue: its limit becomes half the requests that were in flight (at least 1), logged
  once, and kept for the process. Later requests wait at the gate;
- `max_in_flight=K` in the model spec sets the limit from the start.

The same object remembers the models of the endpoint seen returning fewer choices than asked or
rejecting `n` (`ignores_n` / `forget_n`): later calls go straight to parallel single requests.

Every `OpenAIModel` of one base URL reads the same `Endpoint` (`endpoint(base_url)`), so what
one learned, the others know; `forget_endpoints()` starts afresh (tests). The knowledge is per
process (three processes on one server each learn for themselves); the gates are per event loop,
as asyncio primitives cannot cross loops.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

logger = logging.getLogger(__name__)


class _Gate:
    """Admits requests to one endpoint, on one loop, while fewer than its limit are in flight."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.in_flight = 0
        self._changed = asyncio.Condition()

    def _open(self) -> bool:
        limit = self.endpoint.limit
        return limit is None or self.in_flight < limit

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[int]:
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


class Endpoint:
    """One endpoint's learned limits: requests in flight at once and the models that ignore `n`."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.limit: int | None = None  # most requests in flight at once (learned, or set)
        self.n_ignored: set[str] = set()  # models seen returning fewer choices than asked
        self._lock = threading.Lock()
        self._gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Gate]
        self._gates = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"Endpoint(limit={self.limit}, n_ignored={sorted(self.n_ignored)})"

    # --- requests in flight ---------------------------------------------------------------
    def slot(self) -> AbstractAsyncContextManager[int]:
        """Hold a slot; yields how many other requests were in flight when it was taken."""
        loop = asyncio.get_running_loop()
        gate = self._gates.get(loop)
        if gate is None:
            with self._lock:
                gate = self._gates.setdefault(loop, _Gate(self))
        return gate.slot()

    def set_limit(self, limit: int) -> None:
        """`max_in_flight`: at most `limit` requests at once from now on."""
        if limit < 1:
            raise ValueError(f"max_in_flight must be at least 1, got {limit}")
        with self._lock:
            self.limit = limit

    def learn_from_timeout(self, name: str, others: int) -> None:
        """A request timed out with `others` more in flight: the endpoint queues; lower its
        limit."""
        if others < 1:
            return  # alone and still too slow: the timeout is too short, not the queue too long
        in_flight = others + 1
        limit = max(1, in_flight // 2)
        with self._lock:
            if self.limit is not None and self.limit <= limit:
                return
            self.limit = limit
        logger.info(
            "%s timed out with %d requests in flight: it seems to queue them; "
            "sending at most %d at once from now on",
            name,
            in_flight,
            limit,
        )

    # --- the `n` memory -------------------------------------------------------------------
    def ignores_n(self, model: str) -> bool:
        return model in self.n_ignored

    def forget_n(self, model: str) -> None:
        """`model` here returned fewer choices than asked or rejected `n`: from now on its
        calls go as parallel single requests."""
        with self._lock:
            self.n_ignored.add(model)


_endpoints: dict[str, Endpoint] = {}
_registry_lock = threading.Lock()


def endpoint(base_url: str) -> Endpoint:
    """The one `Endpoint` of `base_url` in this process."""
    found = _endpoints.get(base_url)
    if found is None:
        with _registry_lock:
            found = _endpoints.setdefault(base_url, Endpoint(base_url))
    return found


def forget_endpoints() -> None:
    """Forget every endpoint's learned limits and `n` memory (a test's fresh start)."""
    with _registry_lock:
        _endpoints.clear()
