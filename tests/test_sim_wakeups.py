"""The simulated model's shared wait timer (sim/wakeups.py): waits as long as asyncio.sleep's,
woken in order, a cancelled one leaves no timer behind."""

from __future__ import annotations

import asyncio

import pytest

from thoughtgraph.sim import wakeups
from thoughtgraph.sim.model import SimulatedModel


def test_each_wait_lasts_at_least_its_delay_and_they_wake_in_order() -> None:
    async def main() -> list[tuple[int, float]]:
        loop = asyncio.get_running_loop()
        woke: list[tuple[int, float]] = []

        async def waiter(index: int) -> None:
            began = loop.time()
            await wakeups.sleep(0.02)
            woke.append((index, loop.time() - began))

        tasks = []
        for index in range(20):
            tasks.append(asyncio.create_task(waiter(index)))
            await asyncio.sleep(0.001)  # their deadlines are spread out
        await asyncio.gather(*tasks)
        return woke

    woke = asyncio.run(main())
    assert [index for index, _ in woke] == list(range(20))
    resolution = 1e-3  # the loop's own allowance is the clock's resolution, far below this
    assert all(waited >= 0.02 - resolution for _, waited in woke)


def test_a_cancelled_wait_leaves_no_timer_on_the_loop() -> None:
    async def main() -> int:
        loop = asyncio.get_running_loop()
        task = asyncio.create_task(wakeups.sleep(30.0))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        pending = [h for h in loop._scheduled if not h.cancelled()]  # type: ignore[attr-defined]
        return len(pending)

    assert asyncio.run(main()) == 0


def test_the_others_still_wake_when_one_waiter_is_cancelled() -> None:
    async def main() -> list[str]:
        woke: list[str] = []

        async def waiter(name: str) -> None:
            await wakeups.sleep(0.01)
            woke.append(name)

        first = asyncio.create_task(waiter("first"))
        await asyncio.sleep(0)
        second = asyncio.create_task(waiter("second"))
        await asyncio.sleep(0)
        first.cancel()
        await asyncio.gather(first, second, return_exceptions=True)
        return woke

    assert asyncio.run(main()) == ["second"]


def test_the_sim_waits_its_latency_on_the_shared_timer() -> None:
    model = SimulatedModel(error=0, latency=0.03)

    async def main() -> float:
        loop = asyncio.get_running_loop()
        began = loop.time()
        await asyncio.gather(*(model.complete(f"Sort <input>[{i}, 1]</input>") for i in range(5)))
        return loop.time() - began

    waited = asyncio.run(main())
    assert 0.03 - 1e-3 <= waited < 1.0  # the five waits overlap: one latency, not five


def test_the_sim_writes_its_answer_while_the_latency_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A call lasts its latency, not its latency plus the time the answer took to write (a
    server writes the answer while its client waits)."""
    import time

    model = SimulatedModel(error=0, latency=0.2)
    written = model.answer

    def slow_answer(prompt: str, rng: object) -> str:
        time.sleep(0.15)  # writing this answer takes most of the latency
        return written(prompt, rng)  # type: ignore[arg-type]

    monkeypatch.setattr(model, "answer", slow_answer)

    async def main() -> tuple[str, float]:
        loop = asyncio.get_running_loop()
        began = loop.time()
        (answer,) = await model.complete("Sort <input>[3, 1, 2]</input>")
        return answer.text, loop.time() - began

    text, took = asyncio.run(main())
    assert "[1, 2, 3]" in text
    assert 0.2 - 1e-3 <= took < 0.3  # after the latency, not 0.35 s (latency + writing)


def test_a_sim_answer_that_fails_leaves_no_timer_on_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = SimulatedModel(error=0, latency=30.0)

    def broken(prompt: str, rng: object) -> str:
        raise RuntimeError("no answer")

    monkeypatch.setattr(model, "answer", broken)

    async def main() -> int:
        loop = asyncio.get_running_loop()
        with pytest.raises(RuntimeError, match="no answer"):
            await model.complete("Sort <input>[3, 1, 2]</input>")
        pending = [h for h in loop._scheduled if not h.cancelled()]  # type: ignore[attr-defined]
        return len(pending)

    assert asyncio.run(main()) == 0
