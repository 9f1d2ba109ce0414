"""Rate limits (requests and tokens per minute) shared by every run that uses the same model.

Providers publish two caps, and going over either costs 429s and retries:

- requests per minute: requests are spaced evenly, `period / rpm` apart. Providers enforce the
  cap over sub-minute windows, so a burst of a minute's worth at once would be refused anyway.
- tokens per minute: a leaky bucket holding one period's worth. A request's cost is estimated
  before it is sent as len(prompt) / 4 + n * max_tokens (when the inner model exposes
  `max_tokens` in its `settings`); an estimate above the cap is clamped to it.

The rpm/tpm limiters are shared through a registry keyed by model name (which names the endpoint
host for non-default endpoints) and limit, per event loop: concurrent runs in one loop share them;
asyncio primitives cannot cross event loops, so a new loop starts with fresh ones.

How many calls are in flight at once is a different limit, and an explicit one: a
`ConcurrencyLimiter` object, which the call gateway holds around every call. A run makes its own
from `concurrency`; runs that must share one cap are handed the same limiter on purpose (an
evaluation hands its one limiter to every pair, a tune to every job of a batch), as
pydantic-ai's `ConcurrencyLimiter`.
"""

from __future__ import annotations

import asyncio
import math
import threading
import weakref
from typing import Any

from aiolimiter import AsyncLimiter

from thoughtgraph.models.base import (
    AnswerSink,
    Completion,
    DeliveringModel,
    LanguageModel,
    WrapperModel,
    complete_delivering,
    ignore_answer,
    would_answer,
)
from thoughtgraph.models.singles import gather_singles
from thoughtgraph.spend.ledger import RequestRecorder

_registry: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], AsyncLimiter]]
_registry = weakref.WeakKeyDictionary()
_registry_lock = threading.Lock()


def shared_limiter(name: str, kind: str, limit: float, period: float) -> AsyncLimiter:
    """The process-wide limiter for (model name, kind, limit, period) in the running loop."""
    loop = asyncio.get_running_loop()
    with _registry_lock:
        limiters = _registry.setdefault(loop, {})
        key = (name, kind, limit, period)
        if key not in limiters:
            if kind == "rpm":  # capacity 1: requests evenly spaced
                limiters[key] = AsyncLimiter(1, period / limit)
            else:  # tokens: a bucket holding one period's worth
                limiters[key] = AsyncLimiter(limit, period)
        return limiters[key]


class ConcurrencyLimiter:
    """At most `limit` model calls in flight at once, over every run that holds this object:
    `async with limiter: ...` around each call. Share one to make several runs keep one cap
    together. It may be used from several event loops (one `asyncio.run` after another, a
    Jupyter helper thread): each loop gets its own slots, as asyncio primitives cannot cross
    loops."""

    def __init__(self, limit: int) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"a concurrency limit must be a whole number >= 1, got {limit!r}")
        self.limit = limit
        self._slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
        self._slots = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def slots(self) -> asyncio.Semaphore:
        """This limiter's slots on the running loop (the same object for every caller)."""
        loop = asyncio.get_running_loop()
        slots = self._slots.get(loop)
        if slots is None:
            with self._lock:
                slots = self._slots.setdefault(loop, asyncio.Semaphore(self.limit))
        return slots

    async def __aenter__(self) -> None:
        await self.slots().acquire()

    async def __aexit__(self, *exc: object) -> None:
        self.slots().release()

    def __repr__(self) -> str:
        return f"ConcurrencyLimiter({self.limit})"


class RateLimitedModel(DeliveringModel, WrapperModel):
    """Wraps a model so that its calls respect `rpm` and `tpm` (None: no limit).

    `period` is the window in seconds (60 for "per minute"; tests use shorter ones). A call the
    inner model says it answers without a request (`would_answer`: a cache below this wrapper)
    is not limited, so the cache may sit on either side of the limits.
    """

    def __init__(
        self,
        inner: LanguageModel,
        rpm: float | None = None,
        tpm: float | None = None,
        *,
        period: float = 60.0,
    ) -> None:
        for label, value in (("rpm", rpm), ("tpm", tpm), ("period", period)):
            if value is not None and value <= 0:
                raise ValueError(f"{label} must be positive, got {value}")
        super().__init__(inner)
        self.rpm, self.tpm, self.period = rpm, tpm, period

    def __repr__(self) -> str:
        return f"RateLimitedModel({self.inner!r}, rpm={self.rpm}, tpm={self.tpm})"

    def estimate_tokens(self, prompt: str, n: int = 1) -> int:
        """What a request will count against the token limit, before it is sent."""
        max_tokens = self.settings.get("max_tokens") or 0
        return math.ceil(len(prompt) / 4) + n * max_tokens

    async def complete_delivering(
        self,
        prompt: str,
        n: int,
        deliver: AnswerSink,
        *,
        recorder: RequestRecorder | None = None,
    ) -> list[Completion]:
        if would_answer(self.inner, prompt, n):  # no request is sent: nothing to limit
            return await complete_delivering(self.inner, prompt, n, deliver, recorder)
        if n > 1 and self.requests_needed(n) > 1:
            # The endpoint ignores `n`: make the single calls here, each one rate limited.
            return await gather_singles(
                [self._limited(prompt, 1, ignore_answer, recorder) for _ in range(n)], deliver
            )
        return await self._limited(prompt, n, deliver, recorder)

    async def _limited(
        self,
        prompt: str,
        n: int,
        deliver: AnswerSink,
        recorder: RequestRecorder | None = None,
    ) -> list[Completion]:
        if self.rpm is not None:
            await shared_limiter(self.name, "rpm", self.rpm, self.period).acquire()
        if self.tpm is not None:
            tokens = min(self.estimate_tokens(prompt, n), self.tpm)
            await shared_limiter(self.name, "tpm", self.tpm, self.period).acquire(tokens)
        return await complete_delivering(self.inner, prompt, n, deliver, recorder)
