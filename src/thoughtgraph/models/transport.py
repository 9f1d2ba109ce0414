"""The HTTP round trip of one chat-completions request, bounded in time and size.

`OpenAIModel` owns everything around a request (retries, accounting, error messages, the `n`
fallback); a transport only sends the JSON body and brings back the status, the headers and
the body, or says how it failed, in transport-neutral terms (`Timeout`, `Unreachable`,
`Broken`, `TooLarge`). Two transports do that:

- `lean` (the default): aiohttp with orjson. About a tenth of the client CPU of the SDK per
  request (bench/transport.py): a local server answering thousands of requests a second is no
  longer starved by its one client;
- `sdk`: the official openai SDK's `AsyncOpenAI` (its own retries off), for a provider quirk
  the lean path does not know; `transport=sdk` in the model spec.

Both bound a response the same way, whatever the server's pace:

- a whole-response deadline: connect, headers and body together within `timeout` seconds (a
  body trickled at a few bytes a second, headers one byte at a time, an endless chunked body:
  each ends at the deadline);
- a size cap: a body past `max_bytes` (default `DEFAULT_MAX_RESPONSE_BYTES`) is not read further,
  its connection is dropped and the attempt fails (`TooLarge`), so memory stays bounded. A
  Content-Length past the cap fails before any of the body is read. An error status's body is
  read the same way (the SDK would read it whole: `SdkClient`);
- no redirect is followed: a 3xx comes back as it is, for `OpenAIModel` to refuse in one line
  (followed, one counted request reached a second server, and a server redirecting to itself
  drew 10 to 21 requests for each one counted).

A client holds one connection pool per endpoint and event loop (see `clients`).
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import logging
import ssl
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from thoughtgraph.io.strictload import read_json

if TYPE_CHECKING:
    import aiohttp
    from yarl import URL

DEFAULT_MAX_RESPONSE_BYTES = 8 * 2**20
"""The largest response body read (8 MiB: thousands of times a long answer)."""
TRANSPORTS = ("lean", "sdk")
_CHUNK = 2**16
_USER_AGENT = "thoughtgraph"
logger = logging.getLogger(__name__)


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


class Client(Protocol):
    """What `OpenAIModel` and `clients` need of a transport's client (`LeanClient`,
    `SdkClient`): one endpoint's connection pool on one event loop."""

    timeout: float

    def is_closed(self) -> bool: ...

    async def close(self) -> None: ...

    async def post(self, path: str, payload: Mapping[str, object], max_bytes: int) -> Reply:
        """The whole response to POST `payload` (JSON); raises a `TransportError`."""
        ...


def dumps(payload: object) -> bytes:
    """JSON bytes of anything orjson writes (the request body)."""
    import orjson

    return orjson.dumps(payload)


def loads(body: bytes | str) -> Any:
    """JSON as any server may send it: orjson, falling back on the standard library's, bounded
    (`io.strictload.read_json`), for what orjson refuses and JSON allows (an escaped lone
    surrogate, `"\\ud800"`, an integer past 64 bits). Anything else, a body nested 200,000
    deep included, is a `ValueError`."""
    import orjson

    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return read_json(body)


class LeanClient:
    """aiohttp + orjson: POST a JSON body to `base_url + path` and read the whole answer."""

    def __init__(
        self, base_url: str, api_key: str, timeout: float, ssl_context: ssl.SSLContext | None = None
    ) -> None:
        import aiohttp
        from yarl import URL

        from thoughtgraph.models.secrets import mask_urls

        url = URL(base_url)
        # what -v logs of each request, as httpx does: the URL with its credentials masked
        self._shown = mask_urls(base_url.partition("?")[0].rstrip("/"))
        self._query = "?" + mask_urls(base_url).partition("?")[2] if "?" in base_url else ""
        auth = "Bearer " + api_key
        if url.user is not None:  # user:password@ in the URL wins, as with httpx: Basic auth
            auth = basic_authorization(url.user or "", url.password or "")
            url = url.with_user(None)
        elif api_key == KEYLESS:
            auth = netrc_authorization(base_url) or auth
        self._base = url
        # the proxy of HTTP(S)_PROXY / ALL_PROXY unless NO_PROXY spares the host, found once:
        # aiohttp's `trust_env` looked it up in a thread for every request, and read ~/.netrc
        # for credentials that then clashed with our Authorization header (a ValueError)
        self._proxy, self._proxy_auth = _env_proxy(url)
        self.timeout = timeout
        self._headers = {
            "Authorization": auth,
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": _USER_AGENT,
        }
        connector = aiohttp.TCPConnector(
            limit=1000,  # as the SDK's pool; the real cap is the run's concurrency
            ssl=ssl_context if ssl_context is not None else False,
            enable_cleanup_closed=False,
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=timeout),
            json_serialize=lambda value: dumps(value).decode(),
            auto_decompress=True,
            trust_env=False,  # the proxy is found above, the credentials are ours
        )
        self._urls: dict[str, URL] = {}

    def _url(self, path: str) -> URL:
        url = self._urls.get(path)
        if url is None:
            base = self._base
            url = base.with_path(base.path.rstrip("/") + path).with_query(base.query)
            self._urls[path] = url
        return url

    def is_closed(self) -> bool:
        return bool(self._session.closed)

    async def close(self) -> None:
        await self._session.close()

    async def post(self, path: str, payload: Mapping[str, object], max_bytes: int) -> Reply:
        """The whole response to POST `payload` (JSON); raises a `TransportError`."""
        import aiohttp

        try:
            async with asyncio.timeout(self.timeout):
                response = await self._session.post(
                    self._url(path),
                    data=dumps(payload),
                    headers=self._headers,
                    allow_redirects=False,  # a redirect is the caller's to refuse: see module doc
                    proxy=self._proxy,
                    proxy_auth=self._proxy_auth,
                )
                try:
                    body = await _read(response, max_bytes)
                except BaseException:
                    response.close()  # drop the connection: the rest of the body is not wanted
                    raise
                response.release()
            if logger.isEnabledFor(logging.INFO):
                logger.info(
                    'HTTP Request: POST %s "HTTP/1.1 %d %s"',
                    self._shown + path + self._query,
                    response.status,
                    response.reason,
                )
        except TooLarge:
            raise
        except aiohttp.ConnectionTimeoutError:
            raise Timeout(connected=False) from None
        except TimeoutError:
            raise Timeout() from None
        except aiohttp.ClientConnectorError as exc:
            raise Unreachable(type(exc).__name__) from None
        except (aiohttp.ClientError, OSError) as exc:
            raise Broken(type(exc).__name__) from None
        return Reply(response.status, response.headers, body)


