"""`solve` and `eval` through the real `openai:` path against a real local model (opt-in).

Run with the server of `make local-model` up:  `.venv/bin/python -m pytest -m local_model`.
`make test` never selects these tests (pyproject's addopts). Selected, they are skipped (with
the reason) only when no server was started at all; a server that was started but is
unreachable, or up but too slow to answer /v1/models, fails them (scripts/local_model.py's
`expected_server`). The model is SmolLM2-135M: its answers are often wrong, so these
tests check what must hold whatever it answers: real requests made and counted, usage taken
from the server, answers parsed or scored as failures, files written, the run's exit code.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from thoughtgraph.models import inflight
from thoughtgraph.models.openai import OpenAIModel

from .test_local_model_script import load_script
from .test_resume import cli_env

pytestmark = pytest.mark.local_model

BASE_URL = os.environ.get(
    "THOUGHTGRAPH_LOCAL_MODEL_URL",
    f"http://127.0.0.1:{os.environ.get('LOCAL_MODEL_PORT', '8088')}/v1",
)
MODEL = os.environ.get("THOUGHTGRAPH_LOCAL_MODEL", "smollm2")
SLOW = ("--timeout", "300", "--max-completion-tokens", "200", "--concurrency", "1")


def exit_code_matches(run: subprocess.CompletedProcess[str], result: dict) -> bool:
    """The CLI's exit codes (cli/main.py, in its order): 1 when a budget stopped a run that is
    not clean; else 2 when no usable answer came (every answer failed or could not be parsed,
    a small model's often); else 0 (an answer, clean or not)."""
    if not result["clean"] and result["stop_reason"]:
        return run.returncode == 1
    if result["output"] is None:
        return run.returncode == 2
    return run.returncode == 0


@pytest.fixture(scope="module", autouse=True)
def _server() -> None:
    """Skip only when no server was started at all (no live server in the pid file of
    `make local-model`, nothing on the port, no URL given); a server that was expected but is
    unreachable, up but too slow to answer /v1/models, or serving another model fails."""
    verdict, why = load_script().expected_server(
        BASE_URL, explicit="THOUGHTGRAPH_LOCAL_MODEL_URL" in os.environ
    )
    if verdict == "skip":
        pytest.skip(why)
    if verdict == "fail":
        pytest.fail(why)
    with urllib.request.urlopen(f"{BASE_URL}/models", timeout=300) as response:
        names = [m.get("id") for m in json.load(response).get("data", [])]
    if MODEL not in names:
        pytest.fail(f"the server at {BASE_URL} serves {names}, not {MODEL!r}")


def thoughtgraph(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "thoughtgraph.cli.main", *args],
        env=cli_env() | {"OPENAI_API_KEY": "x"},  # a placeholder, as people type for local servers
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_solve_io_through_the_real_openai_path(tmp_path: Path):
    trace = tmp_path / "run.json"
    run = thoughtgraph(
        *("solve", "sorting", "--input", "[3, 1, 2]", "--scheme", "io", "--json"),
        *("--model", f"openai:{MODEL}", "--base-url", BASE_URL, *SLOW),
        *("--trace", str(trace), "--no-cache"),
    )
    result = json.loads(run.stdout)
    assert exit_code_matches(run, result), run.stderr
    assert result["paid_calls"] == 1 and result["failed_calls"] == 0
    assert result["prompt_tokens"] > 100  # usage as the server reports it (the prompt is long)
    assert result["completion_tokens"] > 0
    recorded = json.loads(trace.read_text())["result"]
    assert recorded["simulated"] is False
    assert recorded["model"] == f"openai:{MODEL}@" + BASE_URL.split("//")[1].split("/")[0]
    assert result["output"] is None or all(isinstance(x, int) for x in result["output"])


def test_solve_got_through_the_real_openai_path(tmp_path: Path):
    run = thoughtgraph(
        *("solve", "sorting", "--input", "[5, 2, 7, 1]", "--parts", "2", "--json"),
        *("--model", f"openai:{MODEL}", "--base-url", BASE_URL, *SLOW, "--no-cache"),
    )
    result = json.loads(run.stdout)
    assert exit_code_matches(run, result), run.stderr
    assert result["paid_calls"] >= 3  # two parts and at least one merge
    assert result["calls_by_kind"]["part"] >= 2  # an unusable part answer is asked again
    assert result["tokens"] == result["prompt_tokens"] + result["completion_tokens"] > 0


def test_eval_through_the_real_openai_path(tmp_path: Path):
    out = tmp_path / "eval"
    run = thoughtgraph(
        *("eval", "sorting", "--dataset", "sorting_008", "--samples", "2", "--schemes", "io"),
        *("--model", f"openai:{MODEL}", "--base-url", BASE_URL, *SLOW, "--parallel", "1"),
        *("--out", str(out), "--no-progress"),
    )
    assert run.returncode == 0, run.stderr
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    assert all(r["scheme"] == "io" for r in rows)
    assert (out / "summary.md").exists()
    assert "simulated" not in (out / "summary.md").read_text().lower()


def test_n_above_one_gets_n_answers_and_the_fallback_is_remembered():
    """llama-cpp-python's server returns one choice whatever `n` is (measured: docs/
    local-models.md); the client tops up with single calls and remembers the endpoint."""
    inflight.forget_endpoints()
    model = OpenAIModel(MODEL, base_url=BASE_URL, max_tokens=8, timeout=300, max_retries=0)

    async def ask() -> tuple[int, int]:
        first = await model.complete("Say a number.", n=3)
        second = await model.complete("Say a word.", n=2)
        return len(first), len(second)

    assert asyncio.run(ask()) == (3, 2)
    if not model.n_honoured:  # then every later request is a single call
        assert model.requests_needed(3) == 3


def test_a_placeholder_key_leaves_the_real_servers_answer_byte_identical(
    monkeypatch: pytest.MonkeyPatch,
):
    """The regression behind the key `x` these tests set: with OPENAI_API_KEY=x, every "x" in
    every answer once became `***`. The same greedy request (temperature 0) sent straight to
    the server and through OpenAIModel with the key `x` must come back the same text, and that
    text holds an "x" the old rule would have masked."""
    prompt = "Repeat exactly: x marks the box. Six xylophones."
    request = json.dumps(
        {
            "model": MODEL,
            "messages": [{"role": "user", "content": prompt}],
            "max_tokens": 24,
            "temperature": 0,
        }
    ).encode()
    raw = urllib.request.Request(
        f"{BASE_URL}/chat/completions", request, {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(raw, timeout=300) as response:
        direct = json.load(response)["choices"][0]["message"]["content"]
    assert "x" in direct, f"the prompt no longer draws an x from the model: {direct!r}"
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    model = OpenAIModel(MODEL, base_url=BASE_URL, max_tokens=24, temperature=0, timeout=300)
    (answer,) = asyncio.run(model.complete(prompt))
    assert answer.text == direct
    assert "***" not in answer.text
