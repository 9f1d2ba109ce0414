"""The SDK client pool (models/clients.py): one client per endpoint and loop, one SSL context per
process, reused across models, solves and eval pairs, and closed on its own loop."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

import thoughtgraph
from thoughtgraph.evaluation.runner import plan, run_pairs
from thoughtgraph.models import clients, inflight
from thoughtgraph.models.openai import OpenAIModel

from .fake_openai import FakeOpenAI


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"):
        monkeypatch.delenv(name, raising=False)
    inflight.forget_endpoints()


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(error=0.0) as fake:
        yield fake


def _model(server: FakeOpenAI, **options: object) -> OpenAIModel:
    return OpenAIModel("gpt-4o-mini", base_url=server.base_url, max_retries=0, **options)  # type: ignore[arg-type]


def test_models_and_solves_on_one_loop_share_one_client(server: FakeOpenAI) -> None:
    async def main() -> tuple[object, object, int]:
        first, second = _model(server), _model(server)
        await first.complete("Sort: [3, 1]")
        await thoughtgraph.asolve("sorting", [3, 1, 2], model=second, parts=1)
        await thoughtgraph.asolve("sorting", [5, 4], model=_model(server), parts=1)
        return first._client(), second._client(), clients.built

    before = clients.built
    one, two, after = asyncio.run(main())
    assert one is two
    assert after - before == 1


def test_eval_pairs_share_one_client(server: FakeOpenAI, tmp_path: Path) -> None:
    before = clients.built
    spec = f"openai:gpt-4o-mini,base_url={server.base_url},max_retries=0"
    results = asyncio.run(run_pairs(plan("sorting", 32, ["io", "cot"], 2), spec, tmp_path / "ev"))
    assert len(results) == 4 and len(server.requests) >= 4
    assert clients.built - before == 1


def test_a_different_endpoint_setting_gets_its_own_client(server: FakeOpenAI) -> None:
    async def main() -> bool:
        return _model(server)._client() is _model(server, timeout=5.0)._client()

    assert asyncio.run(main()) is False


def test_each_key_gets_its_own_client_and_a_copy_or_an_unpickled_model_the_right_one(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pool's key is the key's digest, kept once per model: models with other keys (or
    none) never share a client; a copy shares its model's; an unpickled model reads its key
    from the environment again and gets that key's client."""
    import copy
    import pickle

    async def main() -> None:
        a = _model(server, api_key="sk-test-" + "a" * 24)
        b = _model(server, api_key="sk-test-" + "b" * 24)
        keyless = _model(server)
        assert a._client() is not b._client() and a._client() is not keyless._client()
        assert a._client() is _model(server, api_key="sk-test-" + "a" * 24)._client()
        assert copy.copy(a)._client() is a._client()
        assert a.with_default_max_tokens(64)._client() is a._client()
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-" + "e" * 24)
        from_env = _model(server)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-" + "f" * 24)
        rotated = _model(server)
        assert from_env._client() is not rotated._client()
        unpickled = pickle.loads(pickle.dumps(from_env))  # reads the key set now
        assert unpickled._client() is rotated._client()
        assert unpickled._client() is not from_env._client()

    asyncio.run(main())


def test_each_asyncio_run_closes_its_client_and_shares_the_ssl_context(server: FakeOpenAI) -> None:
    seen = []
    for _ in range(2):
        result = thoughtgraph.solve("sorting", [3, 1, 2], model=_model(server), parts=1)
        assert result.output == [1, 2, 3]
    for _ in range(2):

        async def grab() -> None:
            model = _model(server)
            await model.complete("Sort: [2, 1]")
            seen.append(model._client())

        asyncio.run(grab())
    assert seen[0] is not seen[1]  # each loop its own client: connections are bound to a loop
    assert all(client.is_closed() for client in seen)  # closed when its loop shut down
    assert clients.open_clients() == 0
    assert clients.shared_ssl_context() is clients.shared_ssl_context()


def test_solve_inside_a_running_loop_twice_like_jupyter(server: FakeOpenAI) -> None:
    async def notebook_cell() -> list[object]:
        model = _model(server)
        return [thoughtgraph.solve("sorting", [2, 1], model=model, parts=1).output for _ in "ab"]

    assert asyncio.run(notebook_cell()) == [[1, 2], [1, 2]]
    assert clients.open_clients() == 0


def test_aclose_closes_and_the_next_call_reopens(server: FakeOpenAI) -> None:
    async def main() -> tuple[bool, bool, str]:
        model = _model(server)
        await model.complete("Sort: [2, 1]")
        client = model._client()
        await model.aclose()
        answers = await model.complete("Sort: [4, 3]")
        return client.is_closed(), model._client() is client, answers[0].text

    closed, same, text = asyncio.run(main())
    assert closed and not same
    assert text.strip().endswith("[3, 4]") or "[3, 4]" in text


def test_aclose_loop_closes_every_client_of_the_loop(server: FakeOpenAI) -> None:
    async def main() -> list[object]:
        made = [_model(server)._client(), _model(server, timeout=7.0)._client()]
        await clients.aclose_loop()
        return made

    assert all(client.is_closed() for client in asyncio.run(main()))


def test_the_pool_never_holds_the_key_in_clear(server: FakeOpenAI) -> None:
    secret = "sk-test-" + "x" * 24

    async def main() -> str:
        OpenAIModel("m", base_url=server.base_url, api_key=secret)._client()
        return repr(clients._pools.get(asyncio.get_running_loop()).keys())  # type: ignore[union-attr]

    assert secret not in asyncio.run(main())


def test_fake_server_backlog_fits_a_concurrent_client() -> None:
    """Python's default listen backlog of 5 drops connection attempts when 16+ arrive at once
    (the SDK retries a second later): the test server must take a burst of 64."""
    with FakeOpenAI() as fake:
        assert fake._httpd is not None and fake._httpd.request_queue_size >= 64
