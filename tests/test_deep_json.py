"""Every JSON body and file thoughtgraph parses is bounded in depth and integer size
(io/strictload.py `read_json`): a response of 200,000 nested lists was a `RecursionError`
traceback that killed an eval and lost its paid answers; now it is one counted, failed request
and the eval goes on. A data file holding a 5,000-digit integer is one line. Servers are
tests/fake_openai.py on 127.0.0.1, on both transports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from thoughtgraph.evaluation.runner import load_results
from thoughtgraph.io.strictload import NumberTooLongError, TooDeepError, read_json
from thoughtgraph.models import inflight

from .conftest import run_cli
from .fake_openai import FakeOpenAI, Fault

DEEP = b"[" * 200_000 + b"]" * 200_000
LONG_NUMBER = "1" * 5000


@pytest.fixture(autouse=True)
def _no_real_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"):
        monkeypatch.delenv(name, raising=False)
    inflight.forget_endpoints()


def test_read_json_refuses_depth_and_long_numbers_in_one_line() -> None:
    with pytest.raises(TooDeepError, match=r"^nested too deeply"):
        read_json(DEEP)
    with pytest.raises(NumberTooLongError, match=r"^a number has 5000 digits"):
        read_json('{"input": [' + LONG_NUMBER + "]}")
    assert read_json('{"a": 1, "a": 2}') == {"a": 2}  # not strict: a repeated key keeps the last


@pytest.mark.parametrize("transport", ["lean", "sdk"])
@pytest.mark.parametrize("body", [DEEP, b'{"choices": ' + LONG_NUMBER.encode() + b"}"])
def test_an_unreadable_answer_is_one_failed_request_and_the_eval_goes_on(
    capsys, tmp_path, transport, body
) -> None:
    out = tmp_path / "run"
    with FakeOpenAI() as server:
        server.script(Fault("delay"), Fault("delay"), Fault("raw", body=body))  # the 3rd request
        code, _, err = run_cli(
            capsys,
            "eval",
            "sorting",
            "--samples",
            "6",
            "--schemes",
            "io",
            "--concurrency",
            "1",
            "--model",
            f"openai:m,transport={transport},max_retries=0",
            "--base-url",
            server.base_url,
            "--no-progress",
            "--out",
            str(out),
        )
        seen = len(server.requests)
    assert "Traceback" not in err and "RecursionError" not in err
    rows = load_results(out)
    assert len(rows) == 6 and seen == 6 == sum(r.requests for r in rows)  # counted, as seen
    assert sum(r.completions for r in rows) == 5  # every other answer kept
    assert code == 2 and "1 of 6 pairs got no answer from the model" in err.splitlines()[-1]


def test_a_data_file_holding_a_5000_digit_integer_is_one_line(capsys, tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps({"input": [3, 1, 2]}) + "\n" + '{"input": [' + LONG_NUMBER + "]}\n")
    code, _, err = run_cli(capsys, "eval", "sorting", "--data", str(data), "--out", str(tmp_path))
    assert code == 2 and err == (
        "error: rows.jsonl row 2: a number has 5000 digits (at most 4300 are read)\n"
    )


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("x = " + "[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("x = " + LONG_NUMBER, "a number has more than 4300 digits"),
    ],
)
def test_a_toml_task_file_nested_deep_or_with_a_long_number_is_one_line(
    capsys, tmp_path: Path, text: str, why: str
) -> None:
    path = tmp_path / "task.toml"
    path.write_text('name = "t"\n' + text + "\n")
    code, _, err = run_cli(capsys, "solve", str(path), "--input", "x")
    assert code == 2 and err.startswith(f"error: task file {path}: {why}") and err.count("\n") == 1
