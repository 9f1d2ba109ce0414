"""The environment's network settings, honoured alike by both transports (models/transport.py):
`~/.netrc` credentials for an endpoint given no key (a `~/.netrc` entry for the host was a
traceback on the lean transport, with 0 requests sent: aiohttp read it and refused to combine
it with our Authorization header), and the proxy of HTTP_PROXY unless NO_PROXY spares the
host. Every server, the proxy included, is on 127.0.0.1; HOME is a temporary folder."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from thoughtgraph.models import inflight

from .conftest import run_cli
from .fake_openai import PATHS, FakeOpenAI, _Handler

TRANSPORTS = ["lean", "sdk"]


class _RecordingHandler(_Handler):
    """Notes the Authorization header and the request line's target of every request."""

    @property
    def route(self) -> str:  # a proxy is sent the whole URL: http://host:port/v1/...
        path = self.path.split("?", 1)[0]
        if path.startswith("http://"):
            path = "/" + path.split("/", 3)[3]
        return path

    def _respond(self, fake: Any, body: Any, auth: str, fault: Any) -> None:
        with fake._lock:
            fake.seen.append((self.path, auth))
        return super()._respond(fake, body, auth, fault)


@dataclass
class RecordingOpenAI(FakeOpenAI):
    seen: list[tuple[str, str]] = field(default_factory=list)

    def start(self):  # type: ignore[no-untyped-def]
        super().start()
        assert self._httpd is not None
        self._httpd.RequestHandlerClass = _RecordingHandler
        return self


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No key, endpoint, cache or proxy from the machine; HOME a temporary folder."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE", "NETRC"):
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    inflight.forget_endpoints()


@pytest.fixture
def server() -> Iterator[RecordingOpenAI]:
    with RecordingOpenAI() as fake:
        yield fake


def write_netrc(login: str, password: str) -> None:
    netrc = Path.home() / ".netrc"
    netrc.write_text(f"machine 127.0.0.1\n  login {login}\n  password {password}\n")
    netrc.chmod(0o600)


def solve(capsys, server: FakeOpenAI, transport: str) -> tuple[int, str, str]:
    return run_cli(
        capsys,
        "solve",
        "sorting",
        "--input",
        "[3, 1, 2]",
        "--scheme",
        "io",
        "--model",
        f"openai:m,transport={transport}",
        "--base-url",
        server.base_url,
        "--max-retries",
        "0",
        "--no-cache",
        "--no-progress",
    )


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_netrc_credentials_are_sent_to_an_endpoint_given_no_key(capsys, server, transport) -> None:
    write_netrc("someone", "netrc-pw-SECRET-42")
    code, out, err = solve(capsys, server, transport)
    assert code == 0 and "Traceback" not in err and "[1, 2, 3]" in out
    basic = base64.b64encode(b"someone:netrc-pw-SECRET-42").decode()
    assert [auth for _, auth in server.seen] == [f"Basic {basic}"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_key_wins_over_a_netrc_entry(capsys, monkeypatch, server, transport) -> None:
    write_netrc("someone", "netrc-pw-SECRET-42")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-the-real-key")
    code, _, err = solve(capsys, server, transport)
    assert code == 0 and "Traceback" not in err
    assert [auth for _, auth in server.seen] == ["Bearer sk-test-the-real-key"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_malformed_netrc_is_ignored(capsys, server, transport) -> None:
    (Path.home() / ".netrc").write_text("machine\n")
    code, _, err = solve(capsys, server, transport)
    assert code == 0 and "Traceback" not in err
    assert [auth for _, auth in server.seen] == ["Bearer sk-no-key-required"]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("spared", [False, True])
def test_http_proxy_is_honoured_unless_no_proxy_spares_the_host(
    capsys, monkeypatch, server, transport, spared
) -> None:
    with RecordingOpenAI() as proxy:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
        if spared:
            monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        code, _, err = solve(capsys, server, transport)
        through_proxy = [path for path, _ in proxy.seen]
    assert code == 0 and "Traceback" not in err
    direct = f"http://127.0.0.1:{server.port}{PATHS[0]}"
    if spared:
        assert through_proxy == [] and len(server.seen) == 1
    else:
        assert through_proxy == [direct] and server.seen == []
