"""The API key never appears anywhere we write: stdout, stderr (with -v logging), the JSON
output, the trace, the cache file, error lines. A hostile server quotes the key it was sent in
its error messages, so a leak through any error path would show."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from thoughtgraph.cli import main

from .fake_openai import FakeOpenAI, Fault
from .test_openai_runs import free_port
from .test_resume import cli_env

SECRET = "sk-test-SECRET-123"
WRONG = "sk-test-WRONG-SECRET-456"


def written(tmp_path: Path, *streams: str) -> dict[str, bytes]:
    """Every output stream and every file the run left behind (cache -wal/-shm included)."""
    files = {str(p): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    return files | {f"stream {i}": s.encode() for i, s in enumerate(streams)}


def test_the_key_never_leaks_into_any_output_or_file(tmp_path: Path):
    trace, cache = tmp_path / "run.json", tmp_path / "answers.sqlite"
    with FakeOpenAI(require_key=SECRET, echo_key=True, error=1.0) as server:
        quick = 0.01  # Retry-After seconds: the SDK's retries wait that long
        server.script(Fault("500", quick), Fault("500", quick), Fault("malformed"),
                      Fault("429", quick))
        argv = [sys.executable, "-m", "thoughtgraph.cli", "solve", "sorting", "--dataset",
                "sorting_032", "--sample", "5", "--model", "openai:gpt-4o-mini", "--base-url",
                server.base_url, "--max-retries", "1", "--concurrency", "1", "--json",
                "--trace", str(trace), "--cache", str(cache), "-v"]
        run = subprocess.run(argv, env=cli_env() | {"OPENAI_API_KEY": SECRET},
                             capture_output=True, text=True, timeout=60, check=False)
        again = ["--api-key-env", "OTHER_KEY", "--no-cache", "--trace", str(tmp_path / "2.json")]
        rejected = subprocess.run(argv + again,
                                  env=cli_env() | {"OTHER_KEY": WRONG}, capture_output=True,
                                  text=True, timeout=60, check=False)
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
        main(["solve", "sorting", "--input", "[2, 1]", "--model", "openai:m", "--max-retries",
              "0", "--base-url", f"http://user:pw-SECRET-789@127.0.0.1:{port}/v1"])
    _, err = capsys.readouterr()
    assert err == (f"error: cannot reach the endpoint at http://127.0.0.1:{port}/v1 "
                   "(connection refused or host not found)\n")
