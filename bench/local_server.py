"""How a real local server behaves: seconds and tokens per call, `n`, usage, queueing.

    python bench/local_server.py [--base-url http://127.0.0.1:8088/v1] [--model smollm2]

Needs a running server (`make local-model`). Prints figures; asserts nothing. The figures in
docs/local-models.md come from this script. Four measurements:

1. sequential calls with the sorting `io` prompt for 8 numbers: seconds and tokens per call;
2. one request with n=3: how many choices come back, and the usage reported;
3. a burst of `--burst` requests sent at once: when each one finishes (a server that answers
   one at a time finishes them one service time apart, so the last waits burst x service);
4. the same burst with a client timeout shorter than that wait: how many time out although the
   server was working all along;
5. thoughtgraph's own client (`OpenAIModel`, no retries) with that short timeout: a first burst
   (the gate learns from its timeouts), a second burst (the learned limit), and a burst with
   `max_in_flight=1` from the start.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from openai import APITimeoutError, AsyncOpenAI

from thoughtgraph.tasks.sorting_prompts import PROMPTS

INPUT_8 = [0, 0, 5, 9, 0, 7, 9, 9]  # sample 0 of sorting_008


def prompt() -> str:
    return PROMPTS["io"].render({"input": str(INPUT_8)})


async def one(client: AsyncOpenAI, model: str, max_tokens: int, **extra: Any) -> Any:
    return await client.chat.completions.create(
        model=model,
        messages=[{"role": "user", "content": prompt()}],
        max_tokens=max_tokens,
        **extra,
    )


async def sequential(client: AsyncOpenAI, model: str, calls: int, max_tokens: int) -> None:
    seconds, prompt_tokens, completion_tokens = [], [], []
    for _ in range(calls):
        start = time.perf_counter()
        answer = await one(client, model, max_tokens)
        seconds.append(time.perf_counter() - start)
        prompt_tokens.append(answer.usage.prompt_tokens)
        completion_tokens.append(answer.usage.completion_tokens)
    print(f"1. {calls} sequential io calls (8 numbers, max_tokens={max_tokens}):")
    print(
        f"   seconds/call: median {statistics.median(seconds):.2f}, "
        f"min {min(seconds):.2f}, max {max(seconds):.2f}"
    )
    print(
        f"   tokens/call: prompt {statistics.median(prompt_tokens):.0f}, "
        f"completion median {statistics.median(completion_tokens):.0f} "
        f"(max {max(completion_tokens)})"
    )


async def n_choices(client: AsyncOpenAI, model: str, max_tokens: int) -> None:
    answer = await one(client, model, max_tokens, n=3)
    usage = answer.usage.model_dump() if answer.usage else None
    print(f"2. a request with n=3 returned {len(answer.choices)} choice(s); usage: {usage}")


async def burst(base_url: str, model: str, size: int, max_tokens: int, timeout: float) -> None:
    client = AsyncOpenAI(base_url=base_url, api_key="x", timeout=timeout, max_retries=0)
    start = time.perf_counter()

    async def timed() -> float | None:
        try:
            await one(client, model, max_tokens)
        except APITimeoutError:
            return None
        return time.perf_counter() - start

    finished = await asyncio.gather(*(timed() for _ in range(size)))
    done = sorted(t for t in finished if t is not None)
    timed_out = sum(t is None for t in finished)
    shown = ", ".join(f"{t:.1f}" for t in done)
    print(
        f"   timeout {timeout:g}s: {size - timed_out} answered at [{shown}] s, "
        f"{timed_out} timed out"
    )
    await client.close()


async def gated(base_url: str, model: str, size: int, max_tokens: int, timeout: float) -> None:
    from thoughtgraph.errors import ModelError
    from thoughtgraph.models import inflight
    from thoughtgraph.models.openai import OpenAIModel

    async def burst_of(client: OpenAIModel) -> str:
        answers = await asyncio.gather(
            *(client.complete(f"{prompt()}\n{i}") for i in range(size)), return_exceptions=True
        )
        failed = sum(isinstance(a, ModelError) for a in answers)
        return f"{size - failed} answered, {failed} timed out"

    inflight.forget_endpoints()
    options = {"base_url": base_url, "max_tokens": max_tokens, "timeout": timeout}
    learning = OpenAIModel(model, max_retries=0, **options)
    print(f"5. OpenAIModel, timeout {timeout:g}s, no retries, bursts of {size}:")
    print(f"   first burst: {await burst_of(learning)}; limit learned: {learning.endpoint.limit}")
    print(f"   second burst: {await burst_of(learning)}; limit: {learning.endpoint.limit}")
    inflight.forget_endpoints()
    fixed = OpenAIModel(model, max_retries=0, max_in_flight=1, **options)
    print(f"   max_in_flight=1: {await burst_of(fixed)}")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", default="http://127.0.0.1:8088/v1")
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--burst", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--only-gate", action="store_true", help="Only measurement 5.")
    parser.add_argument("--timeout", type=float, default=4.0)
    args = parser.parse_args()
    if args.only_gate:
        await gated(args.base_url, args.model, args.burst, args.max_tokens, args.timeout)
        return
    client = AsyncOpenAI(base_url=args.base_url, api_key="x", timeout=600, max_retries=0)
    await sequential(client, args.model, args.calls, args.max_tokens)
    await n_choices(client, args.model, args.max_tokens)
    await client.close()
    print(f"3./4. a burst of {args.burst} requests sent at once:")
    await burst(args.base_url, args.model, args.burst, args.max_tokens, 600)
    await burst(args.base_url, args.model, args.burst, args.max_tokens, args.timeout)
    await gated(args.base_url, args.model, args.burst, args.max_tokens, args.timeout)


if __name__ == "__main__":
    asyncio.run(main())
