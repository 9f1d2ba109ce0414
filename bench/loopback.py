"""A loopback OpenAI-compatible server in its own process, for the HTTP benches.

    with loopback_server(latency=0.05) as base_url:
        ...  # point any OpenAI client at base_url

It is the test suite's server (tests/fake_openai.py): sorting prompts are answered by the
simulated model's answer function (error 0), every answer waits `latency` seconds, and its listen
backlog takes a burst of 1,024 connections. Running it in a child process keeps its work (and its
GIL) out of the client being measured.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_SERVE = """
import sys
sys.path.insert(0, {root!r})
from tests.fake_openai import FakeOpenAI
server = FakeOpenAI(error=0.0, latency={latency!r}).start()
print(server.base_url, flush=True)
sys.stdin.read()  # serve until the parent closes our stdin
"""


@contextmanager
def loopback_server(latency: float, python: str = sys.executable) -> Iterator[str]:
    """Start the server; yields its base URL (http://127.0.0.1:PORT/v1)."""
    code = _SERVE.format(root=str(ROOT), latency=latency)
    proc = subprocess.Popen(
        [python, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        if not base_url.startswith("http://"):
            raise RuntimeError("the loopback server did not start")
        yield base_url
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=10)
