"""HTTP/1.1 over asyncio's own sockets: the lean transport's client for a plain `http://`
endpoint that no proxy stands in front of (a server on this machine or this network).

aiohttp costs about 0.12 ms of CPU per request beyond the socket calls themselves (its request
and response objects, timers, traces, cookie jar, payload writers), more than the whole rest of
a request's path; a local server answering thousands of requests a second makes that the run's
bottleneck (docs/benchmarks.md). Here a request is one prepared head and body written to a
pooled keep-alive connection, and the response one pass over what the socket delivered:

- the status line and headers, at most `MAX_HEAD` bytes (1xx responses are skipped, at most
  `MAX_HEAD` bytes of them; a chunked body's trailer fields are skipped, as many at most);
- the body by its `Content-Length`, chunked, or read until the server closes the connection,
  decompressed (gzip, deflate) as it arrives and never more than the size cap (`TooLarge`);
- a connection goes back to the pool only when its response was whole and the server keeps it
  open (HTTP/1.1 without `Connection: close`), and is dropped after `KEEP_IDLE` seconds idle
  or when its socket turns readable while idle (the server hung up, or spoke out of turn);
  at most `LIMIT` are open at once (a request past it waits for one), as with aiohttp.

The failures are `wire`'s, named as aiohttp names them where the meaning is the same
(`ServerDisconnectedError`: the server closed or reset the connection before a response;
`ClientPayloadError`: a body cut short). The caller (`transport.LeanClient`) holds the deadline,
and tells a connection not made in time (`Pool.connection`) from a response not whole in time
(`Pool.exchange`); anything that interrupts an exchange (the deadline, a cancellation, a failure)
drops its connection.
"""

from __future__ import annotations

import asyncio
import collections
import select
import time
import zlib
from collections.abc import Iterator, Mapping
from typing import Any

from thoughtgraph.models.wire import Broken, Reply, TooLarge, Unreachable

MAX_HEAD = 64 * 1024
"""The longest status line plus headers read (aiohttp's limit is 8 KiB a line)."""
KEEP_IDLE = 15.0
"""Seconds an idle connection is kept for the next request (as aiohttp keeps one)."""
LIMIT = 1000
"""The most connections open (or opening) at once per pool, as aiohttp's; a request past it
waits for one to be free (the run's concurrency is the cap that matters: 16 by default)."""
_PAUSE = 2**20  # buffered bytes past which the socket is not read until the reader catches up
_NO_BODY = (204, 304)


class Headers(Mapping[str, str]):
    """A response's headers, case-insensitive; a repeated header's values joined by ", "."""

    __slots__ = ("_items",)

    def __init__(self, items: dict[str, str]) -> None:
        self._items = items  # lower-cased names

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()]

    def get(self, name: str, default: Any = None) -> Any:
        return self._items.get(name.lower(), default)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Headers({self._items!r})"


class _Connection(asyncio.Protocol):
    """One keep-alive connection: what the socket delivered, and a waiter woken by more."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.closed = False  # the server closed its side, or the connection was lost
        self.paused = False
        self.idle_since = 0.0
        self._waiter: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > _PAUSE and not self.paused and self.transport is not None:
            self.transport.pause_reading()  # the cap, not the sender, decides what is read
            self.paused = True
        self._wake()

    def eof_received(self) -> bool:
        self.closed = True
        self._wake()
        return False  # close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True  # closed or reset alike: what was read so far tells what is missing
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def more(self) -> bool:
        """Wait for bytes past those buffered; False when none will come (the server closed
        before this call: the caller has seen everything it sent)."""
        if self.closed:
            return False
        if self.paused and self.transport is not None:
            self.paused = False
            self.transport.resume_reading()
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None
        return True

    def usable(self) -> bool:
        transport = self.transport
        return not self.closed and transport is not None and not transport.is_closing()

    def readable(self) -> bool:
        """Whether the socket holds bytes or an end the event loop has not read yet: on an idle
        connection either means it cannot carry a request (a server that hung up just after
        answering, with no `Connection: close`, is seen here, not by a failed request)."""
        sock = self.transport.get_extra_info("socket") if self.transport is not None else None
        if sock is None:
            return True
        try:
            return _readable(sock.fileno())
        except (OSError, ValueError):  # closed under us
            return True

    def drop(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()


def _readable(fd: int) -> bool:
    """Whether `fd` can be read without waiting: poll, which takes any descriptor (select
    refuses those past 1023), or select where there is no poll (Windows)."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    return bool(select.select([fd], [], [], 0)[0])


