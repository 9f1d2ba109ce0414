"""Growth at run time, declared as data: a part that still has errors after its regenerations
is cut again in code and solved finer, within caps stated before the first call.

A generate op's `grow` param (`GrowParams`) says: when this part's best answer still has errors
after its regenerations, split its sub-problem again with the task's own `split` into `fanout`
pieces, solve each as a part (the same prompt, regenerations and growth one level less), merge
them back `arity` at a time with the merge prompt and its extra merges, and pass on the merged
answer only if it scores better than the part's best; recursively to `depth` levels, never into
pieces of fewer than `min_items` items.

Why the grown ops are ops: they are recorded like the graph's own (an `OpRecord` with
`grown_by`, their inputs and params, so the trace and the viewer show them under the op that
grew them), their ids are structural (`part_3.g0.part_1` is part 1 of what item 0 of `part_3`
grew), so the same answers give the same run, and they run the registered kinds' functions, so
a grown part follows exactly the rules of a part. Why the graph stays fixed: what may grow, and
how far, is in the params, so the most a graph can ask for follows from its caps before any call
(`most_per_item`, `worstcase.py`).
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Coroutine
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from thoughtgraph.engine import kinds
from thoughtgraph.engine.kinds import P, Params
from thoughtgraph.engine.state import OpRecord, RunState
from thoughtgraph.engine.thought import Thought
from thoughtgraph.errors import BudgetExhausted, FatalModelError, GraphError, ThoughtgraphError
from thoughtgraph.events import OpFinished, OpStarted, OpStatus

if TYPE_CHECKING:  # typing only: the context is built by the executor, above this module
    from thoughtgraph.engine.context import RunContext

_T = TypeVar("_T")


class GrowParams(BaseModel):
    """When a part's best answer still has errors after its regenerations: split its
    sub-problem again in code into `fanout` pieces, solve each as a part, merge them back
    (`arity` at a time, `merge_prompt` with `max_extra_merges`) and keep the merge only if it
    scores better; recursively to `depth` levels, never into pieces of fewer than `min_items`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fanout: int = Field(default=2, ge=2, le=16, description="Pieces a failing part is cut into.")
    depth: int = Field(
        default=1, ge=1, le=6, description="Levels of growth: a grown piece may grow again."
    )
    min_items: int = Field(
        default=2, ge=1, le=1_000_000, description="No piece is ever cut smaller than this."
    )
    arity: int = Field(default=2, ge=2, le=16, description="Pieces merged back per merge.")
    merge_prompt: str = Field(default="merge", description="The prompt the merges back send.")
    max_extra_merges: int = Field(
        default=1, ge=0, le=100, description="Extra attempts of each merge back with errors."
    )

    def deeper(self) -> GrowParams | None:
        """The growth a grown part may do itself: one level less (None at the last)."""
        return self.model_copy(update={"depth": self.depth - 1}) if self.depth > 1 else None


def merge_groups(count: int, arity: int) -> list[list[tuple[int, ...]]]:
    """The merge tree over `count` pieces, level by level: each level's groups of positions in
    the level below (an odd one out waits for the next level, as the `got` scheme merges)."""
    levels: list[list[tuple[int, ...]]] = []
    width = count
    while width > 1:
        groups = [tuple(range(i, min(i + arity, width))) for i in range(0, width, arity)]
        levels.append(groups)
        width = len(groups)
    return levels


def most_per_item(tries: int, grow: GrowParams | None) -> int:
    """The most model calls one part makes: its `tries`, and, when it may grow, every piece's
    own most (one level less) and every merge back with its extra merges. It assumes every
    part fails and every piece can be cut again: `min_items` only ever makes it less."""
    if grow is None:
        return tries
    merges = sum(len(g) > 1 for level in merge_groups(grow.fanout, grow.arity) for g in level)
    pieces = grow.fanout * most_per_item(tries, grow.deeper())
    return tries + pieces + merges * (grow.max_extra_merges + 1)


@dataclass(frozen=True)
class GrownOp:
    """An op grown at run time: what the op functions read of an op (`kinds.OpView`), and the
    op that grew it."""

    id: str
    kind: str
    inputs: tuple[str, ...]
    params: Params
    grown_by: str

    def params_as(self, model: type[P]) -> P:
        if not isinstance(self.params, model):
            raise TypeError(f"op {self.id!r} has {type(self.params).__name__}, not {model}")
        return self.params


