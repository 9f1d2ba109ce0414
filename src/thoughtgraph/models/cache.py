"""A persistent answer cache: rerun an interrupted or repeated run without paying twice.

`CachedModel(inner, path)` wraps any model. The cache is one SQLite file, always at the `path`
you give (there is no default location); to clear it, delete that file (and its `-wal` / `-shm`
companions if present). Every answer is committed before it is returned, so a run killed with
`kill -9` and started again pays only for the calls whose answers had not yet arrived.

Keys are the SHA-256 of the canonical request: model name, prompt, the inner model's answer-
relevant `settings` (e.g. temperature, max_tokens) and the *sample index*. The sample index
counts the answers this `CachedModel` has handed out for that prompt so far: `complete(p, n=3)`
is samples 0, 1, 2; asking `p` again in the same run gives samples 3, 4, ... (so k samples or a
retry of the same prompt stay different answers, as they would from the live model), while a
rerun (a new `CachedModel` on the same file) replays samples 0, 1, 2, ... identically. The index
is taken when a call starts, before any await, so it follows the executor's deterministic call
order, not completion order; a call that fails gives its indices back to the next call of that
prompt, so the answers recorded line up with a rerun in which that call succeeds.

The cache may sit on either side of `RateLimitedModel` (both are `WrapperModel`s): hits cost
neither rate limit nor budget either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import heapq
import json
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, Self

from thoughtgraph.errors import FatalModelError, ThoughtgraphError
from thoughtgraph.models.base import Completion, LanguageModel, WrapperModel, complete_with
from thoughtgraph.spend.ledger import RequestRecorder
from thoughtgraph.spend.usage import Usage

KEY_VERSION = 1  # bump if the canonical request changes: old entries then simply miss

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[tuple[str, Migration]] = []


def migration(fn: Migration) -> Migration:
    """Register a schema step; steps run once each, in definition order, and are recorded."""
    MIGRATIONS.append((fn.__name__, fn))
    return fn


@migration
def m001_answers(db: sqlite3.Connection) -> None:
    db.execute(
        """CREATE TABLE answers (
            key TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            sample INTEGER NOT NULL,
            prompt TEXT NOT NULL,
            settings TEXT NOT NULL,
            text TEXT NOT NULL,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            created REAL NOT NULL
        )"""
    )


def migrate(db: sqlite3.Connection) -> None:
    """Bring the schema up to date; the `_migrations` table records the steps applied."""
    db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied REAL)")
    done = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    for name, step in MIGRATIONS:
        if name not in done:
            with db:  # each step and its record commit together
                step(db)
                db.execute("INSERT INTO _migrations VALUES (?, ?)", (name, time.time()))


class CachedModel(WrapperModel):
    """A `LanguageModel` that answers from the cache file when it can and records what it cannot.

    `hits` and `misses` count answers (samples), not requests. Name, settings and the rest are
    the inner model's (`WrapperModel`).
    """

    def __init__(self, inner: LanguageModel, path: str | Path) -> None:
        super().__init__(inner)
        self.path = Path(path)
        self.hits = 0
        self.misses = 0
        self._asked: Counter[str] = Counter()  # sample indices handed out per prompt
        self._free: dict[str, list[int]] = {}  # indices released by failed calls (heaps)
        self._lock = threading.Lock()
        self._db = _open(self.path)

    def __repr__(self) -> str:
        return f"CachedModel({self.inner!r}, {str(self.path)!r})"

    async def complete(
        self, prompt: str, n: int = 1, *, recorder: RequestRecorder | None = None
    ) -> list[Completion]:
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        samples = self._claim(prompt, n)  # before any await: follows the call order
        keys = [self.key(prompt, s) for s in samples]
        found = self._load(keys)
        if len(found) < n:
            # Another model on this file (a parallel pair of an evaluation) may be fetching the
            # same answers: wait for it and take them from the file rather than pay twice.
            waiting = [s for s, k in zip(samples, keys, strict=True) if k not in found]
            try:
                async with _fetching(self.path, [k for k in keys if k not in found]):
                    waiting = []  # from here `_complete_missing` gives back what it lacks
                    found = self._load(keys)
                    return await self._complete_missing(prompt, samples, keys, found, recorder)
            except BaseException:
                self._release(prompt, waiting)  # cancelled while waiting
                raise
        self.hits += n
        return [found[key] for key in keys]

    async def _complete_missing(
        self,
        prompt: str,
        samples: list[int],
        keys: list[str],
        found: dict[str, Completion],
        recorder: RequestRecorder | None = None,
    ) -> list[Completion]:
        """Ask the inner model for the samples not in the file, store them, return them all."""
        missing = [i for i, key in enumerate(keys) if key not in found]
        self.hits += len(keys) - len(missing)
        self.misses += len(missing)
        try:
            fresh = (
                await complete_with(self.inner, prompt, len(missing), recorder) if missing else []
            )
        except BaseException:
            self._release(prompt, [samples[i] for i in missing])
            raise
        # Fewer answers than asked (some parallel singles failed): every one that arrived is
        # kept under the first missing samples; the rest go back to the next call.
        filled, unfilled = missing[: len(fresh)], missing[len(fresh) :]
        self._release(prompt, [samples[i] for i in unfilled])
        self._store(prompt, [(samples[i], keys[i], fresh[j]) for j, i in enumerate(filled)])
        by_position = dict(zip(filled, fresh, strict=False))
        return [
            by_position[i] if i in by_position else found[key]
            for i, key in enumerate(keys)
            if i in by_position or key in found
        ]

    def would_answer(self, prompt: str, n: int = 1) -> bool:
        """True when the next `complete(prompt, n)` will be answered wholly from the file.

        Exact when nothing else calls `complete` in between (the executor asks right before
        calling, with no await between): that is how cache hits skip the budget check.
        """
        keys = [self.key(prompt, s) for s in self._next_samples(prompt, n)]
        return len(self._load(keys)) == n

    def _next_samples(self, prompt: str, n: int) -> list[int]:
        with self._lock:
            reused = sorted(self._free.get(prompt, []))[:n]
            start = self._asked[prompt]
        return sorted(reused + list(range(start, start + n - len(reused))))

    def _claim(self, prompt: str, n: int) -> list[int]:
        """The next n sample indices of this prompt, reusing those of failed calls first."""
        with self._lock:
            free = self._free.setdefault(prompt, [])
            reused = [heapq.heappop(free) for _ in range(min(n, len(free)))]
            start = self._asked[prompt]
            self._asked[prompt] += n - len(reused)
        return sorted(reused + list(range(start, start + n - len(reused))))

    def _release(self, prompt: str, samples: list[int]) -> None:
        """A failed call got no answer: its indices go to the next call, so that a rerun, which
        may not fail there, still lines up with the answers recorded."""
        with self._lock:
            for sample in samples:
                heapq.heappush(self._free.setdefault(prompt, []), sample)

    def key(self, prompt: str, sample: int) -> str:
        """SHA-256 of the canonical request (what determines this answer)."""
        request = {
            "v": KEY_VERSION,
            "model": self.name,
            "prompt": prompt,
            "settings": self.settings,
            "sample": sample,
        }
        canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- storage (short, synchronous, under a lock: safe from any thread or task) -----------
    def _load(self, keys: list[str]) -> dict[str, Completion]:
        marks = ",".join("?" * len(keys))
        with self._lock, self._failing("read"):
            rows = self._db.execute(
                f"SELECT key, text, prompt_tokens, completion_tokens FROM answers "
                f"WHERE key IN ({marks})",
                keys,
            ).fetchall()
        return {k: self._row(text, p, c) for k, text, p, c in rows}

    def _row(self, text: Any, prompt_tokens: Any, completion_tokens: Any) -> Completion:
        """A stored answer, checked: a damaged row stops the run rather than feed it garbage."""
        if not isinstance(text, str) or not all(
            _count(v) for v in (prompt_tokens, completion_tokens)
        ):
            raise FatalModelError(
                f"the answer cache at {self.path} is damaged (a row holds "
                f"{type(text).__name__} text, token counts {prompt_tokens!r}, "
                f"{completion_tokens!r}): delete it or give another --cache"
            )
        return Completion(text, Usage(prompt_tokens, completion_tokens), cached=True)

    def _store(self, prompt: str, rows: list[tuple[int, str, Completion]]) -> None:
        if not rows:
            return
        settings = json.dumps(self.settings, sort_keys=True)
        now = time.time()
        # one transaction, committed before the answers are returned
        with self._lock, self._failing("write"), self._db:
            self._db.executemany(
                "INSERT OR IGNORE INTO answers VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        key,
                        self.name,
                        sample,
                        prompt,
                        settings,
                        c.text,
                        c.usage.prompt_tokens,
                        c.usage.completion_tokens,
                        now,
                    )
                    for sample, key, c in rows
                ],
            )

    @contextlib.contextmanager
    def _failing(self, what: str) -> Iterator[None]:
        """A cache that cannot be read or written stops the run: answers could be lost."""
        try:
            yield
        except (sqlite3.Error, ValueError, OverflowError) as exc:  # damaged pages, bad values
            raise FatalModelError(f"cannot {what} the answer cache at {self.path}: {exc}") from None


# Cache keys being fetched from a model right now, per event loop and file: the same request
# from two models on one file (parallel evaluation pairs) is sent once.
_BUSY: dict[tuple[int, str, str], asyncio.Event] = {}


@contextlib.asynccontextmanager
async def _fetching(path: Path, keys: list[str]) -> AsyncIterator[None]:
    """Hold `keys` of the file at `path` while their answers are fetched; waits while another
    model on the same file holds any of them (taken in sorted order: no deadlock)."""
    loop, where = id(asyncio.get_running_loop()), str(path.resolve())
    held: list[tuple[int, str, str]] = []
    try:
        for key in sorted(set(keys)):
            slot = (loop, where, key)
            while slot in _BUSY:
                await _BUSY[slot].wait()
            _BUSY[slot] = asyncio.Event()
            held.append(slot)
        yield
    finally:
        for slot in held:
            _BUSY.pop(slot).set()


def _count(value: object) -> bool:
    """A token count as stored: a whole number, 0 or more (not text, not a float)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _open(path: Path) -> sqlite3.Connection:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, check_same_thread=False, timeout=30)
        db.execute("PRAGMA journal_mode=WAL")  # readers never block the writer; crash safe
        db.execute("PRAGMA synchronous=NORMAL")  # survives a killed process (not a power cut)
        migrate(db)
    except (sqlite3.Error, OSError) as exc:
        raise ThoughtgraphError(f"cannot open the answer cache at {path}: {exc}") from None
    return db
