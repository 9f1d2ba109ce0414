"""A persistent answer cache: rerun an interrupted or repeated run without paying twice.

`CachedModel(inner, path)` wraps any model. The cache is one SQLite file, always at the `path`
you give (there is no default location); to clear it, delete that file (and its `-wal` / `-shm`
companions if present). Every answer is committed the moment it arrives, before it is
returned: the parallel single requests of an endpoint that ignores `n` each commit their own
(`base.Delivers`), so a run killed with `kill -9` and started again pays only for the answers
that had not yet arrived. An empty answer is returned but not stored: a rerun asks again.

Many processes may share one file, and a request is paid once: before fetching, a model
*claims* the answers it lacks (a `claims` row per key: holder, pid, host and a lease of
`LEASE_SECONDS`, renewed while the request runs). Another model wanting a claimed answer
waits, polling the file, and takes the answer when it lands; if the holder dies (its pid is
gone, on this host) or its lease runs out, the claim is taken over and the request sent again.
Within one process, models on one file also wait for each other without polling (`_fetching`).

Keys are the SHA-256 of the canonical request: model name, prompt, the inner model's answer-
relevant `settings` (e.g. temperature, max_tokens) and the *sample index*. The sample index
counts the answers this `CachedModel` has handed out for that prompt so far (`samples.py`):
`complete(p, n=3)` is samples 0, 1, 2; asking `p` again in the same run gives samples 3, 4, ...
(so k samples or a retry of the same prompt stay different answers, as they would from the live
model), while a rerun (a new `CachedModel` on the same file) replays samples 0, 1, 2, ...
identically. The inner model is told which samples it is asked for (`base.asking`), so a model
that takes them (a user's function with a keyword `sample`) answers sample i under key i.

The completion cap (`max_tokens`) is in the key: a cap cuts answers, and an answer cut under
a small cap is not the answer to a larger one. So a file whose answers were made under another
cap or temperature (a default cap that changed between versions) misses; the first such miss
says so in one line (`requests` holds each answer's request with those two left out, to find
them), instead of paying every answer again in silence.

A reasoning model's thinking is kept apart from its answer (`reasoning`: the thinking, its
tokens and whether the cap cut the reply, by key), so that a replayed answer is the answer alone
and its thinking still shows in the trace. An answer stored by code that did not read thinking
apart, which is only the start of a `<think>` the cap cut, is not an answer: it is asked again
and replaced. A reply the cap cut while the model thought, with no answer after its thinking,
is kept and replayed like any other (the `cut` column holds the cap that cut it): the same
request at the same cap would be cut again, so paying for it twice buys nothing, and the
replay says so in the line the paid reply gave. A new cap is a new key: it asks again. One cut
below the cap the model now sends (`thinking_cap`: a default cap's room to think the budget
held back, or not yet given) is asked again and replaced: the key holds the default cap, not
the room, and with the room the model may answer.

The cache may sit on either side of `RateLimitedModel` (both are `WrapperModel`s): hits cost
neither rate limit nor budget either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path
from typing import Self, TypeGuard

from thoughtgraph.errors import FatalModelError, ThoughtgraphError, shown
from thoughtgraph.models.base import (
    AnswerSink,
    Completion,
    DeliveringModel,
    LanguageModel,
    WrapperModel,
    asking,
    complete_delivering,
    saw_reasoning,
    thinking_cap,
)
from thoughtgraph.models.reasoning import hit_cap_line, may_think, split_inline
from thoughtgraph.models.samples import SampleCounter
from thoughtgraph.spend.ledger import RequestRecorder
from thoughtgraph.spend.usage import Usage

KEY_VERSION = 1  # bump if the canonical request changes: old entries then simply miss
LEASE_SECONDS = 30.0  # a claim not renewed for this long is free: its holder hangs or is gone
_WAIT_FIRST, _WAIT_MAX = 0.02, 0.5  # polling for another holder's answers, doubling
_HOST = socket.gethostname()
logger = logging.getLogger(__name__)
_CUT_NOTED: set[tuple[str, int]] = set()  # (model, cap) whose replayed cut was said: once
# a process, as the paid one's (`openai._CUT_NOTED`), not once per pair of an evaluation

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


@migration
def m002_claims(db: sqlite3.Connection) -> None:
    """Requests in flight, so that another process on the file waits instead of paying twice:
    `holder` (one `CachedModel`), its `pid` on `host`, and the lease's end (`expires`)."""
    db.execute(
        """CREATE TABLE claims (
            key TEXT PRIMARY KEY,
            holder TEXT NOT NULL,
            pid INTEGER NOT NULL,
            host TEXT NOT NULL,
            expires REAL NOT NULL
        )"""
    )


