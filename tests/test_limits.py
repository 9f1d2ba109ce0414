"""RateLimitedModel: request spacing seen by the server, token budgets, shared limiters.

Windows are shortened with `period` (1 s instead of 60) so each test takes well under a second.
The spacing an inner model sees is read on a virtual clock (`run_virtual`): the event loop jumps
to its next timer instead of waiting, so every stamp is exact and no assertion depends on how
busy the machine is. Only the loopback server test reads real arrival times (lower bounds).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

from thoughtgraph.models import inflight
from thoughtgraph.models.base import Completion
from thoughtgraph.models.limits import RateLimitedModel, shared_limiter
from thoughtgraph.models.openai import OpenAIModel
from thoughtgraph.spend.usage import Usage

from .fake_openai import FakeOpenAI

pytestmark = pytest.mark.anyio
T = TypeVar("T")

PROMPT = "Sort the list.\n<part>[2, 1]</part>"
ARRIVAL_DELAY = 0.08  # seconds a request may take to reach the loopback server on a busy machine


class StampingModel:
    """Records when each call reaches it (like a server would)."""

    simulated = False

    def __init__(
        self, name: str = "stamp", max_tokens: int | None = None, requests_per_n: bool = False
    ) -> None:
        self.name = name
        self.settings = {"max_tokens": max_tokens}
        self.stamps: list[float] = []
        self.requests_per_n = requests_per_n

    def requests_needed(self, n: int) -> int:
        return n if self.requests_per_n else 1

    async def complete(self, prompt: str, n: int = 1) -> list[Completion]:
        self.stamps.append(asyncio.get_running_loop().time())
        return [Completion("ok", Usage(1, 1)) for _ in range(n)]


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock moves only when nothing is ready to run: it then jumps to the
    next timer. Sleeps and rate-limit waits take no real time, and `loop.time()` stamps are
    exactly the times the limiter chose."""

    def __init__(self) -> None:
        super().__init__()
        self._now = 0.0

    def time(self) -> float:
        return self._now

    def _run_once(self) -> None:
        scheduled = self._scheduled  # type: ignore[attr-defined]
        if not self._ready and scheduled:  # type: ignore[attr-defined]
            # a nanosecond past the timer: a limiter that rounds its refill down must still see
            # time pass, as it always does on a real clock
            self._now = max(self._now, scheduled[0].when()) + 1e-9
        super()._run_once()  # type: ignore[misc]


def run_virtual(coroutine: Coroutine[Any, Any, T]) -> T:
    loop = VirtualClockLoop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.close()


def gaps(times: list[float]) -> list[float]:
    ordered = sorted(times)
    return [b - a for a, b in itertools.pairwise(ordered)]


async def test_rpm_spaces_requests_at_the_server() -> None:
    inflight.forget_endpoints()
    with FakeOpenAI() as server:
        inner = OpenAIModel("rpm-test", base_url=server.base_url, max_retries=0)
        await inner.complete(PROMPT)  # warm up: the SDK's first request is slow to set up
        server.requests.clear()
        limited = RateLimitedModel(inner, rpm=10, period=1.0)  # one request per 0.1 s
        answers = await asyncio.gather(*(limited.complete(PROMPT) for _ in range(6)))
        assert all("[1, 2]" in a[0].text for a in answers)
        times = server.times()
    assert len(times) == 6
    # Arrival, not departure, is what the server sees: one request may reach it late on a busy
    # machine, shrinking the next gap. Requests k apart still arrive at least k intervals apart,
    # less that delay; without the limit all six would arrive within milliseconds.
    ordered = sorted(times)
    for (i, a), (j, b) in itertools.combinations(enumerate(ordered), 2):
        assert b - a >= (j - i) * 0.1 - ARRIVAL_DELAY, (i, j, b - a)
    assert ordered[-1] - ordered[0] >= 0.5 - ARRIVAL_DELAY
    for start in times:  # never more than rpm requests in any window of `period`
        assert sum(start <= t < start + 1.0 for t in times) <= 10


def test_endpoint_ignoring_n_spends_one_request_slot_per_answer() -> None:
    inner = StampingModel(name="per-n", requests_per_n=True)
    limited = RateLimitedModel(inner, rpm=20, period=1.0)  # one per 0.05 s
    answers = run_virtual(limited.complete(PROMPT, n=4))
    assert len(answers) == 4 and len(inner.stamps) == 4  # four single calls, each limited
    assert gaps(inner.stamps) == pytest.approx([0.05] * 3)


def test_models_of_one_name_share_their_limiters() -> None:
    a = RateLimitedModel(StampingModel(name="shared"), rpm=20, period=1.0)
    b = RateLimitedModel(StampingModel(name="shared"), rpm=20, period=1.0)

    async def six() -> None:
        assert shared_limiter("shared", "rpm", 20, 1.0) is shared_limiter("shared", "rpm", 20, 1.0)
        await asyncio.gather(*(m.complete(PROMPT) for m in (a, b, a, b, a, b)))

    run_virtual(six())
    stamps = a.inner.stamps + b.inner.stamps  # type: ignore[attr-defined]
    assert gaps(stamps) == pytest.approx([0.05] * 5)  # together, not each on its own


def test_tpm_limits_estimated_tokens() -> None:
    inner = StampingModel(name="tpm", max_tokens=50)
    limited = RateLimitedModel(inner, tpm=200, period=0.5)
    prompt = "x" * 200  # 50 prompt tokens + 50 max_tokens = 100 per call
    assert limited.estimate_tokens(prompt) == 100

    async def four() -> None:
        await asyncio.gather(*(limited.complete(prompt) for _ in range(4)))

    run_virtual(four())
    start = min(inner.stamps)
    late = sorted(t - start for t in inner.stamps)
    # the bucket holds 200: two at once, then 100 tokens per 0.25 s
    assert late == pytest.approx([0.0, 0.0, 0.25, 0.5])


async def test_an_estimate_above_the_cap_is_clamped() -> None:
    limited = RateLimitedModel(StampingModel(name="huge"), tpm=10, period=1.0)
    assert len(await limited.complete("y" * 1000)) == 1  # waits at most one window, no error


async def test_no_limits_pass_through() -> None:
    inner = StampingModel(name="free")
    limited = RateLimitedModel(inner)
    await asyncio.gather(*(limited.complete(PROMPT) for _ in range(5)))
    assert len(inner.stamps) == 5
    assert (limited.name, limited.simulated, limited.settings) == ("free", False, inner.settings)


def test_bad_limits_are_refused() -> None:
    with pytest.raises(ValueError, match="rpm must be positive"):
        RateLimitedModel(StampingModel(), rpm=0)
