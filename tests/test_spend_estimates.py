"""A server that reports no `usage`: tokens are counted from the texts, marked estimated in the
result, the JSON output, the summary line and the trace, and the token and cost caps hold on
the estimates (before, `--max-tokens 3000` finished "clean" after 4,000+ served tokens)."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from thoughtgraph.spend import usage as usage_module
from thoughtgraph.spend.usage import count_tokens

from .conftest import run_cli
from .fake_openai import FakeOpenAI
from .test_ledger import _no_real_endpoint  # noqa: F401  (autouse: no real key, fresh endpoints)

INPUT_128 = str([(i * 7) % 10 for i in range(128)])


def solve(capsys: Any, server: FakeOpenAI, *args: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--model", "openai:gpt-4o-mini", "--base-url",
        server.base_url, "--input", INPUT_128, "--no-progress", "--concurrency", "1",
        "--json", *args,
    )  # fmt: skip
    return code, json.loads(out), err


def test_max_tokens_stops_a_run_whose_server_sends_no_usage(capsys: Any, tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    with FakeOpenAI(report_usage=False) as server:
        code, free, _err = solve(capsys, server)
        assert code == 0 and free["clean"] and free["tokens"] > 4000  # what the run costs
        assert free["tokens_estimated"] and free["estimated_token_requests"] == free["requests"]
        before = len(server.requests)
        code, data, _err = solve(capsys, server, "--max-tokens", "3000", "--trace", str(trace))
        sent = len(server.requests) - before
    assert code == 1 and not data["clean"] and data["status"] == "not clean"
    assert data["stop_reason"] == "budget exhausted" and "max_tokens=3,000" in data["stop_detail"]
    assert sent == data["requests"] < free["requests"]
    assert data["tokens_estimated"] and data["estimated_token_requests"] == sent
    # one request at a time: each one left while less than the cap was counted
    calls = sorted(json.loads(trace.read_text())["calls"], key=lambda c: c["started"])
    tokens = [c["usage"]["prompt_tokens"] + c["usage"]["completion_tokens"] for c in calls]
    assert sum(tokens[:-1]) < 3000 <= sum(tokens) == data["tokens"]


def test_max_cost_holds_on_estimates(capsys: Any) -> None:
    with FakeOpenAI(report_usage=False) as server:
        args = ("--price-in", "1000", "--price-out", "1000", "--max-cost", "1")  # $0.001/token
        code, data, _err = solve(capsys, server, *args)
    assert code == 1 and data["stop_reason"] == "budget exhausted"
    assert "max_cost=$1 reached" in data["stop_detail"] and data["cost"] > 0


def test_estimates_are_marked_in_the_summary_and_the_trace(capsys: Any, tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    with FakeOpenAI(report_usage=False) as server:
        code, _out, err = run_cli(
            capsys, "solve", "sorting", "--model", "openai:gpt-4o-mini", "--base-url",
            server.base_url, "--input", "[3, 1, 2]", "--scheme", "io", "--no-progress",
            "--trace", str(trace),
        )  # fmt: skip
    assert code == 0
    summary = err + _out
    assert "~" in summary and "estimated for 1 request that reported no usage" in summary
    calls = json.loads(trace.read_text())["calls"]
    assert [a["estimated"] for c in calls for a in c["attempts"]] == [True]
    assert calls[0]["usage"]["prompt_tokens"] == count_tokens(calls[0]["prompt"])


def test_a_server_that_reports_usage_is_not_estimated(capsys: Any) -> None:
    with FakeOpenAI() as server:
        code, data, _err = solve(capsys, server, "--scheme", "io")
    assert code == 0 and not data["tokens_estimated"] and data["estimated_token_requests"] == 0


def test_count_tokens_uses_tiktoken_where_it_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    class Encoding:
        def encode(self, text: str, disallowed_special: Any = ()) -> list[int]:
            return list(range(len(text.split())))  # one token a word

    fake = types.ModuleType("tiktoken")
    fake.get_encoding = lambda name: Encoding()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tiktoken", fake)
    usage_module._encoder.cache_clear()
    try:
        assert count_tokens("one two three four five") == 5
        assert usage_module.tokenizer() == "tiktoken o200k_base"
    finally:
        usage_module._encoder.cache_clear()


def test_count_tokens_falls_back_when_tiktoken_cannot_load(monkeypatch: pytest.MonkeyPatch) -> None:
    def offline(name: str) -> Any:
        raise OSError("cannot download the encoding")  # what tiktoken does offline

    fake = types.ModuleType("tiktoken")
    fake.get_encoding = offline  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tiktoken", fake)
    usage_module._encoder.cache_clear()
    try:
        assert count_tokens("x" * 41) == 11  # 4 characters a token, rounded up
        assert usage_module.tokenizer() == "4 characters a token"
    finally:
        usage_module._encoder.cache_clear()
