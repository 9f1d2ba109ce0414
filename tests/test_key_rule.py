"""The API-key rule (thoughtgraph.models.secrets): a placeholder key changes nothing, a secret
appears nowhere. Both ways are tested against a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import base64
import json
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import thoughtgraph
from thoughtgraph.cli.main import main
from thoughtgraph.models import secrets
from thoughtgraph.models.openai import OpenAIModel

from .fake_openai import FakeOpenAI, Fault, _Handler
from .test_resume import cli_env
from .test_secrets import written

PLACEHOLDERS = ["x", "1", "EMPTY", "none", "sk-no-key-required"]
# Every placeholder inside an answer that also holds a sortable list.
ANSWER = "The maximum was exceeded, none EMPTY sk-no-key-required x 1.\nOutput: [1, 1, 2, 11, 111]"
LONG_KEY = "sk-proj-" + "Q7x1Zr9Lw2Kd8Vb3Nc6Mh4Tg5Yf0Pj"  # 40 characters


@dataclass
class FixedOpenAI(FakeOpenAI):
    """Answers every prompt with `text` (any `{auth}` replaced by the Authorization header
    it was sent) and echoes that header into `x-request-id`, which the SDK logs at debug."""

    text: str = ANSWER

    def start(self):  # type: ignore[no-untyped-def]
        super().start()
        assert self._httpd is not None
        self._httpd.RequestHandlerClass = _FixedHandler
        return self


class _FixedHandler(_Handler):
    def _respond(self, fake, body, auth, fault):  # type: ignore[no-untyped-def]
        self._auth = auth
        if fault is None and isinstance(body, dict) and body.get("messages"):
            texts = [fake.text.replace("{auth}", auth)] * int(body.get("n", 1))
            from .fake_openai import _completion

            return self._json(200, _completion(body, "p", texts, None, True))
        return super()._respond(fake, body, auth, fault)

    def _send(self, status, payload, headers):  # type: ignore[no-untyped-def]
        return super()._send(status, payload, {**headers, "x-request-id": self._auth})


def test_the_rule_for_what_is_a_secret():
    for placeholder in [*PLACEHOLDERS, "sk-xxx", "ollama", "lm-studio", "", None, "a" * 40]:
        assert not secrets.is_secret(placeholder), placeholder
    assert secrets.is_secret(LONG_KEY)
    assert secrets.is_secret("token-abc123")  # vLLM's documented example of a real key


@pytest.mark.parametrize("key", ["sk-xxxxxxxxxxxxxxxx", "123456789012345", "sk-0000000000000000"])
def test_placeholder_shaped_and_numeric_keys_are_not_secrets(key: str):
    """A run of one letter after a prefix is a placeholder; digits alone would mask numbers."""
    assert not secrets.is_secret(key)


def test_only_secret_named_query_values_are_looked_for_in_answers():
    url = "https://x.example/v1?api-version=2024-08-01-preview&api-key=Zq8Lw2Kd8Vb3Nc6&sig=a1B2c3D4e5F6"
    assert secrets.url_secrets(url) == ["Zq8Lw2Kd8Vb3Nc6", "a1B2c3D4e5F6"]
    assert "api-version=***" in secrets.public_url(url)  # still masked when the URL is shown


@pytest.mark.parametrize("key", PLACEHOLDERS)
def test_a_placeholder_key_leaves_answers_byte_identical(key: str, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with FixedOpenAI() as server:
        model = OpenAIModel("m", base_url=server.base_url, max_retries=0)
        answers = asyncio.run(model.complete("sort [2, 1]", n=1))
        assert server.requests[0].had_key
    assert [a.text for a in answers] == [ANSWER]
    assert secrets.redact(ANSWER) == ANSWER


@pytest.mark.slow  # a subprocess
@pytest.mark.parametrize("key", ["1", "x"])
def test_a_placeholder_key_changes_no_parse_and_no_cache_entry(key: str, tmp_path: Path):
    """The issue's failure: with OPENAI_API_KEY=1 the answer [1, 1, 2] could not be parsed."""
    cache, trace = tmp_path / "answers.sqlite", tmp_path / "run.json"
    with FixedOpenAI(text="Output: [1, 1, 2, 11, 111] (maximum exceeded)") as server:
        run = subprocess.run(
            [
                *(sys.executable, "-m", "thoughtgraph.cli.main", "solve", "sorting"),
                *("--input", "[111, 2, 11, 1, 1]", "--scheme", "io", "--json"),
                *("--model", "openai:m", "--base-url", server.base_url),
                *("--cache", str(cache), "--trace", str(trace)),
            ],
            env=cli_env() | {"OPENAI_API_KEY": key},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["output"] == [1, 1, 2, 11, 111]
    assert "***" not in run.stdout + trace.read_text()
    with sqlite3.connect(cache) as db:
        assert [t for (t,) in db.execute("SELECT text FROM answers")] == [
            "Output: [1, 1, 2, 11, 111] (maximum exceeded)"
        ]


@pytest.mark.slow  # a subprocess
@pytest.mark.parametrize("transport", ["lean", "sdk"])
def test_a_long_key_echoed_into_answers_errors_and_headers_appears_nowhere(
    tmp_path: Path, transport: str
):
    trace, cache = tmp_path / "run.json", tmp_path / "answers.sqlite"
    text = "Output: [1, 2, 3]\n(debug: you sent {auth})"
    with FixedOpenAI(text=text, require_key=LONG_KEY, echo_key=True) as server:
        server.script(Fault("500", 0.01), Fault("429", 0.01))  # errors quoting the key
        run = subprocess.run(
            [
                *(sys.executable, "-m", "thoughtgraph.cli.main", "solve", "sorting"),
                *("--input", "[3, 1, 2]", "--scheme", "io", "--json", "-v"),
                *("--model", f"openai:m,transport={transport}", "--base-url", server.base_url),
                *("--max-retries", "2", "--cache", str(cache), "--trace", str(trace)),
            ],
            # OPENAI_LOG=debug: the SDK logs the response's x-request-id (the echoed header)
            env=cli_env() | {"OPENAI_API_KEY": LONG_KEY, "OPENAI_LOG": "debug"},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert [r.fault for r in server.requests[:2]] == ["500", "429"]
    assert run.returncode == 0, run.stderr
    if transport == "sdk":  # the lean transport logs no response header at all
        assert "request_id: Bearer ***" in run.stderr  # the header echo reached the log, redacted
    assert "(debug: you sent Bearer ***)" in trace.read_text()  # the answer echo, redacted
    for where, data in written(tmp_path, run.stdout, run.stderr).items():
        for fragment in (LONG_KEY, LONG_KEY[8:]):
            assert fragment.encode() not in data, f"the key leaked into {where}"


def test_a_key_with_a_pasted_no_break_space_is_one_clear_error(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-abc\u00a0" + LONG_KEY[8:])
    with pytest.raises(SystemExit) as exit_info:
        main(["solve", "sorting", "--input", "[2, 1]", "--model", "openai:m"])
    out, err = capsys.readouterr()
    assert exit_info.value.code == 2
    assert err == (
        "error: the API key in OPENAI_API_KEY has NO-BREAK SPACE (U+00A0) at character 7; "
        "an API key is plain ASCII with no spaces: retype or re-copy it\n"
    )
    assert LONG_KEY[8:] not in out + err
    assert "Bearer" not in out + err


@pytest.mark.slow  # a subprocess
def test_a_secret_in_the_base_url_query_is_left_out_of_errors_and_logs(tmp_path: Path):
    query_key = "Zq8" + LONG_KEY[8:]
    with FakeOpenAI() as server:
        server.script(Fault("404"))  # a refused request: its error line names the endpoint
        base = f"{server.base_url}?api-key={query_key}"
        trace = tmp_path / "run.json"
        run = subprocess.run(
            [
                *(sys.executable, "-m", "thoughtgraph.cli.main", "solve", "sorting"),
                *("--input", "[3, 1, 2]", "--scheme", "io", "-v", "--trace", str(trace)),
                *("--model", "openai:m", "--base-url", base, "--no-cache"),
            ],
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert server.requests  # the request was really made (and logged by httpx at -v)
    assert run.returncode == 2
    assert "api-key=***" in run.stderr
    for where, data in written(tmp_path, run.stdout, run.stderr).items():
        assert query_key[3:].encode() not in data, f"the URL's secret leaked into {where}"


def test_a_base_url_with_a_query_reaches_the_endpoint_with_the_query_on_every_request():
    """Azure-style `?api-version=...`: the SDK would put the path after the query (a 404)."""
    with FakeOpenAI() as server:
        base = f"{server.base_url}?api-version=2024-06-01"
        model = OpenAIModel("m", base_url=base, api_key="EMPTY", max_retries=0)
        result = thoughtgraph.solve("sorting", [3, 1, 2], model=model, scheme="io", max_requests=3)
        paths = [r.path for r in server.requests]
    assert result.output == [1, 2, 3]
    assert paths and all(p == "/v1/chat/completions?api-version=2024-06-01" for p in paths)


def test_public_url_masks_query_values_and_credentials():
    url = "http://user:pw-long-SECRET-9@127.0.0.1:8080/v1?api-key=abc&x=1"
    assert secrets.public_url(url) == "http://127.0.0.1:8080/v1?api-key=***&x=***"
    basic = base64.b64encode(b"user:pw-long-SECRET-9").decode()  # what goes out as Basic auth
    # x is not a secret name
    assert secrets.url_secrets(url) == ["pw-long-SECRET-9", basic, "abc"]
