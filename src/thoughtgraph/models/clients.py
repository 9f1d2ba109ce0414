"""The HTTP clients of OpenAI-compatible endpoints: one per endpoint, reused, closed on its loop.

A client (`transport.LeanClient`, or `transport.SdkClient` around the SDK's `AsyncOpenAI`) holds
a connection pool. Building an SSL context loads the CA bundle: tens of milliseconds, which was
most of the CPU of a small solve over HTTP when every `solve()` built its own. So:

- the SSL context is built once per process (and only for an https endpoint) and shared by
  every client;
- there is one client per endpoint (base URL, key, timeout, transport) and event loop, reused by
  every model, `solve()` call and eval pair on that loop. Its connections are bound to the loop
  that opened them, so another loop (the next `asyncio.run`, Jupyter's helper thread) gets its
  own client, built in well under a millisecond from the shared SSL context;
- a client is closed on its own loop: by `aclose_loop()` / `OpenAIModel.aclose()`, or when the
  loop shuts down (`asyncio.run` finalises async generators, and each client has one parked on
  its loop for that). A client whose loop closed without that is dropped, never awaited on
  another loop.

The pool holds the key only as a digest, so no dump of it can show the key.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ssl
import threading
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from thoughtgraph.models.transport import Client

# (base_url, sha256 of the key, timeout, transport)
Key = tuple[str, str, float, str]

_lock = threading.Lock()
_ssl_context: ssl.SSLContext | None = None
_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Key, _Entry]] = (
    weakref.WeakKeyDictionary()
)
built = 0  # clients built in this process (what a test or bench counts)


@dataclass
class _Entry:
    client: Client  # transport.LeanClient or transport.SdkClient
    closer: AsyncIterator[None]  # parked on the loop: closes the client when the loop shuts down


def key_digest(api_key: str) -> str:
    """The digest the pool holds of a key (a caller that asks often keeps it: `OpenAIModel`)."""
    return hashlib.sha256(api_key.encode()).hexdigest()


def client_for(
    base_url: str, api_key: str, timeout: float, transport: str, digest: str | None = None
) -> Client:
    """The running loop's client for this endpoint, built on first use. `digest` is
    `key_digest(api_key)` when the caller has it: every request asks, and hashing the key
    each time was a twentieth of a request's client CPU."""
    loop = asyncio.get_running_loop()
    key: Key = (base_url, digest or key_digest(api_key), timeout, transport)
    pool = _pools.get(loop)
    if pool is None:
        pool = _pools[loop] = {}
    entry = pool.get(key)
    if entry is None or entry.client.is_closed():
        entry = pool[key] = _build(base_url, api_key, timeout, transport)
    return entry.client


async def aclose_loop() -> None:
    """Close every client of the running loop (later calls on this loop build new ones)."""
    pool = _pools.pop(asyncio.get_running_loop(), {})
    for entry in pool.values():
        await _close(entry)


async def aclose(base_url: str, api_key: str, timeout: float, transport: str) -> None:
    """Close the running loop's client for this endpoint, if it has one."""
    key: Key = (base_url, key_digest(api_key), timeout, transport)
    entry = _pools.get(asyncio.get_running_loop(), {}).pop(key, None)
    if entry is not None:
        await _close(entry)


def open_clients() -> int:
    """How many pooled clients are open, over all live loops."""
    return sum(
        not entry.client.is_closed() for pool in list(_pools.values()) for entry in pool.values()
    )


def _build(base_url: str, api_key: str, timeout: float, transport: str) -> _Entry:
    global built
    from thoughtgraph.models.transport import LeanClient, SdkClient

    kind = SdkClient if transport == "sdk" else LeanClient
    secure = base_url.lower().startswith("https:")
    client = kind(base_url, api_key, timeout, shared_ssl_context() if secure else None)
    closer = _close_at_shutdown(client)
    _park(closer)
    built += 1
    return _Entry(client, closer)


def shared_ssl_context() -> ssl.SSLContext:
    """The SSL context every client shares: the system's defaults with certifi's CA bundle
    (what the SDK's HTTP library loads) when certifi is installed."""
    global _ssl_context
    with _lock:
        if _ssl_context is None:
            try:
                import certifi

                _ssl_context = ssl.create_default_context(cafile=certifi.where())
            except ImportError:
                _ssl_context = ssl.create_default_context()
        return _ssl_context


async def _close_at_shutdown(client: Client) -> AsyncIterator[None]:
    try:
        yield
    finally:
        if not client.is_closed():
            await client.close()


def _park(closer: AsyncIterator[None]) -> None:
    """Run the closer to its `yield` now. Its first step registers it with the running loop's
    async-generator hooks, so `asyncio.run` calls its `aclose()` before closing the loop."""
    with contextlib.suppress(StopIteration):
        anext(closer).send(None)  # type: ignore[attr-defined]


async def _close(entry: _Entry) -> None:
    if not entry.client.is_closed():
        await entry.client.close()
    await entry.closer.aclose()  # type: ignore[attr-defined]
