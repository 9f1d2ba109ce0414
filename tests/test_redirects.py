"""A redirect is not followed (models/transport.py, models/openai.py): the request is counted
once, the run stops with one line naming where the server pointed, and nothing reaches the
address it named. Followed, a 307 to another port reached two servers for one counted request,
and a server redirecting to itself drew 50 (lean) and 105 (sdk) requests under
`--max-requests 5`. Every server is tests/fake_openai.py on 127.0.0.1, on both transports."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from thoughtgraph.cli.main import main
from thoughtgraph.models import inflight

from .fake_openai import FakeOpenAI, Fault


@pytest.fixture(autouse=True)
def _no_real_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"):
        monkeypatch.delenv(name, raising=False)
    inflight.forget_endpoints()


@pytest.fixture
def servers() -> Iterator[tuple[FakeOpenAI, FakeOpenAI]]:
    with FakeOpenAI() as first, FakeOpenAI() as second:
        yield first, second


def solve(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, server: FakeOpenAI, transport: str
) -> tuple[int, dict[str, Any], str]:
    """`thoughtgraph solve` of one small list under `--max-requests 5`: (exit, the trace's
    result, stderr)."""
    trace = tmp_path / "run.json"
    argv = [
        "solve",
        "sorting",
        "--input",
        "[3, 1, 2, 5, 4, 8, 7, 6]",
        "--model",
        f"openai:m,transport={transport}",
        "--base-url",
        server.base_url,
        "--max-requests",
        "5",
        "--max-retries",
        "3",
        "--timeout",
        "5",
        "--no-cache",
        "--no-progress",
        "--trace",
        str(trace),
    ]
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert out == ""  # no answer arrived: nothing to print
    return code, json.loads(trace.read_text())["result"], err


@pytest.mark.parametrize("transport", ["lean", "sdk"])
@pytest.mark.parametrize("status", [307, 308])
def test_a_redirect_to_another_port_is_not_followed(
    capsys, tmp_path, servers, transport, status
) -> None:
    first, second = servers
    target = second.base_url + "/chat/completions"
    first.script(*[Fault("redirect", body=target, status=status)] * 20)
    code, data, err = solve(capsys, tmp_path, first, transport)
    assert code == 2 and err.count("\n") == 1, err
    assert err == (
        f"error: the endpoint at {first.base_url} redirected the request to '{target}' "
        f"(HTTP {status}); redirects are not followed: set base_url (--base-url) to the "
        "address you mean\n"
    )
    assert second.requests == []  # the address it named never heard from us
    assert data["calls"] == len(first.requests) == 1  # counted once: the one request sent


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_a_server_redirecting_to_itself_draws_one_request(
    capsys, tmp_path, servers, transport
) -> None:
    server = servers[0]
    server.script(*[Fault("redirect")] * 200)  # Location: the request's own URL, every time
    code, data, err = solve(capsys, tmp_path, server, transport)
    assert code == 2 and "redirected the request to" in err and err.count("\n") == 1
    assert data["stop_reason"] == "fatal model error"
    assert data["calls"] == len(server.requests) == 1


@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_a_redirect_names_its_location_without_credentials(
    capsys, tmp_path, servers, transport
) -> None:
    server = servers[0]
    target = "http://user:hunter2@127.0.0.1:9/v1/chat/completions?api-key=abc"
    server.script(Fault("redirect", body=target, status=302))
    code, _, err = solve(capsys, tmp_path, server, transport)
    assert code == 2 and "hunter2" not in err and "abc" not in err
    assert "'http://***@127.0.0.1:9/v1/chat/completions?api-key=***' (HTTP 302)" in err
