"""An answer cache made under other settings (a default completion cap that changed between
versions, another temperature) misses, and says so in one line (models/cache.py): a cache from
the last version's code paid every answer again, silently. The server is tests/fake_openai.py
on 127.0.0.1."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from thoughtgraph.models import inflight

from .conftest import run_cli
from .fake_openai import FakeOpenAI


@pytest.fixture(autouse=True)
def _no_real_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"):
        monkeypatch.delenv(name, raising=False)
    inflight.forget_endpoints()


def solve(capsys, server: FakeOpenAI, cache: Path, *args: str) -> tuple[int, str]:
    code, _, err = run_cli(
        capsys,
        "solve",
        "sorting",
        "--input",
        "[3, 1, 2, 5, 4]",
        "--scheme",
        "io",
        "--model",
        "openai:m",
        "--base-url",
        server.base_url,
        "--cache",
        str(cache),
        "--no-progress",
        *args,
    )
    return code, err


def notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("note: the answer cache")]


def test_answers_made_under_another_cap_are_paid_again_and_said_so(capsys, tmp_path) -> None:
    cache = tmp_path / "answers.sqlite"
    with FakeOpenAI() as server:
        first, err = solve(capsys, server, cache, "--max-completion-tokens", "300")
        same, same_err = solve(capsys, server, cache, "--max-completion-tokens", "300")
        paid = len(server.requests)
        other, other_err = solve(capsys, server, cache)  # the default cap: 4 x answer + 256
        sent = len(server.requests)
    assert (first, same, other) == (0, 0, 0)
    assert paid == 1 and notes(err) == notes(same_err) == []  # the second run: all from cache
    assert sent == 2  # paid again, as the note says
    assert notes(other_err) == [
        f"note: the answer cache at {cache} holds answers to these prompts made with other "
        "settings (max_tokens 300 there, 276 here): they are not reused, so these answers are "
        "paid again"
    ]


def test_a_cache_from_before_the_requests_table_is_read_and_noted(capsys, tmp_path) -> None:
    """A file made by the previous code (no `requests` table): migrated, its rows found."""
    cache = tmp_path / "answers.sqlite"
    with FakeOpenAI() as server:
        solve(capsys, server, cache, "--max-completion-tokens", "300")
        with sqlite3.connect(cache) as db:
            db.execute("DROP TABLE requests")
            db.execute("DELETE FROM _migrations WHERE name = 'm003_requests'")
        code, err = solve(capsys, server, cache, "--max-completion-tokens", "310")
    assert code == 0 and len(notes(err)) == 1 and "max_tokens 300 there, 310 here" in err
