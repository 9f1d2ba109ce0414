"""The lean transport's own HTTP/1.1 client (models/http1.py), what a plain `http://` endpoint
with no proxy is sent through: each response shape a server may send is read whole (a length,
chunked, to the close, compressed, after an interim 1xx), a connection is reused only when the
response left it sound, and every malformed or cut response is one counted, failed request.

The server here answers each request with scripted raw bytes, on 127.0.0.1, and counts the
connections it accepted (the faults of tests/fake_openai.py cover the deadline and the caps)."""

from __future__ import annotations

import asyncio
import gzip
import socket
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from thoughtgraph.errors import FatalModelError, ModelError
from thoughtgraph.models import http1, inflight
from thoughtgraph.models.openai import OpenAIModel
from thoughtgraph.spend.budget import Meter
from thoughtgraph.spend.ledger import CallLedger
from thoughtgraph.spend.usage import Usage

from .raw_http import RawServer, answer, response

PROMPT = "Sort the list.\n<part>[5, 3, 9, 1]</part>"


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    inflight.forget_endpoints()


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[RawServer] = []

    def start(*script: bytes | str) -> RawServer:
        servers.append(RawServer(list(script)))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def ask(server: RawServer, times: int = 1, **options: Any) -> tuple[list[Any], CallLedger]:
    """`times` requests in a row on one loop: each one's answer text or its ModelError."""
    ledger = CallLedger(Meter(), lambda count: Usage())
    model = OpenAIModel("m", base_url=server.base_url, **{"max_retries": 0, **options})

    async def run() -> list[Any]:
        found: list[Any] = []
        for _ in range(times):
            try:
                found.append((await model.complete(PROMPT, recorder=ledger))[0].text)
            except ModelError as exc:
                found.append(exc)
        return found

    return asyncio.run(run()), ledger


def test_requests_in_a_row_share_one_connection(serve) -> None:
    server = serve()
    found, ledger = ask(server, 3)
    assert found == ["[1, 3, 5, 9]"] * 3
    assert server.connections == 1 and len(server.requests) == 3
    assert ledger.meter.requests == 3
    head = server.requests[0].decode()
    assert head.startswith("POST /v1/chat/completions HTTP/1.1\r\n")
    assert f"Host: 127.0.0.1:{server.port}\r\n" in head
    assert "Authorization: Bearer sk-no-key-required\r\n" in head


def test_a_query_in_the_url_goes_on_the_request_line_percent_encoded(serve) -> None:
    # a space or a non-ASCII letter as written split or garbled the request line
    server = serve()
    server.base_url += "?api-version=2024 preview&who=z\u00e9&ok=a%20b/c?d"
    found, _ = ask(server)
    assert found == ["[1, 3, 5, 9]"]
    line = server.requests[0].split(b"\r\n")[0]
    assert line == (
        b"POST /v1/chat/completions?api-version=2024%20preview&who=z%C3%A9&ok=a%20b/c?d HTTP/1.1"
    )


def test_a_chunked_body_with_extensions_and_trailers_is_read_whole(serve) -> None:
    body = answer("[1, 2, 3]")
    chunks = b"".join(b"%x;ext=1\r\n%b\r\n" % (len(p), p) for p in (body[:7], body[7:]))
    raw = response(
        chunks + b"0\r\nX-Trailer: t\r\n\r\n", "Transfer-Encoding: chunked", length=False
    )
    server = serve(raw)
    found, _ = ask(server, 2)
    assert found == ["[1, 2, 3]", "[1, 3, 5, 9]"] and server.connections == 1


@pytest.mark.parametrize(
    ("coding", "pack"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),  # zlib-wrapped, as the RFC says
        ("deflate", lambda data: zlib.compress(data, wbits=-15)),  # raw, as some servers send
    ],
)
def test_a_compressed_body_is_inflated(serve, coding, pack) -> None:
    server = serve(response(pack(answer("[4, 5]")), f"Content-Encoding: {coding}"))
    found, _ = ask(server)
    assert found == ["[4, 5]"]
    assert b"Accept-Encoding: gzip, deflate\r\n" in server.requests[0]


