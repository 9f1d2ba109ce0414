"""Per-endpoint in-flight limits (models/inflight.py) against a server that, like llama.cpp's,
answers one request at a time."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field

import pytest

from thoughtgraph.errors import ModelError
from thoughtgraph.models import inflight
from thoughtgraph.models.openai import OpenAIModel

from .fake_openai import FakeOpenAI, Fault, _Handler

SERVICE = 0.3  # seconds the serial server works on each request


class _SerialHandler(_Handler):
    def _respond(self, fake, body, auth, fault):  # type: ignore[no-untyped-def]
        with fake.counting:
            fake.now += 1
            fake.most = max(fake.most, fake.now)
        try:
            with fake.busy:  # one request at a time, the others queue here
                time.sleep(SERVICE)
                return super()._respond(fake, body, auth, fault)
        finally:
            with fake.counting:
                fake.now -= 1


@dataclass
class SerialOpenAI(FakeOpenAI):
    """Answers one request at a time; `most` is the most requests it ever held at once."""

    busy: threading.Lock = field(default_factory=threading.Lock)
    counting: threading.Lock = field(default_factory=threading.Lock)
    now: int = 0
    most: int = 0

    def start(self):  # type: ignore[no-untyped-def]
        super().start()
        assert self._httpd is not None
        self._httpd.RequestHandlerClass = _SerialHandler
        return self


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    inflight.forget_endpoints()
    inflight.forget_endpoints()


async def _burst(model: OpenAIModel, size: int) -> list[object]:
    calls = (model.complete(f"Sort [{i}, 1]", 1) for i in range(size))
    return await asyncio.gather(*calls, return_exceptions=True)


def test_a_timeout_among_many_in_flight_lowers_the_endpoints_limit(caplog):
    with SerialOpenAI() as server:
        url = server.base_url
        model = OpenAIModel("m", base_url=url, timeout=1.0, max_retries=0)
        with caplog.at_level(logging.INFO, logger="thoughtgraph.models.inflight"):
            results = asyncio.run(_burst(model, 8))
    timed_out = [r for r in results if isinstance(r, ModelError)]
    assert timed_out  # the last ones waited 8 x 0.3 s in the server's queue
    assert inflight.endpoint(url).limit <= 4  # half of the 8 in flight, or lower
    assert "seems to queue them" in caplog.text


def test_with_a_limit_of_one_a_burst_waits_here_and_nothing_times_out():
    """8 x 0.3 s of work with a 1 s timeout: sent at once, most would time out (above)."""
    with SerialOpenAI() as server:
        model = OpenAIModel(
            "m", base_url=server.base_url, timeout=1.0, max_retries=0, max_in_flight=1
        )
        results = asyncio.run(_burst(model, 8))
        assert server.most == 1  # the server never held two requests at once
        assert len(server.requests) == 8  # and nothing was sent twice
    assert all(isinstance(r, list) and len(r) == 1 for r in results), results


def test_a_lone_timeout_does_not_lower_the_limit():
    with SerialOpenAI() as server:
        url = server.base_url
        model = OpenAIModel("m", base_url=url, timeout=0.05, max_retries=0)
        with pytest.raises(ModelError, match="did not answer within"):
            asyncio.run(model.complete("Sort [2, 1]"))
    assert inflight.endpoint(url).limit is None  # too short a timeout, not a queue


def test_max_in_flight_is_a_spec_option_and_must_be_positive():
    model = OpenAIModel.from_spec("m,max_in_flight=2,base_url=http://127.0.0.1:9/v1", "spec")
    assert inflight.endpoint(model.base_url).limit == 2
    with pytest.raises(Exception, match="max_in_flight"):
        OpenAIModel("m", base_url="http://127.0.0.1:9/v1", max_in_flight=0)


# --- hung requests, recovery, the note ---------------------------------------------------------
async def _stream(model: OpenAIModel, total: int, concurrency: int) -> list[object]:
    """`total` calls, `concurrency` at a time (as a run's limiter sends them)."""
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> object:
        async with gate:
            try:
                return await model.complete(f"Sort [{i}, 1]", 1)
            except ModelError as exc:
                return exc

    return await asyncio.gather(*(one(i) for i in range(total)))


def test_hung_requests_among_answered_ones_lower_nothing() -> None:
    """7 hung requests in 2,000 each halved the limit: --concurrency 64 ran at 1 for the rest
    of the eval (558 s, not 40 s). A request overtaken by many later ones hung; it says nothing
    about a queue."""
    with FakeOpenAI(latency=0.005) as server:
        hang = Fault("delay", 3.0)  # past the 1 s timeout: a request the server lost
        ok = Fault("delay", 0.0)
        server.script(*([hang] + [ok] * 39) * 3)  # the 1st, 41st and 81st requests hang
        model = OpenAIModel("m", base_url=server.base_url, timeout=1.0, max_retries=0)
        results = asyncio.run(_stream(model, 200, 16))
        assert inflight.endpoint(server.base_url).limit is None  # nothing lowered
    assert sum(isinstance(r, ModelError) for r in results) == 3


def test_one_burst_lowers_the_limit_once_and_answers_raise_it_back() -> None:
    endpoint = inflight.Endpoint("http://127.0.0.1:9/v1")
    burst = [endpoint.taken(others) for others in range(16)]  # 16 sent at once
    for slot in reversed(burst):  # the last ones time out first, then the rest
        endpoint.learn_from_timeout("m", slot)
    assert endpoint.limit == 8 and endpoint.ceiling == 15  # lowered once, by the first timeout
    answers = 0
    while endpoint.limit < 15:
        endpoint.learn_from_answer()
        answers += 1
    assert answers == sum(range(8, 15))  # one more after each run of as many as the limit
    for _ in range(100):
        endpoint.learn_from_answer()
    assert endpoint.limit == 15  # not past the ceiling: 16 in flight timed out
    endpoint.learn_from_timeout("m", endpoint.taken(14))  # timed out again at 15
    assert (endpoint.limit, endpoint.ceiling) == (7, 14)  # the ceiling comes down too


def test_max_in_flight_is_the_most_a_lowered_limit_grows_back_to() -> None:
    endpoint = inflight.Endpoint("http://127.0.0.1:9/v1")
    endpoint.set_limit(4)
    endpoint.learn_from_timeout("m", endpoint.taken(3))
    assert (endpoint.limit, endpoint.ceiling) == (2, 3)
    for _ in range(50):
        endpoint.learn_from_answer()
    assert endpoint.limit == 3


def test_eval_says_in_one_line_when_the_limit_shrank(capsys, tmp_path) -> None:
    """eval has no -v: the lowered limit is one `note:` line on stderr."""
    from .conftest import run_cli

    with SerialOpenAI() as server:
        code, _, err = run_cli(
            capsys,
            "eval",
            "sorting",
            "--samples",
            "8",
            "--schemes",
            "io",
            "--concurrency",
            "8",
            "--model",
            "openai:m,timeout=1,max_retries=2",
            "--base-url",
            server.base_url,
            "--no-progress",
            "--out",
            str(tmp_path / "run"),
        )
        port = server.port
    notes = [line for line in err.splitlines() if "seems to queue them" in line]
    assert notes, err  # one line each time it shrank
    for note in notes:
        assert note.startswith(f"note: openai:m@127.0.0.1:{port} timed out with ")
        assert note.endswith(" at once, and more again as answers come in time")
    assert code in (0, 1) and "Traceback" not in err
