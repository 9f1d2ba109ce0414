"""A response is bounded whatever the server does (models/transport.py): `timeout` bounds
connect + headers + body together, `max_response_bytes` bounds the body, and each failure is one
counted, failed request. And llama.cpp's llama-server, which refuses `n > 1` with "Only one
completion choice is allowed" (HTTP 500 or 400), gets parallel singles instead of retries.

Every server here is tests/fake_openai.py on 127.0.0.1; its streaming faults record how much
they wrote and whether the client stayed to the end, so the tests assert what was read, not how
long it took."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import thoughtgraph
from thoughtgraph.cli.main import main
from thoughtgraph.errors import ModelError
from thoughtgraph.io.bounds import MAX_TRACE_TEXT
from thoughtgraph.io.tracefile import read_trace
from thoughtgraph.models import inflight
from thoughtgraph.models.openai import OpenAIModel
from thoughtgraph.spend.budget import Meter
from thoughtgraph.spend.ledger import CallLedger
from thoughtgraph.spend.usage import Usage

from .fake_openai import FakeOpenAI, Fault

PROMPT = "Sort the list.\n<part>[5, 3, 9, 1]</part>"
MIB = 2**20


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"):
        monkeypatch.delenv(name, raising=False)
    inflight.forget_endpoints()


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def counted(model: OpenAIModel, n: int = 1) -> tuple[Any, CallLedger]:
    """`model.complete(PROMPT, n)` under a ledger: (answers or the exception, the ledger)."""
    ledger = CallLedger(Meter(), lambda count: Usage())

    async def call() -> Any:
        try:
            return await model.complete(PROMPT, n, recorder=ledger)
        except ModelError as exc:
            return exc

    return asyncio.run(call()), ledger


def streamed(server: FakeOpenAI) -> tuple[int, bool]:
    """What the server's streaming fault wrote, once its handler has finished (it stops on
    its own: its loop is bounded)."""
    for _ in range(600):
        if server.streamed:
            return server.streamed[0]
        time.sleep(0.05)
    raise AssertionError("the streaming fault never finished")


@pytest.mark.parametrize("transport", ["lean", "sdk"])
@pytest.mark.parametrize("kind", ["trickle_body", "trickle_headers"])
def test_a_trickled_response_ends_at_the_deadline_as_one_failed_request(
    server: FakeOpenAI, transport: str, kind: str
) -> None:
    server.script(Fault(kind, seconds=0.05))  # ~300 bytes at 20 B/s: 15 s if read to the end
    model = OpenAIModel(
        "m", base_url=server.base_url, timeout=0.5, max_retries=0, transport=transport
    )
    error, ledger = counted(model)
    assert isinstance(error, ModelError)
    assert (
        str(error)
        == f"the endpoint at {server.base_url} did not answer within 0.5s (after 0 retries)"
    )
    assert [a.outcome for a in ledger.attempts] == ["timeout"]
    assert ledger.meter.requests == 1
    _, finished = streamed(server)
    assert not finished  # the client left before the response was whole


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_an_endless_chunked_body_stops_at_the_size_cap_and_is_not_retried(
    server: FakeOpenAI, transport: str
) -> None:
    server.script(Fault("endless"))
    model = OpenAIModel(
        "m", base_url=server.base_url, max_retries=2, max_response_bytes=MIB, transport=transport
    )
    error, ledger = counted(model)
    assert isinstance(error, ModelError)
    assert "sent a response larger than 1,048,576 bytes (max_response_bytes)" in str(error)
    assert [a.outcome for a in ledger.attempts] == ["too large"]
    assert ledger.meter.requests == 1 and len(server.requests) == 1  # counted, not retried
    sent, finished = streamed(server)
    # what the client read stopped at the cap: the server could write only the cap plus what
    # the sockets buffer before the client hung up
    assert not finished and sent < 64 * MIB


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_a_compressed_body_is_capped_as_it_inflates(server: FakeOpenAI, transport: str) -> None:
    server.script(Fault("gzip_bomb", body=64 * MIB))  # about 64 KB on the wire
    model = OpenAIModel(
        "m", base_url=server.base_url, max_retries=0, max_response_bytes=MIB, transport=transport
    )
    error, ledger = counted(model)
    assert isinstance(error, ModelError) and "larger than 1,048,576 bytes" in str(error)
    assert [a.outcome for a in ledger.attempts] == ["too large"]


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_an_error_body_is_capped_as_it_inflates(server: FakeOpenAI, transport: str) -> None:
    """The SDK read an error body whole: a 1 GiB gzip bomb in a 500 took 3.1 GB and 10.6 s
    against a 5 s timeout. Now it is one counted request that stopped at the cap."""
    server.script(Fault("gzip_bomb", body=64 * MIB, status=500))
    model = OpenAIModel(
        "m", base_url=server.base_url, max_retries=2, max_response_bytes=MIB, transport=transport
    )
    error, ledger = counted(model)
    assert isinstance(error, ModelError) and "larger than 1,048,576 bytes" in str(error)
    assert [a.outcome for a in ledger.attempts] == ["too large"]  # not retried
    assert ledger.meter.requests == 1 == len(server.requests)


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_an_endless_error_body_stops_at_the_size_cap(server: FakeOpenAI, transport: str) -> None:
    server.script(Fault("endless", status=503))
    model = OpenAIModel(
        "m",
        base_url=server.base_url,
        max_retries=0,
        max_response_bytes=MIB,
        timeout=5,
        transport=transport,
    )
    error, ledger = counted(model)
    assert isinstance(error, ModelError) and "larger than 1,048,576 bytes" in str(error)
    assert [a.outcome for a in ledger.attempts] == ["too large"]
    sent, finished = streamed(server)
    assert not finished and sent < 64 * MIB


def test_a_100_mb_answer_is_refused_unread_by_its_length(server: FakeOpenAI) -> None:
    server.script(Fault("huge", body=100 * MIB))
    error, ledger = counted(OpenAIModel("m", base_url=server.base_url, max_retries=0))
    assert isinstance(error, ModelError) and "larger than 8,388,608 bytes" in str(error)
    assert [a.outcome for a in ledger.attempts] == ["too large"]
    sent, finished = streamed(server)
    assert not finished and sent < 50 * MIB


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_an_answer_under_the_cap_is_read_whole(server: FakeOpenAI, transport: str) -> None:
    server.script(Fault("huge", body=3 * MIB))
    model = OpenAIModel("m", base_url=server.base_url, max_retries=0, transport=transport)
    answers, ledger = counted(model)
    text = answers[0].text
    assert set(text) == {"a"} and 3 * MIB - 100 < len(text) < 3 * MIB  # the body less its JSON
    assert [a.outcome for a in ledger.attempts] == ["ok"]


def test_max_response_bytes_is_checked() -> None:
    with pytest.raises(Exception, match="max_response_bytes must be at least 1"):
        OpenAIModel("m", base_url="http://127.0.0.1:9/v1", max_response_bytes=0)
    with pytest.raises(Exception, match="transport must be one of lean, sdk"):
        OpenAIModel("m", base_url="http://127.0.0.1:9/v1", transport="curl")


# --- llama-server's refusal of n > 1 -------------------------------------------------------
@pytest.mark.parametrize("transport", ["lean", "sdk"])
@pytest.mark.parametrize("status", [500, 400])
def test_llama_server_refusing_n_gets_singles_once_and_is_remembered(
    status: int, transport: str
) -> None:
    with FakeOpenAI(one_choice=status) as server:
        model = OpenAIModel("m", base_url=server.base_url, max_retries=3, transport=transport)
        answers, ledger = counted(model, 3)
        assert len(answers) == 3
        assert [r.n for r in server.requests] == [3, 1, 1, 1]  # refused once, never retried
        assert [a.outcome for a in ledger.attempts].count(f"HTTP {status}") == 1
        assert ledger.meter.requests == 4
        assert not model.n_honoured
        counted(model, 2)
        assert [r.n for r in server.requests[4:]] == [1, 1]


@pytest.mark.parametrize("scheme", ["tot", "cot_sc", "got_paper"])
def test_schemes_that_ask_for_n_run_clean_on_llama_server(scheme: str) -> None:
    with FakeOpenAI(one_choice=500) as server:
        model = OpenAIModel("m", base_url=server.base_url, max_retries=3)
        result = thoughtgraph.solve("sorting", [5, 3, 9, 1, 7, 2, 8, 4], model=model, scheme=scheme)
        assert result.status == "clean", result.stop_detail
        assert result.output == [1, 2, 3, 4, 5, 7, 8, 9]
        assert result.requests == len(server.requests)  # every request counted, exactly
        assert sum(r.n > 1 for r in server.requests) == 1  # refused once, then singles


def test_a_long_answer_is_clipped_in_the_trace_and_whole_in_the_cache(
    server: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace, cache = tmp_path / "run.json", tmp_path / "answers.sqlite"
    server.script(Fault("huge", body=3 * MIB))
    argv = ["solve", "sorting", "--input", "[3, 1, 2]", "--scheme", "io", "--json"]
    argv += ["--model", "openai:m", "--base-url", server.base_url, "--max-retries", "0"]
    with contextlib.suppress(SystemExit):
        main([*argv, "--trace", str(trace), "--cache", str(cache), "--no-progress"])
    capsys.readouterr()
    assert trace.stat().st_size < 10 * MAX_TRACE_TEXT  # a few clipped copies, not 3 MB each
    data = read_trace(trace)  # what `trace view` reads
    [long] = [t for t in data["thoughts"] if t["text"].startswith("aaaa")]
    assert long["text"].endswith("more characters not kept in the trace]")
    with sqlite3.connect(cache) as db:
        lengths = [n for (n,) in db.execute("SELECT length(text) FROM answers")]
    assert max(lengths) > 3 * MIB - 100  # the cache keeps the whole answer