def test_a_zlib_deflate_body_whose_first_chunk_is_one_byte_is_inflated(serve) -> None:
    packed = zlib.compress(answer("[4, 5]"))  # the zlib header is told by its first two bytes
    chunks = b"1\r\n%b\r\n%x\r\n%b\r\n0\r\n\r\n" % (packed[:1], len(packed) - 1, packed[1:])
    raw = response(chunks, "Content-Encoding: deflate", "Transfer-Encoding: chunked", length=False)
    server = serve(raw)
    found, _ = ask(server)
    assert found == ["[4, 5]"]


def test_an_interim_response_is_skipped(serve) -> None:
    server = serve(b"HTTP/1.1 100 Continue\r\n\r\n" + response(answer("[7]")))
    found, _ = ask(server)
    assert found == ["[7]"]


def test_a_body_that_runs_to_the_close_is_read_and_the_connection_not_reused(serve) -> None:
    closing = response(answer("[8]"), "Connection: close", length=False) + b"<close>"
    server = serve(closing)
    found, _ = ask(server, 2)
    assert found == ["[8]", "[1, 3, 5, 9]"] and server.connections == 2


@pytest.mark.parametrize(
    "first",
    [
        response(answer(), "Connection: close") + b"<close>",  # said, then closed
        response(answer(), status="200 OK").replace(b"HTTP/1.1", b"HTTP/1.0") + b"<close>",
    ],
)
def test_a_connection_the_server_closes_after_answering_is_not_reused(serve, first) -> None:
    server = serve(first)
    found, ledger = ask(server, 2)
    assert found == ["[1, 3, 5, 9]"] * 2 and server.connections == 2
    assert [a.outcome for a in ledger.attempts] == ["ok", "ok"]


def test_a_pooled_connection_the_server_closed_unannounced_is_not_reused(serve) -> None:
    # The server hangs up after a whole HTTP/1.1 response that did not say so, and the next
    # request is sent before the event loop has read that end: reusing the connection had the
    # request fail and be counted (3 requests for the 2 the server saw), as httpx never does.
    server = serve(response(answer("[6]")) + b"<close>")
    ledger = CallLedger(Meter(), lambda count: Usage())
    model = OpenAIModel("m", base_url=server.base_url, max_retries=1)

    async def run() -> list[str]:
        first = (await model.complete(PROMPT, recorder=ledger))[0].text
        server.hung_up.acquire()  # blocks the loop: asyncio has not seen the hang-up yet
        return [first, (await model.complete(PROMPT, recorder=ledger))[0].text]

    assert asyncio.run(run()) == ["[6]", "[1, 3, 5, 9]"]
    assert len(server.requests) == 2 and server.connections == 2
    assert ledger.meter.requests == 2
    assert [a.outcome for a in ledger.attempts] == ["ok", "ok"]


def test_a_connection_idle_too_long_is_not_reused(serve, monkeypatch) -> None:
    monkeypatch.setattr(http1, "KEEP_IDLE", 0.0)
    server = serve()
    found, _ = ask(server, 2)
    assert found == ["[1, 3, 5, 9]"] * 2 and server.connections == 2