KEYLESS = "sk-no-key-required"
"""The key sent to a key-less endpoint (some proxies insist on some key; servers ignore it)."""


def basic_authorization(user: str, password: str) -> str:
    """The `Authorization` value of HTTP Basic credentials, registered as a secret (a server
    quoting it back must not show it, `secrets.url_secrets`)."""
    from thoughtgraph.models import secrets

    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    secrets.register(password)
    secrets.register(token)
    return "Basic " + token


def netrc_authorization(base_url: str) -> str | None:
    """Basic credentials for the endpoint's host from `~/.netrc` (or `$NETRC`), for an endpoint
    given no key, as curl, requests and aiohttp read them; None without a readable entry."""
    import netrc
    import os
    from pathlib import Path
    from urllib.parse import urlsplit

    host = urlsplit(base_url).hostname
    if host is None:
        return None
    try:
        entry = netrc.netrc(os.environ.get("NETRC") or str(Path.home() / ".netrc"))
        found = entry.authenticators(host)
    except (OSError, RuntimeError, netrc.NetrcParseError):  # none, unreadable, malformed
        return None
    if found is None:
        return None
    login, account, password = found
    return basic_authorization(login or account or "", password or "")


def _env_proxy(url: URL) -> tuple[URL | None, aiohttp.BasicAuth | None]:
    """The proxy the environment names for `url` (none when NO_PROXY spares its host)."""
    from aiohttp.helpers import get_env_proxy_for_url

    try:
        return get_env_proxy_for_url(url)
    except LookupError:
        return None, None


async def _read(response: aiohttp.ClientResponse, max_bytes: int) -> bytes:
    """The body, never more than `max_bytes` of it: a declared length past the cap fails before
    reading; an undeclared one (chunked, or until close) or a compressed one (a small gzip body
    may inflate to gigabytes) is read in chunks, decompressed, up to the cap."""
    length = response.content_length
    if length is not None and length > max_bytes:
        raise TooLarge(max_bytes)
    if length is not None and response.headers.get("Content-Encoding", "identity") == "identity":
        return bytes(await response.read())  # the parser stops at the declared length
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await response.content.read(_CHUNK)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge(max_bytes)
        chunks.append(chunk)


