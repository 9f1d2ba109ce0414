"""Parallel single requests that stand in for one request of `n` answers.

When a server ignores `n`, `n` answers take `n` requests. Each is paid for on its own, so one
that fails must not throw away the others: it is one missing answer. The group fails only when
no answer arrived at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence

from thoughtgraph.errors import FatalModelError, ThoughtgraphError
from thoughtgraph.models.base import AnswerSink, Completion


async def gather_singles(
    requests: Sequence[Awaitable[list[Completion]]], deliver: AnswerSink | None = None
) -> list[Completion]:
    """The answers of every request that succeeded; raises (a fatal failure first) only when
    none did. Anything but a model failure (a bug, a cancellation) is raised as is.

    `deliver` gets each answer the moment its request ends, not when the slowest one does: a
    cache stores it there, so a run killed half-way keeps what had arrived."""
    if deliver is not None:
        requests = [_delivered(request, deliver) for request in requests]
    results = await asyncio.gather(*requests, return_exceptions=True)
    answers = [a for r in results if isinstance(r, list) for a in r[:1]]
    failures = [r for r in results if isinstance(r, BaseException)]
    unexpected = [f for f in failures if not isinstance(f, ThoughtgraphError)]
    if unexpected:
        raise unexpected[0]
    if failures and not answers:
        raise next((f for f in failures if isinstance(f, FatalModelError)), failures[0])
    return answers


async def _delivered(request: Awaitable[list[Completion]], deliver: AnswerSink) -> list[Completion]:
    answers = (await request)[:1]
    for answer in answers:
        deliver(answer)
    return answers