@migration
def m003_requests(db: sqlite3.Connection) -> None:
    """Each answer's request with its answer cap left out (`request_hash`), in a table of its
    own (code that knows only `answers` still reads and writes the file): when a request
    misses, answers to it made under another cap or temperature are found, and the user told
    that they are paid again (a default cap that changed between versions made every answer
    of an old cache miss, silently)."""
    db.execute("CREATE TABLE requests (key TEXT PRIMARY KEY, request TEXT NOT NULL)")
    db.execute("CREATE INDEX requests_by_request ON requests(request)")
    rows = db.execute("SELECT key, model, prompt, settings, sample FROM answers")
    while batch := rows.fetchmany(1000):
        db.executemany(
            "INSERT OR IGNORE INTO requests VALUES (?, ?)",
            [
                (key, request_hash(model, prompt, settings, sample))
                for key, model, prompt, settings, sample in batch
                if isinstance(settings, str) and isinstance(prompt, str)
            ],
        )


@migration
def m004_reasoning(db: sqlite3.Connection) -> None:
    """A reasoning model's thinking, by answer key, in a table of its own (code that knows only
    `answers` still reads and writes the file): the thinking's text, its tokens (of the answer's
    completion tokens) and whether the completion cap cut the reply."""
    db.execute(
        """CREATE TABLE reasoning (
            key TEXT PRIMARY KEY,
            text TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            cut INTEGER NOT NULL
        )"""
    )


def request_hash(model: str, prompt: str, settings: str, sample: int) -> str:
    """SHA-256 of a request as `CachedModel.key` canonicalises it, its `max_tokens` and
    `temperature` left out (`settings` as the `answers` table stores it: JSON)."""
    try:
        loaded = json.loads(settings)
    except ValueError:
        loaded = {}
    kept = {k: v for k, v in loaded.items() if k not in _LOOSE} if isinstance(loaded, dict) else {}
    request = {"v": KEY_VERSION, "model": model, "prompt": prompt, "settings": kept}
    canonical = json.dumps(
        request | {"sample": sample}, sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


_LOOSE = ("max_tokens", "temperature")
"""Settings a request is found under whatever their value, to say that its answers made with
another value are paid again."""


def migrate(db: sqlite3.Connection) -> None:
    """Bring the schema up to date; the `_migrations` table records the steps applied. Each
    step runs under the file's write lock and is skipped if another process applied it first
    (two processes opening a new cache at once)."""
    db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied REAL)")
    done = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    for name, step in MIGRATIONS:
        if name in done:
            continue
        with _immediate(db):  # each step and its record commit together
            if db.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone():
                continue
            step(db)
            db.execute("INSERT INTO _migrations VALUES (?, ?)", (name, time.time()))


