"""The API key never appears anywhere we write: stdout, stderr (with -v logging), the JSON
output, the trace, the cache file, error lines. A hostile server quotes the key it was sent in
its error messages, so a leak through any error path would show."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from thoughtgraph.cli.main import main

from .fake_openai import FakeOpenAI, Fault, _Handler
from .test_openai_runs import free_port
from .test_resume import cli_env

SECRET = "sk-test-SECRET-123"
WRONG = "sk-test-WRONG-SECRET-456"


def written(tmp_path: Path, *streams: str) -> dict[str, bytes]:
    """Every output stream and every file the run left behind (cache -wal/-shm included)."""
    files = {str(p): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    return files | {f"stream {i}": s.encode() for i, s in enumerate(streams)}


@pytest.mark.slow
def test_the_key_never_leaks_into_any_output_or_file(tmp_path: Path):
    trace, cache = tmp_path / "run.json", tmp_path / "answers.sqlite"
    with FakeOpenAI(require_key=SECRET, echo_key=True, error=1.0) as server:
        quick = 0.01  # Retry-After seconds: the SDK's retries wait that long
        server.script(
            Fault("500", quick), Fault("500", quick), Fault("malformed"), Fault("429", quick)
        )
        argv = [
            sys.executable,
            "-m",
            "thoughtgraph.cli.main",
            "solve",
            "sorting",
            "--dataset",
            "sorting_032",
            "--sample",
            "5",
            "--model",
            "openai:gpt-4o-mini",
            "--base-url",
            server.base_url,
            "--max-retries",
            "1",
            "--concurrency",
            "1",
            "--json",
            "--trace",
            str(trace),
            "--cache",
            str(cache),
            "-v",
        ]
        run = subprocess.run(
            argv,
            env=cli_env() | {"OPENAI_API_KEY": SECRET},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        again = ["--api-key-env", "OTHER_KEY", "--no-cache", "--trace", str(tmp_path / "2.json")]
        rejected = subprocess.run(
            argv + again,
            env=cli_env() | {"OTHER_KEY": WRONG},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        answered = [r for r in server.requests if r.fault is None]

    assert run.returncode in (0, 1), run.stderr  # solved, or not clean after the faults
    assert answered and all(r.had_key for r in answered)  # the key was really sent (and used)
    assert "simulated 500 (you sent 'Bearer ***')" in trace.read_text()  # the echo, scrubbed
    assert "httpx" in run.stderr or "thoughtgraph:" in run.stderr  # -v logging was on
    assert rejected.returncode == 2
    assert rejected.stderr.endswith("rejected the API key (HTTP 401)\n")
    outputs = written(tmp_path, run.stdout, run.stderr, rejected.stdout, rejected.stderr)
    assert {str(cache), str(trace), str(tmp_path / "2.json")} <= set(outputs)
    for where, data in outputs.items():
        for key in (SECRET, WRONG, "SECRET-123", "SECRET-456"):
            assert key.encode() not in data, f"{key} leaked into {where}"


def test_credentials_in_the_base_url_are_left_out_of_messages(capsys):
    port = free_port()
    with pytest.raises(SystemExit):
        main(
            [
                "solve",
                "sorting",
                "--input",
                "[2, 1]",
                "--model",
                "openai:m",
                "--max-retries",
                "0",
                "--base-url",
                f"http://user:pw-SECRET-789@127.0.0.1:{port}/v1",
            ]
        )
    _, err = capsys.readouterr()
    assert err == (
        f"error: cannot reach the endpoint at http://127.0.0.1:{port}/v1 "
        "(connection refused or host not found)\n"
    )


class _EchoHandler(_Handler):
    """Notes the Authorization header of the request it serves (one thread per request)."""

    def _respond(self, fake, body, auth, fault):  # type: ignore[no-untyped-def]
        fake.sent.value = auth
        return super()._respond(fake, body, auth, fault)


@dataclass
class EchoingOpenAI(FakeOpenAI):
    """A local endpoint that quotes the Authorization header it got in every answer's content
    (FakeOpenAI's `echo_key` quotes it only in error messages)."""

    sent: threading.local = field(default_factory=threading.local)

    def start(self):  # type: ignore[no-untyped-def]
        super().start()
        assert self._httpd is not None
        self._httpd.RequestHandlerClass = _EchoHandler
        return self

    def _answer(self, prompt: str) -> str:
        return f"{super()._answer(prompt)}\n(debug: you sent {getattr(self.sent, 'value', '')})"


@pytest.mark.slow
def test_a_key_echoed_into_answer_content_is_scrubbed(tmp_path: Path):
    trace, cache = tmp_path / "run.json", tmp_path / "answers.sqlite"
    with EchoingOpenAI(require_key=SECRET) as server:
        argv = [
            sys.executable,
            "-m",
            "thoughtgraph.cli.main",
            "solve",
            "sorting",
            "--input",
            "[3, 1, 2, 5, 4]",
            "--model",
            "openai:gpt-4o-mini",
            "--base-url",
            server.base_url,
            "--json",
            "--trace",
            str(trace),
            "--cache",
            str(cache),
        ]
        run = subprocess.run(
            argv,
            env=cli_env() | {"OPENAI_API_KEY": SECRET},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert server.requests and all(r.had_key for r in server.requests)
    assert run.returncode in (0, 1), run.stderr
    assert "(debug: you sent Bearer ***)" in trace.read_text()  # the echo arrived, scrubbed
    assert "(debug: you sent Bearer ***)" in json.dumps(json.loads(run.stdout))
    outputs = written(tmp_path, run.stdout, run.stderr)
    assert {str(cache), str(trace)} <= set(outputs)
    for where, data in outputs.items():
        assert b"SECRET-123" not in data, f"the key leaked into {where}"
