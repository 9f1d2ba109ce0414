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
