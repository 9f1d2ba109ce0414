"""CachedModel: hits and misses, sample-index keys, persistence, crash safety, the schema."""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from thoughtgraph.errors import ModelError, ThoughtgraphError
from thoughtgraph.models.base import Completion
from thoughtgraph.models.cache import MIGRATIONS, CachedModel
from thoughtgraph.spend.usage import Usage

pytestmark = pytest.mark.anyio


class CountingModel:
    """Every answer in the process different (`prompt#k`), every call recorded."""

    answers = itertools.count()

    simulated = False

    def __init__(self, name: str = "count", temperature: float = 1.0) -> None:
        self.name = name
        self.settings = {"temperature": temperature, "max_tokens": None}
        self.calls: list[tuple[str, int]] = []
        self.fail_next = False

    async def complete(self, prompt: str, n: int = 1) -> list[Completion]:
        self.calls.append((prompt, n))
        numbers = [next(self.answers) for _ in range(n)]
        await asyncio.sleep(0)  # let concurrent calls interleave
        if self.fail_next:
            self.fail_next = False
            raise ModelError("boom")
        return [Completion(f"{prompt}#{k}", Usage(10, 3 + i)) for i, k in enumerate(numbers)]


def texts(answers: list[Completion]) -> list[str]:
    return [a.text for a in answers]


async def test_miss_then_hit_across_instances(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    first = CachedModel(CountingModel(), path)
    fresh = await first.complete("p", n=3)
    assert len(set(texts(fresh))) == 3 and not any(a.cached for a in fresh)
    assert (first.hits, first.misses) == (0, 3)

    inner = CountingModel()
    second = CachedModel(inner, path)  # a rerun
    again = await second.complete("p", n=3)
    assert texts(again) == texts(fresh) and all(a.cached for a in again)
    assert [a.usage for a in again] == [a.usage for a in fresh]  # stored usage comes back
    assert (second.hits, second.misses) == (3, 0) and inner.calls == []


async def test_samples_are_keyed_by_index(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    await CachedModel(CountingModel(), path).complete("p", n=2)
    inner = CountingModel()
    rerun = CachedModel(inner, path)
    answers = await rerun.complete("p", n=3)  # samples 0, 1 cached; 2 is new
    assert [a.cached for a in answers] == [True, True, False]
    assert len(set(texts(answers))) == 3
    assert inner.calls == [("p", 1)]
    assert (rerun.hits, rerun.misses) == (2, 1)


async def test_repeated_requests_in_a_run_are_new_samples_and_replay_on_rerun(
    tmp_path: Path,
) -> None:
    """k calls of one prompt (k samples, or a retry) must not collapse into one answer."""
    path = tmp_path / "cache.sqlite"
    run = CachedModel(CountingModel(), path)
    first = [(await run.complete("p"))[0].text for _ in range(3)]
    assert len(set(first)) == 3
    rerun = CachedModel(CountingModel(), path)
    assert [(await rerun.complete("p"))[0].text for _ in range(3)] == first
    assert rerun.hits == 3


async def test_settings_and_model_are_part_of_the_key(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    await CachedModel(CountingModel(temperature=1.0), path).complete("p")
    hotter = CachedModel(CountingModel(temperature=0.2), path)
    other = CachedModel(CountingModel(name="other"), path)
    assert not (await hotter.complete("p"))[0].cached
    assert not (await other.complete("p"))[0].cached


async def test_failures_are_not_cached_and_free_their_index(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    inner = CountingModel()
    run = CachedModel(inner, path)
    inner.fail_next = True
    with pytest.raises(ModelError):
        await run.complete("p")
    retried = await run.complete("p")  # takes sample 0 again
    assert run.key("p", 0) in _keys(path)
    rerun = CachedModel(CountingModel(), path)
    assert (await rerun.complete("p"))[0].text == retried[0].text  # lines up with the rerun


async def test_concurrent_calls(tmp_path: Path) -> None:
    run = CachedModel(CountingModel(), tmp_path / "cache.sqlite")
    results = await asyncio.gather(*(run.complete(f"q{i % 4}", n=2) for i in range(40)))
    assert sum(len(r) for r in results) == 80
    assert len({a.text for r in results for a in r}) == 80  # 20 samples of each of 4 prompts
    assert (run.hits, run.misses) == (0, 80)
    rerun = CachedModel(CountingModel(), tmp_path / "cache.sqlite")
    again = await asyncio.gather(*(rerun.complete(f"q{i % 4}", n=2) for i in range(40)))
    assert [texts(r) for r in again] == [texts(r) for r in results]


async def test_answers_are_committed_before_they_are_returned(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    run = CachedModel(CountingModel(), path)
    await run.complete("p", n=2)
    assert len(_keys(path)) == 2  # visible to another connection: committed


@pytest.mark.slow
def test_survives_kill_9(tmp_path: Path) -> None:
    """A killed run keeps every answer it received; the rerun pays only for the rest."""
    path = tmp_path / "cache.sqlite"
    script = textwrap.dedent(f"""
        import asyncio, sys
        sys.path.insert(0, {str(Path(__file__).parent.parent)!r})
        from tests.test_cache import CountingModel
        from thoughtgraph.models.cache import CachedModel

        class Hangs(CountingModel):
            async def complete(self, prompt, n=1):
                if prompt == "b":
                    print("a answered", flush=True)
                    await asyncio.sleep(60)
                return await super().complete(prompt, n)

        async def main():
            model = CachedModel(Hangs(), {str(path)!r})
            await model.complete("a", n=2)
            await model.complete("b")

        asyncio.run(main())
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "a answered"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()  # type: ignore[union-attr]
    inner = CountingModel()
    rerun = CachedModel(inner, path)
    assert texts(asyncio.run(rerun.complete("a", n=2))) == ["a#0", "a#1"]
    assert inner.calls == []


def test_wal_mode_and_migrations_table(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    CachedModel(CountingModel(), path).close()
    CachedModel(CountingModel(), path).close()  # reopening applies nothing twice
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    applied = [row[0] for row in db.execute("SELECT name FROM _migrations ORDER BY rowid")]
    assert applied == [name for name, _ in MIGRATIONS] and applied[0] == "m001_answers"


def test_the_cache_is_exactly_where_asked(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dir" / "answers.db"
    CachedModel(CountingModel(), path).close()
    assert path.is_file()


def test_unusable_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "not-a-db"
    path.write_text("this is not sqlite" * 100)
    with pytest.raises(ThoughtgraphError, match="cannot open the answer cache"):
        CachedModel(CountingModel(), path)


def test_wrapper_is_transparent(tmp_path: Path) -> None:
    inner = CountingModel(name="m")
    cached = CachedModel(inner, tmp_path / "c.db")
    assert (cached.name, cached.simulated, cached.settings) == ("m", False, inner.settings)


def _keys(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {row[0] for row in db.execute("SELECT key FROM answers")}