class SdkClient:
    """The openai SDK's `AsyncOpenAI` (own retries off) behind the same interface: the request
    goes by the SDK's request path, its body is streamed so the same caps hold.

    The SDK reads an error body whole before it raises (a gzip bomb in a 500: gigabytes), so a
    response hook on its HTTP client reads any non-2xx body itself, under the same cap
    (`_bounded_error`), and hands it back as `_ErrorReply`; redirects are not followed."""

    def __init__(
        self, base_url: str, api_key: str, timeout: float, ssl_context: ssl.SSLContext | None = None
    ) -> None:
        from openai import AsyncOpenAI, DefaultAsyncHttpxClient

        http = DefaultAsyncHttpxClient(
            verify=ssl_context if ssl_context is not None else True,
            follow_redirects=False,
            event_hooks={"response": [_bounded_error]},
        )
        endpoint, query = split_query(base_url)
        from urllib.parse import urlsplit

        keyless = api_key == KEYLESS and "@" not in urlsplit(base_url).netloc  # URL's creds win
        netrc = netrc_authorization(base_url) if keyless else None
        self.sdk = AsyncOpenAI(
            api_key=api_key,
            base_url=endpoint,
            timeout=timeout,
            max_retries=0,
            http_client=http,
            default_query=query or None,
            default_headers={"Authorization": netrc} if netrc else None,
        )
        self.timeout = timeout

    def is_closed(self) -> bool:
        return bool(self.sdk.is_closed())

    async def close(self) -> None:
        await self.sdk.close()

    async def post(self, path: str, payload: Mapping[str, object], max_bytes: int) -> Reply:
        import openai
        from openai._response import AsyncAPIResponse

        raw = None
        chunks: list[bytes] = []
        cap = _ERROR_CAP.set(max_bytes)
        try:
            async with asyncio.timeout(self.timeout):
                # the SDK's raw-response mode: the body is not read until we read it
                raw = await self.sdk.post(
                    path, body=payload, cast_to=AsyncAPIResponse[bytes], options=_STREAMED
                )
                length = raw.headers.get("content-length")
                if length is not None and length.isdigit() and int(length) > max_bytes:
                    raise TooLarge(max_bytes)
                size = 0
                async for chunk in raw.iter_bytes(_CHUNK):
                    size += len(chunk)
                    if size > max_bytes:
                        raise TooLarge(max_bytes)
                    chunks.append(chunk)
        except _ErrorReply as error:
            return error.reply
        except TooLarge:
            raise
        except openai.APITimeoutError as exc:
            raise Timeout(connected=not _never_connected(exc)) from None
        except TimeoutError:
            raise Timeout() from None
        except openai.APIConnectionError as exc:
            if _refused(exc):
                raise Unreachable(_cause_name(exc)) from None
            raise Broken(_cause_name(exc)) from None
        except openai.OpenAIError as exc:
            raise Broken(type(exc).__name__) from None
        except Exception as exc:  # reading the body raises the HTTP library's own errors
            if type(exc).__module__.split(".")[0] not in ("httpx", "httpx2", "httpcore"):
                raise
            raise Broken(type(exc).__name__) from None
        finally:
            _ERROR_CAP.reset(cap)
            if raw is not None:
                await raw.close()
        assert raw is not None
        return Reply(raw.status_code, raw.headers, b"".join(chunks))


class _ErrorReply(Exception):
    """A non-2xx response, read under the cap by `_bounded_error` before the SDK could read it
    whole: raised through the SDK (which passes on what is not an HTTP library error)."""

    def __init__(self, reply: Reply) -> None:
        super().__init__(f"HTTP {reply.status}")
        self.reply = reply


_ERROR_CAP: contextvars.ContextVar[int] = contextvars.ContextVar(
    "error_cap", default=DEFAULT_MAX_RESPONSE_BYTES
)
"""The size cap of the request being sent (`SdkClient.post` sets it; the hook reads it)."""


class _HttpResponse(Protocol):
    """What the hook reads of the SDK's HTTP library's response (httpx's or httpx2's)."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    def aiter_bytes(self, chunk_size: int | None = None) -> AsyncIterator[bytes]: ...


async def _bounded_error(response: _HttpResponse) -> None:
    """The SDK's HTTP client's response hook: a 2xx body is left for `post` to stream; any other
    is read here, decompressed, up to the cap, and raised as `_ErrorReply` (`TooLarge` past it)."""
    if 200 <= response.status_code < 300:
        return
    limit = _ERROR_CAP.get()
    length = response.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise TooLarge(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes(_CHUNK):
        size += len(chunk)
        if size > limit:
            raise TooLarge(limit)
        chunks.append(chunk)
    raise _ErrorReply(Reply(response.status_code, response.headers, b"".join(chunks)))


_STREAMED: Any = {"headers": {"X-Stainless-Raw-Response": "stream"}, "follow_redirects": False}


def _refused(exc: BaseException) -> bool:
    """True when no connection could be made at all (vs. one that broke mid-request).

    Matched by class name: openai 1.x/2.x raise httpx.ConnectError, 3.x httpx2.ConnectError.
    """
    return _in_chain(exc, lambda e: isinstance(e, ConnectionRefusedError), "ConnectError")


def _never_connected(exc: BaseException) -> bool:
    """True when the connection could not be made in time: the request never left."""
    return _in_chain(exc, lambda e: False, "ConnectTimeout")


def _in_chain(exc: BaseException, test: Callable[[BaseException], bool], name: str) -> bool:
    seen: BaseException | None = exc
    for _ in range(10):  # the chain is short; the bound only guards against cycles
        if seen is None:
            return False
        if test(seen) or type(seen).__name__ == name:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _cause_name(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    return type(cause).__name__ if cause is not None else type(exc).__name__


def split_query(base_url: str) -> tuple[str, dict[str, str]]:
    """The endpoint without its query string, and the query as parameters of every request.

    Azure-style URLs carry `?api-version=...` (or a key); the SDK would append the path after
    the query (`/v1/?api-version=1chat/completions`), so the query is sent on its own instead.
    """
    from urllib.parse import parse_qsl, urlsplit, urlunsplit

    parts = urlsplit(base_url)
    if not parts.query:
        return base_url, {}
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit(parts._replace(query="", fragment="")), query
