"""OpenAIModel against a real OpenAI-compatible server on 127.0.0.1 (tests/fake_openai.py)."""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from thoughtgraph.errors import FatalModelError, ModelError, UnknownNameError
from thoughtgraph.models import inflight
from thoughtgraph.models import openai as openai_module
from thoughtgraph.models.openai import OpenAIModel
from thoughtgraph.modelspec import from_spec

from .fake_openai import FakeOpenAI, Fault

pytestmark = pytest.mark.anyio

PROMPT = "Sort the list.\n<part>[5, 3, 9, 1]</part>"
SORTED = "[1, 3, 5, 9]"
SECRET = "sk-test-SECRET-123"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may see a real key or endpoint, nor the n-memory of another test."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)
    inflight.forget_endpoints()


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


_TRANSPORT = ["lean"]


@pytest.fixture(autouse=True, params=["lean", "sdk"])
def transport(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every test here runs on both transports: the same behaviour, the same messages."""
    _TRANSPORT[0] = request.param
    yield request.param
    _TRANSPORT[0] = "lean"


def model(server: FakeOpenAI, **options: object) -> OpenAIModel:
    options.setdefault("transport", _TRANSPORT[0])
    options.setdefault("max_retries", 0)
    options.setdefault("timeout", 5.0)
    return OpenAIModel("sim", base_url=server.base_url, **options)  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- answers --------------------------------------------------------------------------------
async def test_answers_a_prompt_with_usage(server: FakeOpenAI) -> None:
    [answer] = await model(server).complete(PROMPT)
    assert SORTED in answer.text
    assert answer.usage.prompt_tokens > 0 and answer.usage.completion_tokens > 0
    assert not answer.cached
    assert server.requests[0].body["messages"] == [{"role": "user", "content": PROMPT}]
    assert "n" not in server.requests[0].body  # n=1 is never sent: some servers refuse n


async def test_n_choices_in_one_request_and_usage_spread(server: FakeOpenAI) -> None:
    answers = await model(server).complete(PROMPT, n=3)
    assert len(answers) == 3 and all(SORTED in a.text for a in answers)
    assert [r.n for r in server.requests] == [3]
    # The fake bills the prompt once and max(1, len//4) per answer; the shares add up to that.
    billed_prompt = len(PROMPT) // 4
    billed_completion = sum(max(1, len(a.text) // 4) for a in answers)
    assert sum(a.usage.prompt_tokens for a in answers) == billed_prompt
    assert sum(a.usage.completion_tokens for a in answers) == billed_completion


async def test_settings_are_sent(server: FakeOpenAI) -> None:
    m = model(server, temperature=0.7, max_tokens=64)
    await m.complete(PROMPT)
    body = server.requests[0].body
    assert (body["temperature"], body["max_tokens"], body["model"]) == (0.7, 64, "sim")
    assert m.settings == {"temperature": 0.7, "max_tokens": 64}


async def test_missing_usage_is_estimated_from_the_texts(server: FakeOpenAI) -> None:
    from thoughtgraph.spend.usage import count_tokens

    server.report_usage = False
    [answer] = await model(server).complete(PROMPT)
    assert answer.estimated
    assert answer.usage.prompt_tokens == count_tokens(PROMPT) > 0
    assert answer.usage.completion_tokens == count_tokens(answer.text) > 0


# --- n fallback -----------------------------------------------------------------------------
async def test_server_ignoring_n_gets_parallel_singles_and_is_remembered() -> None:
    with FakeOpenAI(honour_n=False) as server:
        m = model(server)
        answers = await m.complete(PROMPT, n=3)
        assert len(answers) == 3 and all(SORTED in a.text for a in answers)
        assert [r.n for r in server.requests] == [3, 1, 1]
        assert not m.n_honoured and m.requests_needed(3) == 3
        await m.complete(PROMPT, n=2)
        assert [r.n for r in server.requests[3:]] == [1, 1]  # no more n requests


async def test_memory_is_shared_by_models_of_the_same_endpoint() -> None:
    with FakeOpenAI(honour_n=False) as server:
        await model(server).complete(PROMPT, n=2)
        assert not model(server).n_honoured


async def test_fewer_choices_once_tops_up(server: FakeOpenAI) -> None:
    server.script("few")
    answers = await model(server).complete(PROMPT, n=4)
    assert len(answers) == 4
    assert [r.n for r in server.requests] == [4, 1, 1, 1]


async def test_400_rejecting_n_falls_back_to_singles() -> None:
    with FakeOpenAI(reject_n=True) as server:
        m = model(server)
        answers = await m.complete(PROMPT, n=3)
        assert len(answers) == 3
        assert [r.n for r in server.requests] == [3, 1, 1, 1]
        assert not m.n_honoured


def spy_backoff(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every wait the client chooses before a retry, in seconds (the waits still happen)."""
    waits: list[float] = []
    real = openai_module._backoff

    def recorded(retry: int, retry_after: float | None) -> float:
        waits.append(real(retry, retry_after))
        return waits[-1]

    monkeypatch.setattr(openai_module, "_backoff", recorded)
    return waits


# --- transient faults: retried by the SDK, then ModelError ----------------------------------
async def test_429_is_retried_after_retry_after(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    waits = spy_backoff(monkeypatch)
    server.script(Fault("429", seconds=0.3))
    [answer] = await model(server, max_retries=2).complete(PROMPT)
    assert SORTED in answer.text
    assert len(server.requests) == 2
    assert waits == [pytest.approx(0.3)]  # waited what the server's Retry-After said


async def test_429_that_persists_is_a_model_error(server: FakeOpenAI) -> None:
    server.script(*[Fault("429", seconds=0.01)] * 3)
    with pytest.raises(ModelError, match=r"rate limiting .*HTTP 429.*2 retries"):
        await model(server, max_retries=2).complete(PROMPT)
    assert len(server.requests) == 3


async def test_500_is_retried(server: FakeOpenAI) -> None:
    server.script(Fault("500", seconds=0.01))
    [answer] = await model(server, max_retries=1).complete(PROMPT)
    assert SORTED in answer.text and len(server.requests) == 2


async def test_500_that_persists_is_a_model_error(server: FakeOpenAI) -> None:
    server.script("500")
    with pytest.raises(ModelError, match=r"HTTP 500.*simulated 500") as info:
        await model(server).complete(PROMPT)
    assert "\n" not in str(info.value)


async def test_timeout_is_a_model_error(server: FakeOpenAI) -> None:
    server.script(Fault("delay", seconds=1.0))
    with pytest.raises(ModelError, match=r"did not answer within 0.3s"):
        await model(server, timeout=0.3).complete(PROMPT)


async def test_connection_reset_is_retried_then_a_model_error(server: FakeOpenAI) -> None:
    server.script(Fault("reset", seconds=0.0))
    [answer] = await model(server, max_retries=1).complete(PROMPT)
    assert SORTED in answer.text
    server.script("reset")
    with pytest.raises(ModelError, match=r"connection .* failed"):
        await model(server).complete(PROMPT)


# --- malformed answers: ModelError (the op may retry) ----------------------------------------
@pytest.mark.parametrize(
    ("fault", "message"),
    [("malformed", "not JSON"), ("empty", "no choices"), ("null", "no text content")],
)
async def test_malformed_answers_are_model_errors(
    server: FakeOpenAI, fault: str, message: str
) -> None:
    server.script(fault)
    with pytest.raises(ModelError, match=message):
        await model(server).complete(PROMPT)


# --- fatal faults: stop the run --------------------------------------------------------------
@pytest.mark.parametrize("status", ["401", "403"])
async def test_rejected_key_is_fatal(server: FakeOpenAI, status: str) -> None:
    server.script(status)
    with pytest.raises(FatalModelError) as info:
        await model(server, api_key=SECRET).complete(PROMPT)
    assert str(info.value) == (
        f"the endpoint at {server.base_url} rejected the API key (HTTP {status})"
    )


async def test_required_key_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(require_key=SECRET) as server:
        monkeypatch.setenv("MY_KEY", SECRET)
        [answer] = await model(server, api_key_env="MY_KEY").complete(PROMPT)
        assert SORTED in answer.text
        with pytest.raises(FatalModelError, match="rejected the API key"):
            await model(server, api_key="sk-wrong").complete(PROMPT)
        with pytest.raises(FatalModelError, match="requires an API key"):
            await model(server).complete(PROMPT)  # key-less against a server that wants one


async def test_other_4xx_is_fatal_with_status_and_reason(server: FakeOpenAI) -> None:
    server.script("404")
    with pytest.raises(FatalModelError, match=r"HTTP 404\): The model does not exist"):
        await model(server).complete(PROMPT)


async def test_unreachable_endpoint_is_fatal_and_named() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    m = OpenAIModel("sim", base_url=url, max_retries=0)
    with pytest.raises(FatalModelError, match=f"cannot reach the endpoint at {url}"):
        await m.complete(PROMPT)


# --- keys -----------------------------------------------------------------------------------
async def test_key_less_local_endpoint_works(server: FakeOpenAI) -> None:
    m = model(server)
    [answer] = await m.complete(PROMPT)
    assert SORTED in answer.text
    assert server.requests[0].had_key  # a placeholder: the SDK always sends one


def test_default_endpoint_without_key_is_refused_before_any_call() -> None:
    with pytest.raises(FatalModelError, match="OPENAI_API_KEY is not set"):
        OpenAIModel("gpt-4o-mini")


def test_named_key_variable_must_exist() -> None:
    with pytest.raises(FatalModelError, match="NO_SUCH_KEY_VAR"):
        OpenAIModel("m", base_url="http://127.0.0.1:9/v1", api_key_env="NO_SUCH_KEY_VAR")


async def test_the_key_never_leaks(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hostile server quotes the key in its errors; nothing of ours may repeat it."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    caplog.set_level(logging.DEBUG)
    seen: list[str] = []
    with FakeOpenAI(echo_key=True, reject_n=True) as server:
        m = model(server)
        seen += [m.name, repr(m), str(vars(m))]
        for fault in ("401", "403", "404", "500", "429", "malformed", "reset"):
            server.script(fault)
            with pytest.raises((ModelError, FatalModelError)) as info:
                await m.complete(PROMPT)
            seen += [str(info.value), repr(info.value)]
        assert len(await m.complete(PROMPT, n=2)) == 2  # the 400 about n quoted the key too
    unreachable = OpenAIModel("sim", base_url=f"http://127.0.0.1:{free_port()}/v1", max_retries=0)
    with pytest.raises(FatalModelError) as info:
        await unreachable.complete(PROMPT)
    seen += [str(info.value), repr(unreachable)]
    assert any("HTTP 404" in text for text in seen)  # the hostile messages were really seen
    assert "SECRET" not in "\n".join(seen)
    assert "SECRET" not in caplog.text


# --- specs ----------------------------------------------------------------------------------
async def test_spec_reads_endpoint_from_environment(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    m = from_spec("openai:sim")
    assert isinstance(m, OpenAIModel) and not m.simulated
    assert m.name == f"openai:sim@127.0.0.1:{server.port}"
    [answer] = await m.complete(PROMPT)
    assert SORTED in answer.text


def test_spec_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    m = from_spec("openai:llama3:8b,temperature=0.5,max_tokens=100,max_retries=1")
    assert isinstance(m, OpenAIModel)
    assert (m.model, m.temperature, m.max_tokens, m.max_retries) == ("llama3:8b", 0.5, 100, 1)
    assert m.name == "openai:llama3:8b"  # the default endpoint is not named
    with pytest.raises(UnknownNameError, match="unknown openai option 'api_key'"):
        from_spec("openai:m,api_key=x")
    with pytest.raises(UnknownNameError, match="expected openai:MODEL"):
        from_spec("openai:")


@pytest.mark.slow
def test_importing_thoughtgraph_does_not_import_openai() -> None:
    code = "import sys, thoughtgraph; sys.exit('openai' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def _choice(index: object, text: str) -> dict[str, object]:
    return {"index": index, "message": {"role": "assistant", "content": text}}


@pytest.mark.parametrize("bad_index", ["a", None, 1.5, True])
async def test_choices_with_a_bad_index_are_read_not_a_crash(bad_index: object) -> None:
    """A hostile server's `"index": "a"` or `null` next to a real index: the answers are read
    (numbered ones first), not a TypeError from sorting, and the request is counted."""
    from thoughtgraph.spend.budget import Meter
    from thoughtgraph.spend.ledger import CallLedger
    from thoughtgraph.spend.usage import Usage

    with FakeOpenAI() as server:
        body = {"choices": [_choice(bad_index, "[2]"), _choice(0, "[1]")]}
        server.script(Fault("body", body=body))
        ledger = CallLedger(Meter(), lambda n: Usage())
        answers = await model(server).complete(PROMPT, 2, recorder=ledger)
    assert [a.text for a in answers] == ["[1]", "[2]"]
    assert [a.outcome for a in ledger.attempts] == ["ok"]
    assert ledger.meter.requests == 1


async def test_answers_a_cache_cannot_store_as_sent_are_still_kept(tmp_path) -> None:
    """A lone surrogate in the text, a token count past SQLite's integers: the answer was paid
    for, so it is stored (the surrogate as U+FFFD, the count held at a bound), not lost."""
    from thoughtgraph.models.cache import CachedModel

    with FakeOpenAI() as server:
        body = {
            "choices": [_choice(0, "[1, \ud800 3]")],
            "usage": {"prompt_tokens": 10**30, "completion_tokens": 5},
        }
        server.script(Fault("body", body=body))
        with CachedModel(model(server), tmp_path / "c.sqlite") as cached:
            [answer] = await cached.complete(PROMPT)
        with CachedModel(model(server), tmp_path / "c.sqlite") as again:
            [replayed] = await again.complete(PROMPT)
    assert answer.text == replayed.text == "[1, \ufffd\ufffd\ufffd 3]"
    assert replayed.cached and replayed.usage.prompt_tokens == answer.usage.prompt_tokens
    assert answer.usage.prompt_tokens >= 2**53
    assert len(server.requests) == 1
