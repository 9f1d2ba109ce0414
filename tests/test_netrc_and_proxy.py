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

from thoughtgraph.models import inflight, transport

from .conftest import run_cli
from .fake_openai import PATHS, FakeOpenAI, _Handler
from .raw_http import RawServer, response

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
            fake.proxy_auth.append(self.headers.get("Proxy-Authorization", ""))
        return super()._respond(fake, body, auth, fault)


@dataclass
class RecordingOpenAI(FakeOpenAI):
    seen: list[tuple[str, str]] = field(default_factory=list)
    proxy_auth: list[str] = field(default_factory=list)  # each request's Proxy-Authorization

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
    monkeypatch.delenv("REQUEST_METHOD", raising=False)
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


def solve(capsys, server: FakeOpenAI | str, transport: str) -> tuple[int, str, str]:
    base_url = server if isinstance(server, str) else server.base_url
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
        base_url,
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


@pytest.mark.parametrize("transport_name", TRANSPORTS)
def test_all_proxy_stands_in_for_a_scheme_of_its_own(capsys, monkeypatch, server, transport_name):
    with RecordingOpenAI() as proxy:
        monkeypatch.setenv("ALL_PROXY", f"http://127.0.0.1:{proxy.port}")
        code, _, err = solve(capsys, server, transport_name)
    assert code == 0 and "Traceback" not in err
    assert [path for path, _ in proxy.seen] == [f"http://127.0.0.1:{server.port}{PATHS[0]}"]
    assert server.seen == []


@pytest.mark.parametrize("transport_name", TRANSPORTS)
def test_the_proxy_s_credentials_go_to_the_proxy_and_are_never_shown(
    capsys, monkeypatch, server, transport_name
):
    with RecordingOpenAI() as proxy:
        monkeypatch.setenv("http_proxy", f"http://agent:proxy-pw-SECRET-7@127.0.0.1:{proxy.port}")
        code, out, err = solve(capsys, server, transport_name)
    assert code == 0 and "Traceback" not in err
    token = base64.b64encode(b"agent:proxy-pw-SECRET-7").decode()
    assert proxy.proxy_auth == [f"Basic {token}"]
    assert [auth for _, auth in proxy.seen] == ["Bearer sk-no-key-required"]  # ours, apart
    assert "SECRET" not in out + err


@pytest.mark.parametrize("transport_name", TRANSPORTS)
def test_https_proxy_carries_an_https_endpoint_and_only_it(capsys, monkeypatch, transport_name):
    """An https endpoint goes through HTTPS_PROXY (a CONNECT tunnel; this proxy refuses it, so
    the request fails in one line); HTTP_PROXY is not for it, nor HTTPS_PROXY for http://."""
    refusing = RawServer([response(b"", status="502 Bad Gateway") + b"<close>"] * 4)
    unused = RawServer([])
    try:
        monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{refusing.port}")
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{unused.port}")
        code, _, err = solve(capsys, "https://127.0.0.1:9/v1", transport_name)
        assert code != 0 and "Traceback" not in err and len(err.strip().splitlines()) == 1
        assert [r.split(b"\r\n")[0] for r in refusing.requests] == [b"CONNECT 127.0.0.1:9 HTTP/1.1"]
        assert unused.requests == []
        with RecordingOpenAI() as server:  # an http endpoint: HTTP_PROXY's, not HTTPS_PROXY's
            monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.port}")
            monkeypatch.setenv("NO_PROXY", "")
            code, _, err = solve(capsys, "http://127.0.0.1:9/v1", transport_name)
            assert code == 0 and [p for p, _ in server.seen] == [f"http://127.0.0.1:9{PATHS[0]}"]
        assert len(refusing.requests) == 1
    finally:
        refusing.close()
        unused.close()


def test_the_environment_is_read_once_per_endpoint_not_per_request(monkeypatch, server):
    """aiohttp's trust_env looked the proxy and ~/.netrc up in a thread for every request."""
    import asyncio

    from thoughtgraph.models.openai import OpenAIModel

    calls = {"proxy": 0, "netrc": 0}
    env_proxy, netrc_authorization = transport.env_proxy, transport.netrc_authorization

    def counted_proxy(*args: Any) -> Any:
        calls["proxy"] += 1
        return env_proxy(*args)

    def counted_netrc(*args: Any) -> Any:
        calls["netrc"] += 1
        return netrc_authorization(*args)

    monkeypatch.setattr(transport, "env_proxy", counted_proxy)
    monkeypatch.setattr(transport, "netrc_authorization", counted_netrc)
    write_netrc("someone", "netrc-pw-SECRET-42")
    model = OpenAIModel("m", base_url=server.base_url, max_retries=0)

    async def five() -> None:
        for _ in range(5):
            await model.complete("Sort the list.\n<part>[3, 1]</part>")

    asyncio.run(five())
    assert len(server.seen) == 5 and calls == {"proxy": 1, "netrc": 1}
    assert {auth for _, auth in server.seen} == {
        "Basic " + base64.b64encode(b"someone:netrc-pw-SECRET-42").decode()
    }


@pytest.mark.parametrize(
    ("environment", "scheme", "host", "expected"),
    [
        ({"HTTP_PROXY": "http://p:1"}, "http", "api.example.com", "http://p:1"),
        ({"HTTP_PROXY": "http://p:1", "http_proxy": "http://q:2"}, "http", "h", "http://q:2"),
        ({"HTTP_PROXY": "http://p:1", "http_proxy": ""}, "http", "h", None),  # lower-case wins
        ({"HTTPS_PROXY": "http://p:1"}, "http", "h", None),
        ({"HTTPS_PROXY": "http://p:1"}, "https", "h:443", "http://p:1"),
        ({"ALL_PROXY": "http://a:1", "HTTPS_PROXY": "http://s:1"}, "https", "h", "http://s:1"),
        ({"ALL_PROXY": "http://a:1"}, "http", "h", "http://a:1"),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "*"}, "http", "h", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "x, h"}, "http", "h:8000", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "h:8000"}, "http", "h:8000", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "h:9"}, "http", "h:8000", "http://p:1"),
        ({"HTTP_PROXY": "http://p:1", "no_proxy": ".example.com"}, "http", "a.example.com", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "example.com"}, "http", "a.Example.com", None),
        (
            {"HTTP_PROXY": "http://p:1", "NO_PROXY": "example.com"},
            "http",
            "badexample.com",
            "http://p:1",
        ),
        ({"HTTP_PROXY": "http://p:1", "REQUEST_METHOD": "GET"}, "http", "h", None),  # CGI
        ({"http_proxy": "http://q:2", "REQUEST_METHOD": "GET"}, "http", "h", "http://q:2"),
    ],
)
def test_which_proxy_the_environment_names(monkeypatch, environment, scheme, host, expected):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert transport.env_proxy(scheme, host) == expected
