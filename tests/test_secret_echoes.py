"""No character of a credential reaches anything written, in every form a server may quote it
back (models/secrets.py): a long `Bearer` key in an error body (it was clipped at 160 characters
before it was masked, so 132 characters of a 188-character `sk-proj-...` key showed), the
`Basic base64(user:password)` sent for URL credentials (never masked: it reached the cache, the
trace and the viewer page), and a secret-named query value quoted back inside a path. What is
written: stdout, stderr, the trace, the events file, the viewer page and the cache. Every server
is tests/fake_openai.py on 127.0.0.1, on both transports."""

from __future__ import annotations

import base64
import string
from pathlib import Path

import pytest

from thoughtgraph.cli.main import main
from thoughtgraph.models import inflight

from .fake_openai import FakeOpenAI, Fault
from .test_secrets import EchoingOpenAI

TRANSPORTS = ["lean", "sdk"]


@pytest.fixture(autouse=True)
def _no_real_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"):
        monkeypatch.delenv(name, raising=False)
    inflight.forget_endpoints()


def project_key(length: int) -> str:
    """A key shaped like OpenAI's project keys (`sk-proj-` and letters, digits, `-`, `_`)."""
    alphabet = string.ascii_letters + string.digits + "-_"
    body = "".join(alphabet[(i * 7 + i // 5) % len(alphabet)] for i in range(length - 8))
    return "sk-proj-" + body


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def solve_and_view(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, base_url: str, transport: str
) -> tuple[int, dict[str, bytes]]:
    """`solve` writing a trace, an events file and a cache, then `trace view` of the trace:
    (solve's exit code, every text written by name)."""
    trace, events, cache = tmp_path / "run.json", tmp_path / "events.jsonl", tmp_path / "a.db"
    code, out, err = run(
        capsys,
        [
            "solve",
            "sorting",
            "--input",
            "[3, 1, 2, 5, 4, 8, 7, 6]",
            "--scheme",
            "io",
            "--model",
            f"openai:m,transport={transport}",
            "--base-url",
            base_url,
            "--max-retries",
            "2",
            "--timeout",
            "5",
            "--no-progress",
            "--json",
            "--trace",
            str(trace),
            "--events",
            str(events),
            "--cache",
            str(cache),
        ],
    )
    _, view_out, view_err = run(capsys, ["trace", "view", str(trace), "-o", str(tmp_path / "p")])
    assert (tmp_path / "p").stat().st_size > 0 and trace.exists() and events.exists()
    files = {str(p): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    streams = {"stdout": out, "stderr": err, "view stdout": view_out, "view stderr": view_err}
    return code, files | {name: text.encode() for name, text in streams.items()}


def assert_no_piece(secret: str, written: dict[str, bytes], piece: int = 10) -> None:
    """No run of `piece` characters of `secret` (past a provider prefix) in anything written."""
    body = secret.removeprefix("sk-proj-")
    pieces = {body[i : i + piece].encode() for i in range(len(body) - piece + 1)}
    for where, data in written.items():
        leaked = [p for p in pieces if p in data]
        assert not leaked, f"{len(leaked)} pieces of the secret leaked into {where}"


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("length", [134, 188])
def test_a_long_key_quoted_back_in_an_error_leaves_no_character(
    capsys, tmp_path, monkeypatch, transport, length
) -> None:
    key = project_key(length)
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with FakeOpenAI(echo_key=True) as server:
        server.script(Fault("500"), Fault("500"))  # quoted back twice, then answered
        code, written = solve_and_view(capsys, tmp_path, server.base_url, transport)
        assert len(server.requests) == 3 and all(r.had_key for r in server.requests)
    assert code == 0
    assert "simulated 500 (you sent 'Bearer ***')" in written[str(tmp_path / "run.json")].decode()
    assert_no_piece(key, written)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("password", ["pw-SECRET-long-7891", "pw"])
def test_url_credentials_sent_as_basic_are_masked_where_quoted_back(
    capsys, tmp_path, transport, password
) -> None:
    basic = base64.b64encode(f"user:{password}".encode()).decode()
    with EchoingOpenAI(echo_key=True) as server:
        server.script(Fault("500"))  # quoted back in an error, then in every answer
        url = f"http://user:{password}@127.0.0.1:{server.port}/v1"
        code, written = solve_and_view(capsys, tmp_path, url, transport)
        assert len(server.requests) == 2
    assert code == 0
    trace = written[str(tmp_path / "run.json")].decode()
    assert "(you sent 'Basic ***')" in trace and "(debug: you sent Basic ***)" in trace
    assert_no_piece(basic, written, piece=min(10, len(basic)))


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("value", ["k3y", "a+long/Secret=Value-42"])
def test_a_query_key_quoted_back_in_a_path_is_masked(capsys, tmp_path, transport, value) -> None:
    """The server quotes the path it was sent (`no route /wrong/chat/completions?key=...`)."""
    from urllib.parse import quote

    with FakeOpenAI() as server:
        url = f"http://127.0.0.1:{server.port}/wrong?key={quote(value, safe='')}"
        code, written = solve_and_view(capsys, tmp_path, url, transport)
        assert len(server.requests) == 1 and "?key=" in server.requests[0].path
    stderr = written["stderr"].decode()
    assert code == 2 and stderr.count("\n") == 1
    assert "refused the request (HTTP 404): no route /wrong/chat/completions?key=***" in stderr
    for where, data in written.items():
        for form in {value, quote(value, safe="")}:
            assert form.encode() not in data, f"the query key leaked into {where}"