@pytest.mark.parametrize(
    ("raw", "cause"),
    [
        ("close", "ServerDisconnectedError"),  # hung up with no answer
        (response(answer())[:40] + b"<close>", "ServerDisconnectedError"),  # in the headers
        (response(answer())[:-5] + b"<close>", "ClientPayloadError"),  # the body cut short
        (b"HTTP/1.1 2OO OK\r\n\r\n", "BadStatusLine"),
        (b"SMTP ready\r\n\r\n", "BadStatusLine"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "BadHttpMessage"),
        (response(answer()).replace(b"Content-Length: ", b"Content-Length: -"), "BadHttpMessage"),
        # digits to str.isdigit but not to int(): a ValueError escaped as a traceback
        (b"HTTP/1.1 200 OK\r\nContent-Length: \xb2\r\n\r\nab", "BadHttpMessage"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: \xb2, \xb2\r\n\r\nab", "BadHttpMessage"),
        (b"HTTP/1.1 2\xb20 OK\r\nContent-Length: 2\r\n\r\nab", "BadStatusLine"),
        (response(b"zz\r\nab\r\n0\r\n\r\n", "Transfer-Encoding: chunked"), "TransferEncodingError"),
        (response(answer(), "Content-Encoding: br"), "ContentEncodingError"),
        (
            response(b"2\r\nab\r\n0\r\n\r\n", "Transfer-Encoding: gzip, chunked"),
            "TransferEncodingError",
        ),
        (response(answer(), "Transfer-Encoding: xchunked"), "TransferEncodingError"),
        (response(b"not gzip at all", "Content-Encoding: gzip"), "ContentEncodingError"),
        (b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * (http1.MAX_HEAD + 10), "LineTooLong"),
        # no end but the deadline before: interim responses, trailer fields without end
        (b"HTTP/1.1 100 Continue\r\n\r\n" * (http1.MAX_HEAD // 20), "LineTooLong"),
        (
            response(
                b"0\r\n" + b"X-T: t\r\n" * (http1.MAX_HEAD // 7), "Transfer-Encoding: chunked"
            ),
            "LineTooLong",
        ),
    ],
)
def test_a_broken_response_is_one_counted_failed_request(serve, raw, cause) -> None:
    server = serve(raw)
    found, ledger = ask(server)
    assert isinstance(found[0], ModelError)
    assert (
        str(found[0]) == f"the connection to {server.base_url} failed ({cause}) (after 0 retries)"
    )
    assert [a.outcome for a in ledger.attempts] == ["connection"]
    assert ledger.meter.requests == 1


def test_after_a_broken_response_the_next_request_gets_a_new_connection(serve) -> None:
    server = serve(response(answer())[:-5] + b"<close>")
    found, _ = ask(server, 2)
    assert isinstance(found[0], ModelError) and found[1] == "[1, 3, 5, 9]"
    assert server.connections == 2


def test_bytes_past_the_response_drop_the_connection(serve) -> None:
    server = serve(response(answer("[2]")) + b"HTTP/1.1 200 OK\r\n")  # a second, unasked reply
    found, _ = ask(server, 2)
    assert found == ["[2]", "[1, 3, 5, 9]"] and server.connections == 2


def test_a_closed_port_is_unreachable_and_not_counted() -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    ledger = CallLedger(Meter(), lambda count: Usage())
    model = OpenAIModel("m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)

    async def run() -> Exception:
        with pytest.raises(FatalModelError) as caught:
            await model.complete(PROMPT, recorder=ledger)
        return caught.value

    error = asyncio.run(run())
    assert "cannot reach the endpoint" in str(error)
    assert ledger.meter.requests == 0


def test_headers_are_read_case_insensitively(serve) -> None:
    raw = response(b'{"error": {"message": "slow down"}}', "RETRY-AFTER: 0", status="429 Busy")
    server = serve(raw)
    found, ledger = ask(server, 1, max_retries=1)
    assert found == ["[1, 3, 5, 9]"]  # retried after the 429, at once
    assert [a.outcome for a in ledger.attempts] == ["HTTP 429", "ok"]
    headers = http1.Headers({"retry-after": "3"})
    assert headers["Retry-After"] == "3" and "RETRY-after" in headers and len(headers) == 1


def test_connections_past_the_limit_wait_for_one_to_be_free(serve, monkeypatch) -> None:
    monkeypatch.setattr(http1, "LIMIT", 2)
    server = serve()
    model = OpenAIModel("m", base_url=server.base_url, max_retries=0)

    async def at_once() -> list[str]:
        answers = await asyncio.gather(*(model.complete(PROMPT) for _ in range(8)))
        return [a[0].text for a in answers]

    assert asyncio.run(at_once()) == ["[1, 3, 5, 9]"] * 8
    assert server.connections == 2 and len(server.requests) == 8