class Pool:
    """The keep-alive connections to one host and port, on one event loop."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self._idle: list[_Connection] = []
        self._open: set[_Connection] = set()
        self._opening = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self.closed = False

    async def connection(self) -> _Connection:
        """An idle connection, else a new one (`Unreachable` when none can be made), waiting
        while `LIMIT` are open."""
        while True:
            conn = self._idle_connection()
            if conn is not None:
                return conn
            if len(self._open) + self._opening < LIMIT:
                return await self._connect()
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except BaseException:
                if waiter.done() and not waiter.cancelled():
                    self._wake_one()  # woken, then cancelled: the turn passes on
                raise

    def _wake_one(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    async def exchange(
        self, conn: _Connection, request: bytes, max_bytes: int
    ) -> tuple[Reply, str]:
        """Send `request` (head and body) on `conn`; the whole response and its reason phrase.
        The connection goes back to the pool only after a whole response that left it open."""
        try:
            assert conn.transport is not None
            conn.transport.write(request)
            reply, reason, keep = await _response(conn, max_bytes)
        except BaseException:
            self._forget(conn)
            raise
        if keep and not self.closed and conn.usable():
            conn.idle_since = time.monotonic()
            self._idle.append(conn)
            self._wake_one()
        else:
            self._forget(conn)
        return reply, reason

    def _idle_connection(self) -> _Connection | None:
        now = time.monotonic()
        while self._idle:
            conn = self._idle.pop()
            fresh = now - conn.idle_since < KEEP_IDLE
            if fresh and conn.usable() and not conn.buffer and not conn.readable():
                return conn
            self._forget(conn)  # closed by the server, spoke out of turn, or idle too long
        return None

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        self._opening += 1
        try:
            _, conn = await loop.create_connection(_Connection, self.host, self.port)
        except OSError as exc:  # refused, host not found, no route
            self._opening -= 1
            self._wake_one()  # a place came free: a waiter tries for itself
            raise Unreachable(type(exc).__name__) from None
        except BaseException:
            self._opening -= 1
            self._wake_one()
            raise
        self._opening -= 1
        self._open.add(conn)
        return conn

    def _forget(self, conn: _Connection) -> None:
        conn.drop()
        if conn in self._open:
            self._open.discard(conn)
            self._wake_one()

    def close(self) -> None:
        self.closed = True
        for conn in list(self._open):
            self._forget(conn)
        self._idle.clear()


async def _response(conn: _Connection, max_bytes: int) -> tuple[Reply, str, bool]:
    """The response on `conn`: (the reply, its reason phrase, whether the connection can carry
    the next request)."""
    interim = 0  # bytes of 1xx heads so far: an endless run of them is a head too long
    while True:
        head = await _head(conn)
        version, status, reason, headers = _parse_head(head)
        if not 100 <= status < 200:
            break
        interim += len(head) + 4
        if interim > MAX_HEAD:
            raise Broken("LineTooLong")
    body = _Body(headers.get("content-encoding"), max_bytes)
    keep = _keeps_alive(version, headers)
    chunked = _chunked_coding(headers.get("transfer-encoding"))
    length = headers.get("content-length")
    if status in _NO_BODY:
        pass
    elif chunked:
        await _chunked(conn, body)
    elif length is not None:
        size = _length(length)
        if size > max_bytes:
            raise TooLarge(max_bytes)
        await _exactly(conn, size, body)
    else:  # the body runs until the server closes the connection
        keep = False
        await _until_closed(conn, body)
    if conn.buffer:  # bytes past the response: the connection cannot be trusted again
        keep = False
    return Reply(status, headers, body.whole()), reason, keep


async def _head(conn: _Connection) -> bytes:
    buffer = conn.buffer
    searched = 0
    while True:
        end = buffer.find(b"\r\n\r\n", max(0, searched - 3))
        if end >= 0:
            head = bytes(buffer[:end])
            del buffer[: end + 4]
            return head
        searched = len(buffer)
        if searched > MAX_HEAD:
            raise Broken("LineTooLong")
        if not await conn.more():
            raise Broken("ServerDisconnectedError")


def _parse_head(head: bytes) -> tuple[str, int, str, Headers]:
    lines = head.decode("latin-1").split("\r\n")
    version, _, rest = lines[0].partition(" ")
    code, _, reason = rest.partition(" ")
    if not version.startswith("HTTP/1.") or len(code) != 3 or not _digits(code):
        raise Broken("BadStatusLine")
    items: dict[str, str] = {}
    name = ""
    for line in lines[1:]:
        if line[:1] in (" ", "\t") and name:  # an obsolete folded line: more of the last value
            items[name] += " " + line.strip()
            continue
        raw, colon, value = line.partition(":")
        if not colon or not raw or raw != raw.strip():
            raise Broken("BadHttpMessage")
        name = raw.lower()
        value = value.strip()
        items[name] = f"{items[name]}, {value}" if name in items else value
    return version, int(code), reason, Headers(items)


def _chunked_coding(said: str | None) -> bool:
    """Whether the body is chunked; a transfer coding other than chunked (gzip, "xchunked")
    is one this client cannot undo: the response is refused, not read as something else."""
    if said is None:
        return False
    codings = [t.strip() for t in said.lower().split(",") if t.strip()]
    if codings and all(coding in ("chunked", "identity") for coding in codings):
        return "chunked" in codings
    raise Broken("TransferEncodingError")


def _keeps_alive(version: str, headers: Headers) -> bool:
    said = headers.get("connection")
    if said is None:
        return version != "HTTP/1.0"
    tokens = {t.strip() for t in said.lower().split(",")}
    if version == "HTTP/1.0":
        return "keep-alive" in tokens
    return "close" not in tokens


def _digits(text: str) -> bool:
    """Whether `text` is ASCII digits only: str.isdigit also takes "\u00b2", which int() refuses."""
    return text.isascii() and text.isdigit()


def _length(value: str) -> int:
    if _digits(value):
        return int(value)
    values = {v.strip() for v in value.split(",")}  # "5, 5" is one length said twice
    if len(values) != 1 or not _digits(next(iter(values))):
        raise Broken("BadHttpMessage")
    return int(values.pop())


async def _exactly(conn: _Connection, size: int, body: _Body) -> None:
    """`size` bytes of body (a chunk's, or a declared length's), fed to `body` as they come."""
    buffer = conn.buffer
    while size:
        if not buffer:
            if not await conn.more():
                raise Broken("ClientPayloadError")
            continue
        piece = bytes(buffer[:size])
        del buffer[: len(piece)]
        size -= len(piece)
        body.feed(piece)


async def _line(conn: _Connection) -> bytes:
    buffer = conn.buffer
    while True:
        end = buffer.find(b"\r\n")
        if end >= 0:
            line = bytes(buffer[:end])
            del buffer[: end + 2]
            return line
        if len(buffer) > MAX_HEAD:
            raise Broken("LineTooLong")
        if not await conn.more():
            raise Broken("ClientPayloadError")


_HEX = frozenset(b"0123456789abcdefABCDEF")


async def _chunked(conn: _Connection, body: _Body) -> None:
    while True:
        size_text = (await _line(conn)).split(b";", 1)[0].strip()
        if not size_text or not _HEX.issuperset(size_text):
            raise Broken("TransferEncodingError")
        size = int(size_text, 16)
        if size == 0:
            trailers = 0  # the trailer fields, up to a blank line, at most MAX_HEAD bytes
            while line := await _line(conn):
                trailers += len(line) + 2
                if trailers > MAX_HEAD:
                    raise Broken("LineTooLong")
            return
        await _exactly(conn, size, body)
        if await _line(conn):
            raise Broken("TransferEncodingError")


async def _until_closed(conn: _Connection, body: _Body) -> None:
    buffer = conn.buffer
    while True:
        if buffer:
            piece = bytes(buffer)
            buffer.clear()
            body.feed(piece)
        if not await conn.more():
            return


class _Body:
    """The body as it arrives, decompressed, never more than `limit` bytes of it."""

    def __init__(self, encoding: str | None, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self.parts: list[bytes] = []
        coding = (encoding or "identity").strip().lower()
        self._inflate: Any = None
        self._coding = coding
        self._held = b""  # a deflate body's first byte, until the second tells its wrapping
        if coding in ("gzip", "x-gzip"):
            self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif coding not in ("identity", "deflate"):
            raise Broken("ContentEncodingError")

    def feed(self, data: bytes) -> None:
        if self._coding == "deflate" and self._inflate is None:
            # zlib-wrapped as the RFC says, or the raw deflate some servers send: told by the
            # first two bytes, which may come in two pieces (a 1-byte chunk)
            data = self._held + data
            if len(data) < 2:
                self._held = data
                return
            self._held = b""
            self._choose_deflate(data)
        if self._inflate is not None:
            try:
                data = self._inflate.decompress(data, self.limit - self.size + 1)
            except zlib.error:
                raise Broken("ContentEncodingError") from None
        self._add(data)

    def _choose_deflate(self, data: bytes) -> None:
        wrapped = len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
        self._inflate = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)

    def _add(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.limit:
            raise TooLarge(self.limit)
        self.parts.append(data)

    def whole(self) -> bytes:
        if self._held:  # a 1-byte deflate body: raw deflate, or nothing that inflates
            held, self._held = self._held, b""
            self._choose_deflate(held)
            self.feed(held)
        if self._inflate is not None:
            try:
                self._add(self._inflate.flush())
            except zlib.error:
                raise Broken("ContentEncodingError") from None
        return self.parts[0] if len(self.parts) == 1 else b"".join(self.parts)