@dataclass(frozen=True)
class _Plan:
    """The ops one growth adds, in the order they are recorded."""

    split: GrownOp
    selects: list[GrownOp]
    parts: list[GrownOp]
    merges: list[list[GrownOp]]  # level by level


def pieces_of(ctx: RunContext, source: Thought, grow: GrowParams) -> list[Any] | None:
    """The sub-problem cut into `fanout` pieces by the task's split; None when it cannot be cut
    that finely (a piece under `min_items`, or the task refuses)."""
    content = source.content
    least = grow.fanout * grow.min_items
    if content is None or (hasattr(content, "__len__") and len(content) < least):
        return None
    try:
        pieces = list(ctx.task.split(content, grow.fanout))
    except (ThoughtgraphError, ValueError, TypeError):
        return None
    if len(pieces) < 2 or any(hasattr(p, "__len__") and len(p) < grow.min_items for p in pieces):
        return None
    return pieces


async def regrow(
    ctx: RunContext,
    op: kinds.OpView,
    item: int,
    source: Thought,
    failed: Thought,
    after: int,
    grow: GrowParams,
) -> Thought | None:
    """Grow item `item` of `op` (its input `source`, its best answer `failed`, its last attempt
    in round `after`): the merged answer of the pieces if it scores better than `failed`, else
    None (the grown ops and thoughts stay in the run state either way)."""
    pieces = pieces_of(ctx, source, grow)
    if pieces is None:
        return None
    plan = _plan(op, item, len(pieces), grow)
    _record(ctx, plan)
    ctx.thoughts.begin_after(plan.split.id, after)
    top = await _run_plan(ctx, plan, pieces, failed)
    ctx.thoughts.extend_to(op, ctx.state.ops[plan.merges[-1][0].id].end_round)
    if top is not None and _error(top) < _error(failed):
        ctx.state.add(replace(ctx.state.thoughts[failed.id], kept=False))
        return top
    if top is not None:
        ctx.state.add(replace(ctx.state.thoughts[top.id], kept=False))
    return None


def _plan(op: kinds.OpView, item: int, count: int, grow: GrowParams) -> _Plan:
    prefix = f"{op.id}.g{item}"
    split_params = kinds.get("split").params(parts=count)
    split = GrownOp(f"{prefix}.split", "split", (op.id,), split_params, op.id)
    part_params = op.params.model_copy(update={"grow": grow.deeper()})
    selects, parts = [], []
    for i in range(1, count + 1):
        select_params = kinds.get("select").params(index=i - 1)
        selects.append(GrownOp(f"{prefix}.select_{i}", "select", (split.id,), select_params, op.id))
        parts.append(
            GrownOp(f"{prefix}.part_{i}", "generate", (selects[-1].id,), part_params, op.id)
        )
    merge_params = kinds.get("aggregate").params(
        prompt=grow.merge_prompt, max_extra_merges=grow.max_extra_merges
    )
    merges: list[list[GrownOp]] = []
    below: list[GrownOp] = parts
    for depth, groups in enumerate(merge_groups(count, grow.arity), start=1):
        level = [
            below[g[0]]
            if len(g) == 1
            else GrownOp(
                f"{prefix}.merge_{depth}_{number}",
                "aggregate",
                tuple(below[i].id for i in g),
                merge_params,
                op.id,
            )
            for number, g in enumerate(groups, start=1)
        ]
        # this level's own merges (an odd one out carried up is a part or an earlier merge)
        merges.append([m for m, g in zip(level, groups, strict=True) if len(g) > 1])
        below = level
    return _Plan(split, selects, parts, merges)


def _record(ctx: RunContext, plan: _Plan) -> None:
    """Every op of the plan in the run state, pending, in one go (so the order they are listed
    in never depends on when calls complete)."""
    ops = [plan.split, *(o for pair in zip(plan.selects, plan.parts, strict=True) for o in pair)]
    ops += [m for level in plan.merges for m in level]
    for grown in ops:
        if grown.id in ctx.state.ops:
            raise GraphError(f"op {grown.id!r} would grow where the graph has an op of that id")
        ctx.state.add_op(
            OpRecord(
                grown.id,
                grown.kind,
                grown_by=grown.grown_by,
                inputs=grown.inputs,
                params=grown.params.model_dump(mode="json"),
            )
        )


