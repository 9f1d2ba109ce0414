"""Whole runs against a real OpenAI-compatible server on 127.0.0.1 (tests/fake_openai.py), through
the command line and the API: every fault has its documented outcome, budgets stop paid requests
at the server, and --rpm spaces requests as the server sees them. No test reaches any other
address: every endpoint is the loopback server or a closed loopback port."""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

import thoughtgraph
from thoughtgraph.cli.main import main
from thoughtgraph.errors import FatalModelError
from thoughtgraph.models import inflight
from thoughtgraph.modelspec import from_spec
from thoughtgraph.testing import ScriptedModel

from .conftest import INPUT_32
from .fake_openai import FakeOpenAI, Fault
from .test_openai_model import spy_backoff

OK = Fault("delay", 0.0)  # a request answered normally (to place a fault later in the script)
MAX_DELAY = 0.3  # seconds a request may take to reach the loopback server on a busy machine


@pytest.fixture(autouse=True)
def _no_real_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """No real key, endpoint or cache from the environment; no n-memory from other tests."""
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_ORG_ID",
        "OPENAI_PROJECT_ID",
        "THOUGHTGRAPH_CACHE",
    ):
        monkeypatch.delenv(name, raising=False)
    inflight.forget_endpoints()


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(error=0.0) as fake:
        yield fake


def cli(capsys, server: FakeOpenAI, *args: str) -> tuple[int, str, str]:
    """Run `thoughtgraph solve sorting` in-process against the server (no SDK retries)."""
    argv = [
        "solve",
        "sorting",
        "--model",
        "openai:gpt-4o-mini",
        "--base-url",
        server.base_url,
        "--max-retries",
        "0",
        "--timeout",
        "5",
        "--no-progress",
        *args,
    ]
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    return code, out, err


def solve_json(capsys, server: FakeOpenAI, *args: str) -> tuple[int, dict, str]:
    code, out, err = cli(capsys, server, "--input", str(INPUT_32), "--json", *args)
    return code, json.loads(out), err


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def trace_of(path: Path) -> dict:
    return json.loads(path.read_text())


# --- transient faults: a failed attempt the op's own retry logic handles ---------------------
@pytest.mark.parametrize(
    ("fault", "extra", "message"),
    [
        (Fault("500"), [], "failed (HTTP 500): simulated 500 (after 0 retries)"),
        (Fault("429"), [], "is rate limiting (HTTP 429) (after 0 retries)"),
        (Fault("delay", 2.0), ["--timeout", "0.3"], "did not answer within 0.3s"),
        (Fault("reset"), [], "failed (ServerDisconnectedError) (after 0 retries)"),
        (Fault("malformed"), [], "sent a body that is not JSON"),
        (Fault("empty"), [], "sent an answer with no choices"),
        (Fault("null"), [], "sent a choice with no text content"),
    ],
    ids=["500", "429", "timeout", "reset", "malformed", "empty", "null"],
)
def test_a_failed_request_is_a_scored_counted_traced_attempt(
    capsys, server, tmp_path, fault, extra, message
):
    trace = tmp_path / "run.json"
    server.script(fault)
    code, data, err = solve_json(
        capsys, server, "--concurrency", "1", "--trace", str(trace), *extra
    )
    assert code == 0 and data["status"] == "clean" and err == ""
    assert data["failed_calls"] == 1 and data["paid_calls"] == data["calls"]
    run = trace_of(trace)
    failed = next(c for c in run["calls"] if c["error"])
    assert failed["id"] == "part_1:0.1" and message in failed["error"]  # the first request
    thought = next(t for t in run["thoughts"] if t["id"] == "part_1:0.1")
    assert thought["content"] is None and thought["kept"] is False
    assert thought["errors"][0].startswith("the model call failed: ")
    assert "part_1:0.2" in {c["id"] for c in run["calls"]}  # the Part op asked again
    assert len(server.requests) == data["calls"] == data["requests"]  # none hidden
    assert failed["requests"] == 1 and failed["attempts"][0]["outcome"] != "ok"


def test_sdk_retries_absorb_a_transient_fault_with_retry_after(capsys, server, monkeypatch):
    waits = spy_backoff(monkeypatch)
    server.script(Fault("429", seconds=0.2), Fault("500", seconds=0.01))
    code, data, _ = solve_json(capsys, server, "--concurrency", "1", "--max-retries", "2")
    assert code == 0 and data["failed_calls"] == 0 and data["status"] == "clean"
    assert len(server.requests) == data["calls"] + 2  # two retried at the HTTP level
    assert waits[0] == pytest.approx(0.2)  # Retry-After honoured