@contextlib.contextmanager
def _immediate(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, its lock taken at once (waits up to the busy timeout)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.rollback()
        raise
    db.commit()


class CachedModel(DeliveringModel, WrapperModel):
    """A `LanguageModel` that answers from the cache file when it can and records what it cannot.

    `hits` and `misses` count answers (samples), not requests; `stored` the answers this model
    committed to the file (those of a call cancelled in flight included: the parallel singles
    of a top-up commit one by one). Name, settings and the rest are the inner model's
    (`WrapperModel`).
    """

    def __init__(self, inner: LanguageModel, path: str | Path) -> None:
        super().__init__(inner)
        self.path = Path(path)
        self.hits = 0
        self.misses = 0
        self.stored = 0
        self._samples = SampleCounter()
        self._lock = threading.Lock()
        self._holder = uuid.uuid4().hex  # names this model's claims in the file
        self._db = _open(self.path)

    def __repr__(self) -> str:
        return f"CachedModel({self.inner!r}, {str(self.path)!r})"

    async def complete_delivering(
        self,
        prompt: str,
        n: int,
        deliver: AnswerSink,
        *,
        recorder: RequestRecorder | None = None,
    ) -> list[Completion]:
        """`complete`; each answer is committed to the file the moment it arrives, then handed
        to `deliver` (see `base.Delivers`)."""
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        samples = self._samples.claim(prompt, n)  # before any await: follows the call order
        keys = [self.key(prompt, s) for s in samples]
        found = self._load(keys)
        if len(found) < n:
            # Another model on this file (a parallel pair of an evaluation, another process)
            # may be fetching the same answers: wait for it and take them from the file rather
            # than pay twice.
            waiting = [s for s, k in zip(samples, keys, strict=True) if k not in found]
            try:
                missing = [k for k in keys if k not in found]
                async with _fetching(self.path, missing), self._leased(keys):
                    waiting = []  # from here `_complete_missing` gives back what it lacks
                    found = self._load(keys)
                    return await self._complete_missing(
                        prompt, samples, keys, found, deliver, recorder
                    )
            except BaseException:
                self._samples.release(prompt, waiting)  # cancelled while waiting
                raise
        self.hits += n
        answers = [found[key] for key in keys]
        self._teach(answers)
        for answer in answers:
            deliver(answer)
        return answers

    def _teach(self, answers: list[Completion]) -> None:
        """Tell the model when an answer from the file shows it reasons: its next request, a
        miss, then has room to think from the start (`base.saw_reasoning`). Say once per cap
        when one the cap cut while the model thought is replayed, as its paid reply was."""
        if any(answer.reasons for answer in answers):
            saw_reasoning(self.inner)
        for cap in sorted({a.cut_at or 0 for a in answers if a.cut and a.reasons}):
            if (self.name, cap) not in _CUT_NOTED:
                _CUT_NOTED.add((self.name, cap))
                line = hit_cap_line(cap) if cap else "the completion cap cut the model's reasoning"
                logger.warning("%s (an answer from the cache; a new cap asks again)", line)

    async def _complete_missing(
        self,
        prompt: str,
        samples: list[int],
        keys: list[str],
        found: dict[str, Completion],
        deliver: AnswerSink,
        recorder: RequestRecorder | None = None,
    ) -> list[Completion]:
        """Ask the inner model for the samples not in the file, storing each answer as it
        arrives (under the next missing sample), and return them all in sample order."""
        missing = [i for i, key in enumerate(keys) if key not in found]
        self.hits += len(keys) - len(missing)
        self.misses += len(missing)
        if missing:
            self._note_other_settings(prompt, samples[missing[0]], keys[missing[0]])
        self._teach([found[key] for key in keys if key in found])
        for key in keys:
            if key in found:
                deliver(found[key])
        arrived: dict[int, Completion] = {}
        failed: list[ThoughtgraphError] = []

        def keep(answer: Completion) -> None:
            if len(arrived) == len(missing):
                return  # more answers than asked: not ours to keep
            position = missing[len(arrived)]
            arrived[position] = answer
            if answer.text.strip() or (answer.cut and answer.reasons):  # paid: replayed
                try:
                    self._store(prompt, [(samples[position], keys[position], answer)])
                except ThoughtgraphError as exc:  # raised below: the request itself succeeded
                    failed.append(exc)
            deliver(answer)

        try:
            if missing:
                with asking([samples[i] for i in missing]):
                    await complete_delivering(self.inner, prompt, len(missing), keep, recorder)
        finally:
            # Fewer answers than asked (some parallel singles failed, or the call was
            # cancelled): the samples left over go back to the next call of this prompt.
            self._samples.release(prompt, [samples[i] for i in missing if i not in arrived])
        if failed:
            raise failed[0]
        return [
            arrived[i] if i in arrived else found[key]
            for i, key in enumerate(keys)
            if i in arrived or key in found
        ]

    def would_answer(self, prompt: str, n: int = 1) -> bool:
        """True when the next `complete(prompt, n)` will be answered wholly from the file.

        Exact when nothing else calls `complete` in between (the executor asks right before
        calling, with no await between): that is how cache hits skip the budget check.
        """
        keys = [self.key(prompt, s) for s in self._samples.peek(prompt, n)]
        return len(self._load(keys)) == n

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

    # --- claims: one process pays, the others wait for its answers --------------------------
    @contextlib.asynccontextmanager
    async def _leased(self, keys: list[str]) -> AsyncIterator[None]:
        """Hold the claims of the `keys` not in the file while their answers are fetched.

        Claims held by another live holder are waited for (polling the file, with backoff);
        when their answers arrive, there is nothing left to fetch. A claim whose holder died
        (its pid is gone on this host) or stopped renewing its lease is taken over. Claims are
        taken all at once or not at all, so no two holders wait for each other.
        """
        delay = _WAIT_FIRST
        while True:
            found = self._load(keys)
            wanted = [key for key in keys if key not in found]
            if not wanted or self._try_claim(wanted):
                break
            await asyncio.sleep(delay)
            delay = min(delay * 2, _WAIT_MAX)
        renewing = asyncio.ensure_future(self._renew(wanted)) if wanted else None
        try:
            yield
        finally:
            if renewing is not None:
                renewing.cancel()
            with contextlib.suppress(ThoughtgraphError):  # a claim left behind expires anyway
                self._unclaim(wanted)

    def _try_claim(self, keys: list[str]) -> bool:
        """Claim every key, or none when another live holder has any of them."""
        marks = ",".join("?" * len(keys))
        now = time.time()
        with self._lock, self._failing("write"), _immediate(self._db):
            rows = self._db.execute(
                f"SELECT holder, pid, host, expires FROM claims WHERE key IN ({marks})", keys
            ).fetchall()
            if any(
                holder != self._holder and _live(pid, host, expires, now)
                for holder, pid, host, expires in rows
            ):
                return False
            self._db.executemany(
                "INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?)",
                [(key, self._holder, os.getpid(), _HOST, now + LEASE_SECONDS) for key in keys],
            )
        return True

    async def _renew(self, keys: list[str]) -> None:
        """Extend the lease of `keys` while their request runs (cancelled when it ends)."""
        marks = ",".join("?" * len(keys))
        while True:
            await asyncio.sleep(LEASE_SECONDS / 3)
            with (
                contextlib.suppress(ThoughtgraphError),
                self._lock,
                self._failing("write"),
                self._db,
            ):
                self._db.execute(
                    f"UPDATE claims SET expires = ? WHERE holder = ? AND key IN ({marks})",
                    [time.time() + LEASE_SECONDS, self._holder, *keys],
                )

    def _unclaim(self, keys: list[str]) -> None:
        if not keys:
            return
        marks = ",".join("?" * len(keys))
        with self._lock, self._failing("write"), self._db:
            self._db.execute(
                f"DELETE FROM claims WHERE holder = ? AND key IN ({marks})", [self._holder, *keys]
            )

    # --- answers made with other settings -------------------------------------------------
    def _note_other_settings(self, prompt: str, sample: int, key: str) -> None:
        """Say once per file and process when a missed answer is in the file under other
        settings (another default cap, temperature): it is paid again, not reused."""
        where = str(self.path.resolve())
        if where in _NOTED:
            return
        settings = json.dumps(self.settings, sort_keys=True)
        request = request_hash(self.name, prompt, settings, sample)
        with self._lock, self._failing("read"):
            row = self._db.execute(
                "SELECT a.settings FROM requests r JOIN answers a ON a.key = r.key "
                "WHERE r.request = ? AND r.key != ? LIMIT 1",
                (request, key),
            ).fetchone()
        if row is None:
            return
        _NOTED.add(where)
        logger.warning(
            "the answer cache at %s holds answers to these prompts made with other settings "
            "(%s): they are not reused, so these answers are paid again",
            self.path,
            _differences(row[0], self.settings),
        )

    # --- storage (short, synchronous, under a lock: safe from any thread or task) -----------
    def _load(self, keys: list[str]) -> dict[str, Completion]:
        with self._lock, self._failing("read"):
            found = self._select(keys)
        return {k: answer for k, answer in found.items() if not self._asked_again(answer)}

    def _select(self, keys: list[str]) -> dict[str, Completion]:
        """The stored answers of `keys`, with their thinking (the caller holds the lock)."""
        marks = ",".join("?" * len(keys))
        rows = self._db.execute(
            f"SELECT a.key, a.text, a.prompt_tokens, a.completion_tokens, r.text, r.tokens, "
            f"r.cut FROM answers a LEFT JOIN reasoning r ON r.key = a.key "
            f"WHERE a.key IN ({marks})",
            keys,
        ).fetchall()
        return {k: self._row(text, p, c, thought) for k, text, p, c, *thought in rows}

    def _asked_again(self, answer: Completion) -> bool:
        """A stored answer that is not replayed but asked again (and replaced): only the start
        of a `<think>` the cap cut, or a reply cut while thinking at a cap below the one the
        model now sends (`_cut_below`)."""
        return _cut_thinking(answer) or _cut_below(answer, thinking_cap(self.inner))

    def _row(
        self,
        text: object,
        prompt_tokens: object,
        completion_tokens: object,
        thought: list[object],
    ) -> Completion:
        """A stored answer, checked: a damaged row stops the run rather than feed it garbage."""
        if not (isinstance(text, str) and _count(prompt_tokens) and _count(completion_tokens)):
            raise FatalModelError(
                f"the answer cache at {self.path} is damaged (a row holds "
                f"{type(text).__name__} text, token counts {shown(prompt_tokens)}, "
                f"{shown(completion_tokens)}): delete it or give another --cache"
            )
        reasoning, tokens, cut = thought
        if not isinstance(reasoning, str):  # no thinking stored for it
            return Completion(text, Usage(prompt_tokens, completion_tokens), cached=True)
        return Completion(
            text,
            Usage(prompt_tokens, completion_tokens),
            cached=True,
            reasoning=reasoning,
            reasoning_tokens=tokens if _count(tokens) else 0,
            cut=bool(cut),
            cut_at=cut if _count(cut) and cut > 1 else None,
        )

    def _store(self, prompt: str, rows: list[tuple[int, str, Completion]]) -> None:
        if not rows:
            return
        settings = json.dumps(self.settings, sort_keys=True)
        requests = [(key, request_hash(self.name, prompt, settings, n)) for n, key, _ in rows]
        now = time.time()
        # one transaction, committed before the answers are returned
        with self._lock, self._failing("write"), self._db:
            self._replace_asked_again([key for _, key, _ in rows])
            inserted = self._db.executemany(
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
            self.stored += max(0, inserted.rowcount)
            self._db.executemany("INSERT OR IGNORE INTO requests VALUES (?, ?)", requests)
            self._db.executemany(
                "INSERT OR IGNORE INTO reasoning VALUES (?, ?, ?, ?)",
                [
                    (key, c.reasoning, c.reasoning_tokens, _cut_column(c))
                    for _, key, c in rows
                    if c.reasoning or c.reasoning_tokens
                ],
            )

    def _replace_asked_again(self, keys: list[str]) -> None:
        """Delete the stored answers of `keys` that `_load` skips (`_asked_again`), with their
        thinking, so that the answers fetched again take their place."""
        stale = [(k,) for k, answer in self._select(keys).items() if self._asked_again(answer)]
        self._db.executemany("DELETE FROM answers WHERE key = ?", stale)
        self._db.executemany("DELETE FROM reasoning WHERE key = ?", stale)

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


_NOTED: set[str] = set()  # cache files whose answers under other settings were noted


def _differences(stored: object, settings: Mapping[str, object]) -> str:
    """`max_tokens 268 there, 300 here`, for each loose setting that differs."""
    try:
        there = json.loads(stored) if isinstance(stored, str) else {}
    except ValueError:
        there = {}
    if not isinstance(there, dict):
        there = {}
    changed = [
        f"{name} {there.get(name)} there, {settings.get(name)} here"
        for name in _LOOSE
        if there.get(name) != settings.get(name)
    ]
    return "; ".join(changed) or "settings"


def _live(pid: int, host: str, expires: float, now: float) -> bool:
    """Whether a claim still stands: its lease runs and, on this host, its process lives."""
    if expires <= now:
        return False
    return host != _HOST or _pid_alive(pid)


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid() or os.name == "nt":  # Windows: os.kill would end the process
        return True
    try:
        os.kill(pid, 0)  # signal 0: a check only
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: alive, another user's
        return True
    return True


def _cut_column(answer: Completion) -> int:
    """The reasoning table's `cut`: 0 not cut, else the cap that cut it (1: cut, cap unknown;
    what code before `cut_at` wrote, and reads as true)."""
    if not answer.cut:
        return 0
    return answer.cut_at if answer.cut_at and answer.cut_at > 1 else 1


def _cut_below(answer: Completion, cap: int | None) -> bool:
    """A reply the cap cut while the model thought, with no answer, at a cap below `cap`, the
    one the model now sends once it knows it reasons (0: none; None: the model cannot say):
    one cut by a default cap the budget held back, or before the room to think was given, may
    answer when asked with the room. One cut at the cap the model sends is replayed."""
    if cap is None or answer.cut_at is None or answer.text.strip():
        return False
    return answer.cut and answer.reasons and (cap == 0 or answer.cut_at < cap)


def _cut_thinking(answer: Completion) -> bool:
    """A stored answer that is no answer: only the start of a `<think>` the cap cut."""
    return not answer.reasoning and _cut_thinking_text(answer.text)


def _cut_thinking_text(text: str) -> bool:
    if not may_think(text):
        return False
    reply = split_inline(text)
    return reply.unclosed and not reply.answer.strip()


def _count(value: object) -> TypeGuard[int]:
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
