"""Client CPU per HTTP request: the openai SDK against the lean transport, side by side.

    .venv/bin/python bench/transport.py [--requests 2000] [--in-flight 16] [--solves 60]

Against a zero-latency loopback OpenAI-compatible server in another process (bench/loopback.py),
so only the client's CPU is measured (`time.process_time()` of this process). Two parts:

1. Micro: `--requests` chat completions, `--in-flight` at once, by each candidate client:
   the SDK as thoughtgraph used it (`transport=sdk`), the lean transport (`transport=lean`),
   and bare clients without thoughtgraph (the SDK's typed `chat.completions.create`, httpx +
   orjson, aiohttp with the standard json, with orjson, with msgspec). CPU per request.
2. Over the in-process run: `--solves` `got` solves of sorting 32 over HTTP, minus the same
   solves with the simulated model in process (the same answers: the server answers with the
   simulated model), per HTTP request: what going over HTTP adds to a real run.

Candidates are interleaved over `--repeats` rounds and the best round kept (the machine is
shared). Prints figures and ratios from one run; asserts nothing. Target (issue 21): <= 0.3 ms
of client CPU per request over the in-process run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import sys
import time
from collections.abc import Awaitable, Callable

from loopback import loopback_server  # bench/ is on sys.path when this file is run

import thoughtgraph
from thoughtgraph.models import inflight
from thoughtgraph.models.openai import OpenAIModel

PROMPT = "Sort the following list of numbers in ascending order.\n<part>[5, 3, 9, 1, 7, 2]</part>"
BODY = {"model": "sim", "messages": [{"role": "user", "content": PROMPT}]}


async def _drive(send: Callable[[], Awaitable[str]], requests: int, in_flight: int) -> None:
    left = [requests]

    async def worker() -> None:
        while left[0] > 0:
            left[0] -= 1
            text = await send()
            assert "[1, 2, 3, 5, 7, 9]" in text, text

    await asyncio.gather(*(worker() for _ in range(in_flight)))


def _thoughtgraph(transport: str) -> Callable[[str], Callable[[], Awaitable[str]]]:
    def make(base_url: str) -> Callable[[], Awaitable[str]]:
        model = OpenAIModel("sim", base_url=base_url, max_retries=0, transport=transport)

        async def send() -> str:
            return (await model.complete(PROMPT))[0].text

        return send

    return make


def _sdk_typed(base_url: str) -> Callable[[], Awaitable[str]]:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(api_key="x", base_url=base_url, max_retries=0)

    async def send() -> str:
        answer = await client.chat.completions.create(**BODY)  # type: ignore[call-overload]
        return answer.choices[0].message.content or ""

    send.close = client.close  # type: ignore[attr-defined]
    return send


def _httpx_orjson(base_url: str) -> Callable[[], Awaitable[str]]:
    import httpx2 as httpx
    import orjson

    client = httpx.AsyncClient(base_url=base_url, headers={"Authorization": "Bearer x"})

    async def send() -> str:
        response = await client.post(
            "/chat/completions",
            content=orjson.dumps(BODY),
            headers={"Content-Type": "application/json"},
        )
        return orjson.loads(response.content)["choices"][0]["message"]["content"]

    send.close = client.aclose  # type: ignore[attr-defined]
    return send


def _aiohttp(codec: str) -> Callable[[str], Callable[[], Awaitable[str]]]:
    def make(base_url: str) -> Callable[[], Awaitable[str]]:
        import aiohttp

        if codec == "orjson":
            import orjson

            dumps, loads = orjson.dumps, orjson.loads
        elif codec == "msgspec":
            import msgspec

            dumps, loads = msgspec.json.encode, msgspec.json.decode
        else:
            dumps, loads = (lambda v: json.dumps(v).encode()), json.loads
        session = aiohttp.ClientSession()
        url = base_url + "/chat/completions"
        headers = {"Authorization": "Bearer x", "Content-Type": "application/json"}

        async def send() -> str:
            async with session.post(url, data=dumps(BODY), headers=headers) as response:
                return loads(await response.read())["choices"][0]["message"]["content"]

        send.close = session.close  # type: ignore[attr-defined]
        return send

    return make


CANDIDATES: list[tuple[str, Callable[[str], Callable[[], Awaitable[str]]]]] = [
    ("thoughtgraph transport=sdk (the SDK as we used it)", _thoughtgraph("sdk")),
    ("thoughtgraph transport=lean (default)", _thoughtgraph("lean")),
    ("bare SDK chat.completions.create (typed)", _sdk_typed),
    ("bare httpx + orjson", _httpx_orjson),
    ("bare aiohttp + json", _aiohttp("json")),
    ("bare aiohttp + orjson", _aiohttp("orjson")),
    ("bare aiohttp + msgspec", _aiohttp("msgspec")),
]


def micro(base_url: str, make: Callable, requests: int, in_flight: int) -> float:
    """Client CPU seconds per request (after a warm-up of 50 requests on the same loop)."""

    async def main() -> float:
        send = make(base_url)
        await _drive(send, 50, min(in_flight, 50))
        cpu = time.process_time()
        await _drive(send, requests, in_flight)
        spent = (time.process_time() - cpu) / requests
        close = getattr(send, "close", None)
        if close is not None:
            await close()
        return spent

    return asyncio.run(main())


def solves(model: object, count: int) -> tuple[float, int]:
    """CPU seconds and HTTP requests of `count` got solves of sorting 32 on one loop (after
    one solve of warm-up on the same loop: imports, the connection pool)."""
    problems = [random.Random(i).choices(range(10), k=32) for i in range(count)]

    async def main() -> tuple[float, int]:
        await thoughtgraph.asolve("sorting", problems[0], model=model, scheme="got")
        cpu, requests = time.process_time(), 0
        results = await asyncio.gather(
            *(
                thoughtgraph.asolve("sorting", p, model=model, scheme="got", concurrency=16)
                for p in problems
            )
        )
        for result in results:
            assert result.status == "clean", result.stop_detail
            requests += result.requests
        return time.process_time() - cpu, requests

    return asyncio.run(main())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--in-flight", type=int, default=16)
    parser.add_argument("--solves", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"command: .venv/bin/python bench/transport.py {' '.join(sys.argv[1:])}".rstrip())
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}; zero-latency "
        f"loopback server in another process; {args.requests} requests, {args.in_flight} in "
        f"flight; best of {args.repeats} interleaved rounds"
    )
    with loopback_server(0.0) as base_url:
        best: dict[str, float] = {}
        for _ in range(args.repeats):
            for name, make in CANDIDATES:
                per = micro(base_url, make, args.requests, args.in_flight)
                best[name] = min(best.get(name, per), per)
        sdk = best[CANDIDATES[0][0]]
        print("\n1. client CPU per request (micro)\n")
        print(f"| {'client':<52} | {'ms CPU/request':>14} | {'vs sdk':>6} |")
        print("|---|---:|---:|")
        for name, _ in CANDIDATES:
            print(f"| {name:<52} | {best[name] * 1000:>14.3f} | {best[name] / sdk:>6.2f} |")

        http: dict[str, float] = {}
        sim_best = float("inf")
        requests = 0
        for _ in range(args.repeats):
            sim_best = min(sim_best, solves("sim:error=0", args.solves)[0])
            for transport in ("sdk", "lean"):
                inflight.forget_endpoints()
                model = OpenAIModel("sim", base_url=base_url, max_retries=0, transport=transport)
                cpu, requests = solves(model, args.solves)
                http[transport] = min(http.get(transport, cpu), cpu)
        print(
            f"\n2. over the in-process run: {args.solves} got solves of sorting 32 "
            f"({requests} HTTP requests) minus the same solves on the in-process simulated "
            f"model ({sim_best:.3f} s CPU)\n"
        )
        print(f"| {'transport':<9} | {'CPU s':>6} | {'extra ms/request':>16} | {'vs sdk':>6} |")
        print("|---|---:|---:|---:|")
        extra = {t: (http[t] - sim_best) / requests for t in http}
        for transport in ("sdk", "lean"):
            print(
                f"| {transport:<9} | {http[transport]:>6.3f} | {extra[transport] * 1000:>16.3f} "
                f"| {extra[transport] / extra['sdk']:>6.2f} |"
            )
        verdict = "met" if extra["lean"] <= 0.0003 else "NOT met"
        print(f"\ntarget <= 0.3 ms/request over the in-process run (lean): {verdict}")


if __name__ == "__main__":
    main()