def test_fewer_choices_than_n_are_topped_up_by_single_calls(server):
    server.script("few")
    model = from_spec(f"openai:gpt-4o-mini,base_url={server.base_url}")
    result = thoughtgraph.solve("sorting", [4, 2, 3, 1], model=model, scheme="cot_sc")
    assert [r.n for r in server.requests] == [5, 1, 1, 1, 1]
    [call] = result.state.calls.values()
    assert len(call.texts) == 5 and call.error is None
    assert result.tokens > 0 and result.paid_calls == 1  # one call of the run, five requests


# --- fatal faults: stop at once, keep the work, one line ---------------------------------------
@pytest.mark.parametrize("status", ["401", "403"])
def test_a_rejected_key_stops_at_once_with_one_line(capsys, server, monkeypatch, status):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-wrong")
    server.script(status)
    code, out, err = cli(capsys, server, "--input", str(INPUT_32), "--concurrency", "1")
    assert code == 2 and out == ""  # no answer came back: only the error line
    assert err == (
        f"error: the endpoint at {server.base_url} rejected the API key (HTTP {status})\n"
    )
    assert len(server.requests) == 1  # nothing after the rejection


def test_a_fatal_error_mid_run_keeps_the_best_thought_and_the_trace(
    capsys, server, tmp_path, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-revoked")
    trace = tmp_path / "run.json"
    server.script(OK, OK, OK, OK, "403")  # four parts answered, then the first merge refused
    code, data, err = solve_json(capsys, server, "--concurrency", "1", "--trace", str(trace))
    assert code == 2 and err.count("\n") == 1 and "rejected the API key (HTTP 403)" in err
    assert data["status"] == "not clean" and data["stop_reason"] == "fatal model error"
    assert "HTTP 403" in data["stop_detail"]
    assert len(data["output"]) == 8 and data["output"] == sorted(data["output"])  # a part
    assert len(server.requests) == 5 == data["calls"]  # no request after the refusal
    run = trace_of(trace)
    assert run["result"]["stop_reason"] == "fatal model error"
    statuses = {op["id"]: op["status"] for op in run["ops"]}
    assert statuses["merge_1_1"] == "stopped" and statuses["refine"] == "pending"


def test_calls_in_flight_finish_and_are_kept_when_another_is_fatal(capsys, server):
    """Four parts in flight; one is refused (404): the others' answers are paid for, so they
    are recorded, and no later call is made."""
    server.script(Fault("404"), Fault("delay", 0.2), Fault("delay", 0.2), Fault("delay", 0.2))
    code, data, err = solve_json(capsys, server)
    assert code == 2 and "refused the request (HTTP 404): The model does not exist" in err
    assert len(server.requests) == 4 == data["calls"] and data["completions"] == 3


def test_an_unreachable_endpoint_is_one_line_naming_the_url(capsys):
    url = f"http://127.0.0.1:{free_port()}/v1"
    argv = [
        "solve",
        "sorting",
        "--input",
        "[3, 1, 2]",
        "--model",
        "openai:m",
        "--base-url",
        url,
        "--max-retries",
        "0",
    ]
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    out, err = capsys.readouterr()
    assert exit_info.value.code == 2 and out == ""
    assert (
        err == f"error: cannot reach the endpoint at {url} (connection refused or host not found)\n"
    )


def test_the_api_raises_the_fatal_error_with_the_run_so_far(server):
    server.script(OK, OK, OK, OK, "404")
    model = from_spec(f"openai:gpt-4o-mini,base_url={server.base_url}")
    with pytest.raises(FatalModelError, match=r"HTTP 404") as info:
        thoughtgraph.solve("sorting", INPUT_32, model=model, concurrency=1)
    result = info.value.result
    assert result.status == "not clean" and result.stop_reason == "fatal model error"
    assert result.calls == 5 and result.final.op_id.startswith("part_")
    assert result.state.calls["merge_1_1:0.1"].error.endswith("The model does not exist")


def test_the_default_endpoint_without_a_key_is_refused_before_any_request(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["solve", "sorting", "--input", "[3, 1, 2]", "--model", "openai:gpt-4o-mini"])
    _, err = capsys.readouterr()
    assert exit_info.value.code == 2 and err.startswith("error: OPENAI_API_KEY is not set")


# --- settings, flags ---------------------------------------------------------------------------
def test_model_flags_reach_the_server_and_a_key_less_endpoint_works(capsys, server):
    code, data, _ = solve_json(
        capsys, server, "--temperature", "0.25", "--max-completion-tokens", "300"
    )
    body = server.requests[0].body
    assert code == 0 and data["model"] == f"openai:gpt-4o-mini@127.0.0.1:{server.port}"
    assert (body["model"], body["temperature"], body["max_tokens"]) == ("gpt-4o-mini", 0.25, 300)
    assert data["simulated"] is False


def test_the_key_comes_from_the_variable_named_by_api_key_env(capsys, monkeypatch):
    monkeypatch.setenv("MY_ENDPOINT_KEY", "sk-test-named")
    with FakeOpenAI(require_key="sk-test-named") as server:
        code, data, _ = solve_json(capsys, server, "--api-key-env", "MY_ENDPOINT_KEY")
        assert code == 0 and data["status"] == "clean"
        code, _, err = cli(capsys, server, "--input", "[2, 1]", "--api-key-env", "NO_SUCH_VAR")
        assert code == 2 and err == (
            "error: the environment variable NO_SUCH_VAR (api_key_env) is not set\n"
        )


@pytest.mark.parametrize(
    "flag",
    [["--base-url", "http://127.0.0.1:9/v1"], ["--temperature", "0.5"], ["--api-key-env", "K"]],
)
def test_openai_flags_with_another_model_are_one_line_errors(capsys, flag):
    with pytest.raises(SystemExit) as exit_info:
        main(["solve", "sorting", "--input", "[2, 1]", "--model", "sim", *flag])
    _, err = capsys.readouterr()
    assert exit_info.value.code == 2
    assert err == f"error: {flag[0]}: only for openai:MODEL models, not 'sim'\n"


# --- budgets, as the server sees them ---------------------------------------------------------
@pytest.mark.parametrize(
    ("caps", "detail"),
    [
        (["--max-requests", "3"], "max_requests=3 reached"),
        (["--max-tokens", "400"], "max_tokens=400 reached"),
        (["--max-cost", "0.00006"], "max_cost=$0.00006 reached"),  # gpt-4o-mini's table price
        (["--max-cost", "0.0004", "--price-in", "1", "--price-out", "2"], "max_cost=$0.0004"),
    ],
)
def test_every_budget_cap_stops_paid_requests(capsys, server, tmp_path, caps, detail):
    trace = tmp_path / "run.json"
    code, data, _ = solve_json(capsys, server, "--concurrency", "1", "--trace", str(trace), *caps)
    assert code == 1 and data["status"] == "not clean" and data["output"]
    assert data["stop_reason"] == "budget exhausted" and detail in data["stop_detail"]
    assert len(server.requests) == data["paid_calls"] == data["calls"]
    what = {"--max-requests": "requests", "--max-tokens": "tokens", "--max-cost": "cost"}[caps[0]]
    cap = float(caps[1])
    assert data["budget"][f"max_{what}"] == cap
    calls = sorted(trace_of(trace)["calls"], key=lambda c: c["started"])
    paid = {
        "requests": lambda c: c["requests"],
        "tokens": lambda c: sum(c["usage"].values()),
        "cost": lambda c: c["cost"],
    }[what]
    # one call at a time: each call started while less than the cap was paid, and the run
    # stopped once it was reached
    assert sum(map(paid, calls[:-1])) < cap <= sum(map(paid, calls)) == pytest.approx(data[what])


# --- rate limits -------------------------------------------------------------------------------
def test_rpm_spaces_the_requests_the_server_receives(capsys, server):
    code, data, _ = solve_json(capsys, server, "--rpm", "400")  # one request per 0.15 s
    assert code == 0 and len(server.requests) == data["calls"] >= 7
    assert_spaced(server.times(), 0.15)


def assert_spaced(times: list[float], interval: float) -> None:
    """Requests leave the client `interval` apart and reach the server after a connection
    set-up that can take a while on a busy machine (the server shares this process), so any two
    arrivals k requests apart are at least k intervals apart, less MAX_DELAY. Without the limit
    all of them would arrive within milliseconds; at twice the rate the whole span would fall
    short."""
    times = sorted(times)
    for (i, a), (j, b) in itertools.combinations(enumerate(times), 2):
        assert b - a >= (j - i) * interval - MAX_DELAY, (i, j, b - a)


def test_limits_are_shared_by_runs_side_by_side(server):
    """Two runs at once in one process: together they keep to one rpm and one concurrency."""
    model = from_spec(f"openai:gpt-4o-mini,base_url={server.base_url}")

    async def both() -> list[thoughtgraph.Result]:
        runs = [
            thoughtgraph.asolve("sorting", problem, model=model, rpm=400, concurrency=2)
            for problem in (INPUT_32[:16], INPUT_32[16:])
        ]
        return await asyncio.gather(*runs)

    results = asyncio.run(both())
    assert all(r.clean for r in results)
    assert len(server.requests) == sum(r.calls for r in results) >= 6
    assert_spaced(server.times(), 0.15)


def test_concurrency_is_shared_by_runs_handed_one_limiter():
    """Sharing is explicit: runs side by side keep one cap when handed the same limiter
    (tests/test_spend_limits.py: with their own limiters they do not)."""
    from thoughtgraph.models.limits import ConcurrencyLimiter

    model = ScriptedModel(delay=0.02)
    shared = ConcurrencyLimiter(3)

    async def both() -> None:
        await asyncio.gather(
            *(
                thoughtgraph.asolve("sorting", INPUT_32, model=model, limiter=shared)
                for _ in range(2)
            )
        )

    asyncio.run(both())
    assert model.max_in_flight == 3 and len(model.prompts) == 14
