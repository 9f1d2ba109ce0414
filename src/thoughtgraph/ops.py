"""One async function per op kind: `(ctx, op, inputs, base_round) -> output thoughts`.

Bounded loops (regenerate, merge again, refine) live inside one op, capped by its params, so the
graph itself stays a static DAG. Every attempt is recorded in the run state; only the best is
passed on.
"""

from __future__ import annotations

import asyncio
import math
import string
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from .context import RunContext
from .errors import GraphError
from .graph import Op
from .prompts import render
from .state import Thought

OpFunction = Callable[[RunContext, Op, list[Thought], int], Awaitable[list[Thought]]]


def _error_value(thought: Thought) -> float:
    return math.inf if thought.score is None else thought.score.value


def _best(thoughts: list[Thought]) -> Thought:
    """Lowest error; the earliest attempt wins a tie (fewer changes, deterministic)."""
    return min(thoughts, key=lambda t: (_error_value(t), t.attempt))


def _shown(ctx: RunContext, thought: Thought) -> str:
    """How a thought appears inside a prompt: its parsed content, or its raw text if unparsed."""
    return thought.text if thought.content is None else ctx.task.render(thought.content)


def _errors(thought: Thought) -> str:
    return "; ".join(thought.score.errors) if thought.score else ""


def _discard(ctx: RunContext, attempts: list[Thought], kept: Thought) -> None:
    for attempt in attempts:
        if attempt.id != kept.id:
            ctx.state.add(replace(attempt, kept=False))


async def _until_good(
    ctx: RunContext,
    op: Op,
    *,
    item: int,
    kind: str,
    tries: int,
    bar: float,
    problem: Any,
    parents: list[Thought],
    base_round: int,
    make_prompt: Callable[[Thought | None], str],
) -> Thought:
    """Ask up to `tries` times while the answer's error count is above `bar`; keep the best."""
    attempts: list[Thought] = []
    previous: Thought | None = None
    for attempt in range(1, tries + 1):
        previous = await ctx.model_thought(
            op,
            thought_id=f"{op.id}:{item}.{attempt}",
            kind=kind,
            prompt=make_prompt(previous),
            problem=problem,
            parents=parents,
            previous=previous,
            attempt=attempt,
            base_round=base_round,
        )
        attempts.append(previous)
        if _error_value(previous) <= bar:
            break
    best = _best(attempts)
    _discard(ctx, attempts, best)
    return ctx.state.thoughts[best.id]


async def split(ctx: RunContext, op: Op, inputs: list[Thought], base_round: int) -> list[Thought]:
    parts = op.params["parts"]
    out = []
    for source in inputs:
        for index, chunk in enumerate(ctx.task.split(source.content, parts)):
            out.append(ctx.code_thought(op, f"{op.id}:{index}", chunk, chunk, [source], base_round))
    return out


async def select(ctx: RunContext, op: Op, inputs: list[Thought], base_round: int) -> list[Thought]:
    index = op.params["index"]
    if index >= len(inputs):
        raise GraphError(f"op {op.id!r} selects thought {index} but its inputs hold {len(inputs)}")
    return [inputs[index]]


async def generate(ctx: RunContext, op: Op, inputs: list[Thought], base_round: int) -> list[Thought]:
    """The spec's Part step, for every input thought concurrently."""
    whole = ctx.task.describe(ctx.problem)

    async def one(item: int, source: Thought) -> Thought:
        def prompt(previous: Thought | None) -> str:
            return render(
                op.params["prompt"],
                task=whole,
                part=_shown(ctx, source),
                previous_errors=_errors(previous) if previous else "",
                format=ctx.task.format(),
            )

        return await _until_good(
            ctx, op, item=item, kind=op.params["prompt"], tries=op.params["max_regenerations"] + 1,
            bar=op.params["bar"], problem=source.problem, parents=[source], base_round=base_round,
            make_prompt=prompt,
        )

    return list(await asyncio.gather(*(one(i, t) for i, t in enumerate(inputs))))


async def aggregate(ctx: RunContext, op: Op, inputs: list[Thought], base_round: int) -> list[Thought]:
    """The spec's Merge step: all inputs into one; merge again while the result has errors."""
    if len(inputs) < 2:
        raise GraphError(f"op {op.id!r} merges {len(inputs)} thought(s); it needs at least 2")
    shown = [_shown(ctx, t) for t in inputs]
    values: dict[str, Any] = {"task": ctx.task.describe(ctx.problem), "format": ctx.task.format()}
    if len(inputs) == 2 and op.params["prompt"] == "merge":
        template = "merge"
        values |= {"result_a": shown[0], "result_b": shown[1]}
    else:
        template = "merge_many" if op.params["prompt"] == "merge" else op.params["prompt"]
        letters = string.ascii_lowercase
        values |= {
            "count": len(inputs),
            "results": "\n".join(
                f"<{letters[i % 26]}{i // 26 or ''}>{text}</{letters[i % 26]}{i // 26 or ''}>"
                for i, text in enumerate(shown)
            ),
        }
    prompt = render(template, **values)
    merged = await _until_good(
        ctx, op, item=0, kind="merge", tries=op.params["max_extra_merges"] + 1, bar=0,
        problem=ctx.task.join([t.problem for t in inputs]), parents=inputs,
        base_round=base_round, make_prompt=lambda _previous: prompt,
    )
    return [merged]


async def refine(ctx: RunContext, op: Op, inputs: list[Thought], base_round: int) -> list[Thought]:
    """The spec's Refine step and stop rule: at most `max_refines` passes while errors remain."""
    out = []
    for item, source in enumerate(inputs):
        best = ctx.rescore(source)
        last_round = base_round
        for attempt in range(1, op.params["max_refines"] + 1):
            if best.score is None or best.score.perfect:
                break
            prompt = render(
                op.params["prompt"],
                task=ctx.task.describe(ctx.problem),
                result=_shown(ctx, best),
                errors=_errors(best),
                format=ctx.task.format(),
            )
            candidate = await ctx.model_thought(
                op, thought_id=f"{op.id}:{item}.{attempt}", kind="refine", prompt=prompt,
                problem=best.problem, parents=[best], previous=None, attempt=attempt,
                base_round=last_round,
            )
            last_round = candidate.round
            better = _error_value(candidate) < _error_value(best)
            if better or not op.params["keep_if_better"]:
                best = candidate
            else:
                ctx.state.add(replace(candidate, kept=False))
        out.append(best)
    return out


async def score(ctx: RunContext, op: Op, inputs: list[Thought], base_round: int) -> list[Thought]:
    return [ctx.rescore(t) for t in inputs]


async def keep_best(ctx: RunContext, op: Op, inputs: list[Thought], base_round: int) -> list[Thought]:
    sign = -1 if op.params["higher_is_better"] else 1
    scored = [ctx.rescore(t) for t in inputs]
    ranked = sorted(enumerate(scored), key=lambda it: (sign * _error_value(it[1]), it[0]))
    return [t for _, t in ranked[: op.params["n"]]]


OPS: dict[str, OpFunction] = {
    "split": split,
    "select": select,
    "generate": generate,
    "aggregate": aggregate,
    "refine": refine,
    "score": score,
    "keep_best": keep_best,
}