async def _run_plan(
    ctx: RunContext, plan: _Plan, pieces: list[Any], failed: Thought
) -> Thought | None:
    """Split, solve the pieces concurrently, merge back level by level: the top merge's
    answer (None if some piece gave nothing to merge)."""
    chunks = await _run(ctx, plan.split, [], made=_split_thoughts(ctx, plan.split, pieces, failed))

    async def solve(index: int) -> Thought | None:
        chosen = await _run(ctx, plan.selects[index], chunks)
        answers = await _run(ctx, plan.parts[index], chosen)
        return answers[0] if answers else None

    solved = await _together([solve(i) for i in range(len(plan.parts))])
    answers = {part.id: answer for part, answer in zip(plan.parts, solved, strict=True)}
    for level in plan.merges:

        async def merge(grown: GrownOp) -> Thought | None:
            inputs = [answers[i] for i in grown.inputs]
            usable = [t for t in inputs if t is not None]
            if len(usable) < len(inputs):
                return None
            made = await _run(ctx, grown, usable)
            return min(made, key=_error) if made else None

        merged = await _together([merge(m) for m in level])
        answers.update(zip((m.id for m in level), merged, strict=True))
    return answers[plan.merges[-1][0].id]


def _split_thoughts(
    ctx: RunContext, split: GrownOp, pieces: list[Any], failed: Thought
) -> list[Thought]:
    """The pieces as code thoughts hanging from the failed answer that grew them (drawn under
    it); each piece is its own sub-problem."""
    return [
        ctx.thoughts.code_thought(split, f"{split.id}:{index}", piece, piece, [failed])
        for index, piece in enumerate(pieces)
    ]


async def _run(
    ctx: RunContext, grown: GrownOp, inputs: list[Thought], made: list[Thought] | None = None
) -> list[Thought]:
    """Run one grown op as the executor runs a graph's: its record's status, times, outputs
    and end round, and its events. `made`: the thoughts it made in code already (the split)."""
    record = ctx.state.ops[grown.id]
    gateway = ctx.gateway
    record.status, record.started = OpStatus.RUNNING, (started := gateway.now())
    if gateway.on_event is not None:
        gateway.emit(OpStarted(started, grown.id, grown.kind))
    try:
        outputs = made if made is not None else await kinds.get(grown.kind).run(ctx, grown, inputs)
    except (BudgetExhausted, FatalModelError):
        _finish(ctx, grown, record, OpStatus.STOPPED)
        raise
    except BaseException:
        _finish(ctx, grown, record, OpStatus.FAILED)
        raise
    record.outputs = [t.id for t in outputs]
    _finish(ctx, grown, record, OpStatus.DONE)
    return outputs


def _finish(ctx: RunContext, grown: GrownOp, record: OpRecord, status: OpStatus) -> None:
    record.status = status
    record.end_round = ctx.thoughts.end_round(grown)
    record.ended = ended = ctx.gateway.now()
    if ctx.gateway.on_event is not None:
        ctx.gateway.emit(OpFinished(ended, grown.id, grown.kind, status))


def _error(thought: Thought) -> float:
    return math.inf if thought.score is None else thought.score.value


async def _together(jobs: list[Coroutine[Any, Any, _T]]) -> list[_T]:
    if len(jobs) == 1:
        return [await jobs[0]]
    return list(await asyncio.gather(*jobs))


@dataclass(frozen=True)
class Growth:
    """One growth as a run recorded it: `id` is its ops' prefix (`part_3.g0`)."""

    id: str
    grown_by: str
    pieces: int
    kept: bool | None  # passed on in place of the part's best; None: stopped before the end
    calls: int  # model calls its ops made, growths within it included


def growths(state: RunState) -> list[Growth]:
    """Every growth of a run, in the run state's op order (each after the op that grew it)."""
    found = []
    calls = Counter(call.op_id for call in state.calls.values())
    ids = state.op_ids()
    for op_id in ids:
        record = state.ops[op_id]
        if record.grown_by is None or record.kind != "split":
            continue
        prefix = op_id.removesuffix(".split")
        own = [i for i in state.grown.get(record.grown_by, ()) if i.startswith(prefix + ".")]
        top = state.ops[own[-1]]
        kept = None
        if top.status == OpStatus.DONE and top.outputs:
            kept = state.thoughts[top.outputs[0]].kept
        spent = sum(n for i, n in calls.items() if i.startswith(prefix + "."))
        found.append(Growth(prefix, record.grown_by, len(record.outputs), kept, spent))
    return found
