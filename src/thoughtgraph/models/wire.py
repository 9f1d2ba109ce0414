"""What a transport brings back from one request, in terms no HTTP library owns: the whole
response (`Reply`), or how it failed (`Timeout`, `Unreachable`, `Broken`, `TooLarge`).

`transport` (aiohttp, the SDK) and `http1` (plain HTTP/1.1 on asyncio) both speak them;
`OpenAIModel` turns each into its counted attempt and one-line error."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Reply:
    """A whole response: its status, headers (case-insensitive) and body."""

    status: int
    headers: Mapping[str, str]
    body: bytes


class TransportError(Exception):
    """The request got no whole response."""


class Timeout(TransportError):
    """No whole response within the deadline. `connected` is False when no connection could
    be made in time: the request never left (it is not counted)."""

    def __init__(self, connected: bool = True) -> None:
        super().__init__("timeout")
        self.connected = connected


class Unreachable(TransportError):
    """No connection could be made at all (refused, host not found, TLS handshake refused)."""


class Broken(TransportError):
    """The connection broke after the request was sent (reset, closed, a garbled response);
    `cause` names what broke it."""

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


class TooLarge(TransportError):
    """The response body passed the size cap; reading stopped there."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"larger than {limit} bytes")
        self.limit = limit
