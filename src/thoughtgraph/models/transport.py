"""The HTTP round trip of one chat-completions request, bounded in time and size.

`OpenAIModel` owns everything around a request (retries, accounting, error messages, the `n`
fallback); a transport only sends the JSON body and brings back the status, the headers and
the body, or says how it failed, in transport-neutral terms (`Timeout`, `Unreachable`,
`Broken`, `TooLarge`). Two transports do that:

- `lean` (the default): orjson, over `http1` (HTTP/1.1 on asyncio's sockets) to a plain
  `http://` endpoint with no proxy in front of it, over aiohttp to the rest (TLS, a proxy).
  A tenth of the SDK's client CPU per request, or less (bench/transport.py): a local server
  answering thousands of requests a second is no longer starved by its one client;
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
from typing import TYPE_CHECKING, Any, Protocol

from thoughtgraph.io.strictload import read_json
from thoughtgraph.models.wire import Broken, Reply, Timeout, TooLarge, TransportError, Unreachable

if TYPE_CHECKING:
    import aiohttp
    from yarl import URL

    from thoughtgraph.models.http1 import Pool

DEFAULT_MAX_RESPONSE_BYTES = 8 * 2**20
"""The largest response body read (8 MiB: thousands of times a long answer)."""
TRANSPORTS = ("lean", "sdk")
_CHUNK = 2**16
_USER_AGENT = "thoughtgraph"
logger = logging.getLogger(__name__)
__all__ = [  # with the outcomes, `wire`'s, which callers name as `transport.Timeout`
    "DEFAULT_MAX_RESPONSE_BYTES",
    "KEYLESS",
    "TRANSPORTS",
    "Broken",
    "Client",
    "LeanClient",
    "Reply",
    "SdkClient",
    "Timeout",
    "TooLarge",
    "TransportError",
    "Unreachable",
    "basic_authorization",
    "dumps",
    "env_proxy",
    "loads",
    "netrc_authorization",
    "netrc_credentials",
    "split_query",
]


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
    """POST a JSON body to `base_url + path` and read the whole answer, the body written by
    orjson: over `http1` (HTTP/1.1 on asyncio's sockets) to a plain `http://` endpoint that no
    proxy stands in front of, the case where a server answers fast enough for the client's CPU
    to matter; over aiohttp to the rest (TLS, a proxy).

    What the environment says of the endpoint is read once, when the client is built (one per
    endpoint and event loop, `clients`): the proxy (`env_proxy`) and, for an endpoint given
    no key, the `~/.netrc` credentials of its host. aiohttp's `trust_env` looked both up in a
    thread for every request (0.4-0.6 ms each) and its netrc credentials clashed with our
    Authorization header (a ValueError)."""

    def __init__(
        self, base_url: str, api_key: str, timeout: float, ssl_context: ssl.SSLContext | None = None
    ) -> None:
        from urllib.parse import unquote, urlsplit

        from thoughtgraph.models.secrets import mask_urls

        parts = urlsplit(base_url)
        # what -v logs of each request, as httpx does: the URL with its credentials masked
        self._shown = mask_urls(base_url.partition("?")[0].rstrip("/"))
        self._query = "?" + mask_urls(base_url).partition("?")[2] if "?" in base_url else ""
        auth = "Bearer " + api_key
        if parts.username is not None:  # user:password@ in the URL wins, as with httpx: Basic
            auth = basic_authorization(unquote(parts.username), unquote(parts.password or ""))
        elif api_key == KEYLESS:
            auth = netrc_authorization(base_url) or auth
        self.timeout = timeout
        self._headers = {
            "Authorization": auth,
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": _USER_AGENT,
        }
        host = parts.netloc.rpartition("@")[2]
        proxy = env_proxy(parts.scheme, host)
        self._pool: Pool | None = None
        self._session: aiohttp.ClientSession | None = None
        if parts.scheme == "http" and proxy is None and host.isascii() and parts.hostname:
            from thoughtgraph.models.http1 import Pool

            self._pool = Pool(parts.hostname, parts.port or 80)
            self._heads: dict[str, bytes] = {}
            self._target = (_quoted(parts.path.rstrip("/")), _quoted(parts.query, "?"), host)
        else:
            self._open_session(base_url, ssl_context, proxy)

    def _open_session(
        self, base_url: str, ssl_context: ssl.SSLContext | None, proxy: str | None
    ) -> None:
        import aiohttp
        from yarl import URL

        self._base = URL(base_url).with_user(None)  # its credentials are in our header
        self._proxy, proxy_auth = _proxy_settings(proxy)
        # the proxy's credentials: in a plain request's own headers (the proxy reads them), in
        # the CONNECT that opens a tunnel for an https one
        tunnel = self._base.scheme == "https"
        extra = {"Proxy-Authorization": proxy_auth} if proxy_auth else {}
        self._session_headers = self._headers if tunnel else {**self._headers, **extra}
        self._proxy_headers = extra if tunnel and extra else None
        connector = aiohttp.TCPConnector(
            limit=1000,  # as the SDK's pool; the real cap is the run's concurrency
            ssl=ssl_context if ssl_context is not None else False,
            enable_cleanup_closed=False,
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=self.timeout),
            json_serialize=lambda value: dumps(value).decode(),
            auto_decompress=True,
            trust_env=False,  # the proxy and the credentials are found once, above
        )
        self._urls: dict[str, URL] = {}

    def _url(self, path: str) -> URL:
        url = self._urls.get(path)
        if url is None:
            base = self._base
            url = base.with_path(base.path.rstrip("/") + path).with_query(base.query)
            self._urls[path] = url
        return url

    def _head(self, path: str) -> bytes:
        """The request's head up to its Content-Length value, the same for every request."""
        head = self._heads.get(path)
        if head is None:
            base, query, host = self._target
            target = base + _quoted(path) + ("?" + query if query else "")
            lines = [f"POST {target} HTTP/1.1", f"Host: {host}"]
            lines += [f"{name}: {value}" for name, value in self._headers.items()]
            lines += ["Accept-Encoding: gzip, deflate", "Content-Length: "]
            head = self._heads[path] = "\r\n".join(lines).encode("latin-1")
        return head

    def is_closed(self) -> bool:
        if self._pool is not None:
            return self._pool.closed
        assert self._session is not None
        return bool(self._session.closed)

    async def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        if self._session is not None:
            await self._session.close()

    async def post(self, path: str, payload: Mapping[str, object], max_bytes: int) -> Reply:
        """The whole response to POST `payload` (JSON); raises a `TransportError`."""
        if self._pool is not None:
            return await self._post_direct(path, payload, max_bytes)
        return await self._post_aiohttp(path, payload, max_bytes)

    async def _post_direct(self, path: str, payload: Mapping[str, object], max_bytes: int) -> Reply:
        assert self._pool is not None
        body = dumps(payload)
        request = b"%b%d\r\n\r\n%b" % (self._head(path), len(body), body)
        conn = None
        try:
            async with asyncio.timeout(self.timeout):
                conn = await self._pool.connection()
                reply, reason = await self._pool.exchange(conn, request, max_bytes)
        except TimeoutError:
            raise Timeout(connected=conn is not None) from None
        self._log(path, reply.status, reason)
        return reply

    async def _post_aiohttp(
        self, path: str, payload: Mapping[str, object], max_bytes: int
    ) -> Reply:
        import aiohttp

        assert self._session is not None
        try:
            async with asyncio.timeout(self.timeout):
                response = await self._session.post(
                    self._url(path),
                    data=dumps(payload),
                    headers=self._session_headers,
                    allow_redirects=False,  # a redirect is the caller's to refuse: see module doc
                    proxy=self._proxy,
                    proxy_headers=self._proxy_headers,
                )
                try:
                    body = await _read(response, max_bytes)
                except BaseException:
                    response.close()  # drop the connection: the rest of the body is not wanted
                    raise
                response.release()
            self._log(path, response.status, response.reason or "")
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

    def _log(self, path: str, status: int, reason: str) -> None:
        if logger.isEnabledFor(logging.INFO):
            shown = self._shown + path + self._query
            logger.info('HTTP Request: POST %s "HTTP/1.1 %d %s"', shown, status, reason)


def _quoted(part: str, also: str = "") -> str:
    """A URL path (or, with `also="?"`, a query) as a request line carries it: what is not
    allowed there (a space, a non-ASCII letter) percent-encoded, escapes already there kept."""
    from urllib.parse import quote

    return quote(part, safe="/%:@!$&'()*+,;=~" + also)


def env_proxy(scheme: str, host: str) -> str | None:
    """The proxy the environment names for a URL of `scheme` on `host` (`name` or
    `name:port`), read as the standard library reads it: `SCHEME_PROXY` (`HTTP_PROXY`,
    `HTTPS_PROXY`; a lower-case name wins), else `ALL_PROXY`; None when `NO_PROXY` spares the
    host or none is set. In a CGI request (`REQUEST_METHOD` set) `HTTP_PROXY` is not read: a
    client's `Proxy:` header arrives as it."""
    proxies = _environment_proxies()
    proxy = proxies.get(scheme.lower()) or proxies.get("all")
    if proxy is None or _spared(host, proxies.get("no", "")):
        return None
    return proxy


def _environment_proxies() -> dict[str, str]:
    import os

    proxies = {}
    for name, value in os.environ.items():
        name = name.lower()
        if value and name.endswith("_proxy"):
            proxies[name[:-6]] = value
    if "REQUEST_METHOD" in os.environ:
        proxies.pop("http", None)
    for name, value in os.environ.items():
        if name.endswith("_proxy"):  # the lower-case names, read again: they win
            if value:
                proxies[name[:-6]] = value
            else:
                proxies.pop(name[:-6], None)
    return proxies


def _spared(host: str, no_proxy: str) -> bool:
    """Whether NO_PROXY spares `host` (`name[:port]`): `*`, an entry that is the name (with or
    without the port), or a domain the name is in (`example.com` or `.example.com` spares
    `api.example.com`)."""
    import re

    if no_proxy.strip() == "*":
        return True
    host = host.lower()
    split = re.fullmatch(r"(.*):([0-9]*)", host)
    name = split.group(1) if split else host
    for entry in no_proxy.split(","):
        entry = entry.strip().lstrip(".").lower()
        if not entry:
            continue
        if entry in (name, host) or name.endswith("." + entry) or host.endswith("." + entry):
            return True
    return False


def _proxy_settings(proxy: str | None) -> tuple[str | None, str | None]:
    """The proxy URL aiohttp is given (its credentials taken out) and the Proxy-Authorization
    the proxy is sent: the URL's credentials, else a `~/.netrc` entry for the proxy's host
    (registered as secrets). aiohttp speaks to http:// proxies only; another one is ignored, with
    a warning, as aiohttp's own reading of the environment did."""
    if proxy is None:
        return None, None
    from urllib.parse import unquote, urlsplit

    from thoughtgraph.models.secrets import mask_urls

    parts = urlsplit(proxy if "://" in proxy else "http://" + proxy)
    if parts.scheme != "http":
        shown = mask_urls(proxy)
        logger.warning("%s proxies are not supported, ignoring %s", parts.scheme.upper(), shown)
        return None, None
    plain = parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
    found = (
        (unquote(parts.username), unquote(parts.password or ""))
        if parts.username is not None
        else netrc_credentials(plain)
    )
    return plain, None if found is None else basic_authorization(*found)


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
    found = netrc_credentials(base_url)
    return None if found is None else basic_authorization(*found)


def netrc_credentials(url: str) -> tuple[str, str] | None:
    """The login and password `~/.netrc` (or `$NETRC`) holds for the URL's host."""
    import netrc
    import os
    from pathlib import Path
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname
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
    return login or account or "", password or ""


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
