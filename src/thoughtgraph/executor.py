"""The controller: runs a graph of ops over a problem and fills in the run state.

An op starts as soon as all of its inputs are done, so independent ops overlap and the in-flight
model calls are bounded only by `concurrency`. With `concurrency=1` ops run one at a time in the
exact BFS order of the reference controller. Thought ids are structural, so the run state does
not depend on the order in which calls complete.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .context import RunContext
from .errors import BudgetExhausted, InputError
from .events import EventHandler
from .graph import Graph, Op
from .models.base import LanguageModel
from .ops import OPS
from .state import OpRecord, RunState, Thought
from .tasks.base import Task

logger = logging.getLogger("thoughtgraph")


async def execute(
    graph: Graph,
    task: Task,
    problem: Any,
    model: LanguageModel,
    *,
    concurrency: int = 16,
    max_calls: int | None = None,
    on_event: EventHandler | None = None,
) -> tuple[RunState, RunContext]:
    """Run every op of `graph`; returns the run state and the context (calls, stop reason)."""
    if concurrency < 1:
        raise InputError(f"concurrency must be at least 1, got {concurrency}")
    if max_calls is not None and max_calls < 0:
        raise InputError(f"max_calls must be 0 or more, got {max_calls}")
    state = RunState(graph=graph.to_dict())
    state.ops = {op.id: OpRecord(op.id, op.kind) for op in graph.ops}
    ctx = RunContext(task, problem, model, state, concurrency, max_calls, on_event)
    logger.info("graph of operations: %s", graph.to_json(indent=None))
    ctx.emit("run_started", graph=state.graph, model=getattr(model, "name", "model"))
    source = Thought(
        id="input", op_id="input", kind="input", content=problem, text=task.render(problem),
        problem=problem,
    )
    state.add(source)
    runner = _Runner(graph, ctx, source)
    try:
        if concurrency == 1:
            await runner.run_in_order()
        else:
            await runner.run_concurrently()
    finally:
        ctx.emit("run_finished", calls=len(state.calls), stop_reason=ctx.stop_reason)
        logger.info("run finished: %d model calls", len(state.calls))
    return state, ctx


class _Runner:
    def __init__(self, graph: Graph, ctx: RunContext, source: Thought) -> None:
        self.graph, self.ctx, self.source = graph, ctx, source
        self.succ = graph.successors()
        self.waiting = {op.id: len(set(op.inputs)) for op in graph.ops}

    def _roots(self) -> list[str]:
        return [op.id for op in self.graph.ops if not op.inputs]

    def _ready_after(self, op_id: str) -> list[str]:
        ready = []
        for nxt in self.succ[op_id]:
            self.waiting[nxt] -= 1
            if self.waiting[nxt] == 0:
                ready.append(nxt)
        return ready

    async def run_in_order(self) -> None:
        """The reference controller's BFS: a FIFO queue, one op at a time."""
        queue = self._roots()
        while queue:
            op_id = queue.pop(0)
            if not await self._run_op(self.graph.op(op_id)):
                return
            queue.extend(self._ready_after(op_id))

    async def run_concurrently(self) -> None:
        """Start every op the moment its inputs are done; stop launching once the budget is out."""
        order = {op.id: i for i, op in enumerate(self.graph.ops)}
        running: dict[asyncio.Task[bool], str] = {}

        def launch(op_ids: list[str]) -> None:
            for op_id in op_ids:
                running[asyncio.create_task(self._run_op(self.graph.op(op_id)))] = op_id

        launch(self._roots())
        stopped = False
        try:
            while running:
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in sorted(done, key=lambda t: order[running[t]]):
                    op_id = running.pop(task)
                    if not task.result():
                        stopped = True
                    elif not stopped:
                        launch(self._ready_after(op_id))
        finally:
            for task in running:
                task.cancel()
            if running:
                await asyncio.gather(*running, return_exceptions=True)

    async def _run_op(self, op: Op) -> bool:
        """Run one op; False when a budget cap stopped it (its attempts stay in the state)."""
        record = self.ctx.state.ops[op.id]
        inputs = self._inputs(op)
        base_round = max((self.ctx.state.ops[i].end_round for i in op.inputs), default=0)
        record.status, record.started = "running", self.ctx.now()
        self.ctx.emit("op_started", op.id, kind=op.kind)
        try:
            outputs = await OPS[op.kind](self.ctx, op, inputs, base_round)
        except BudgetExhausted:
            record.status = "stopped"
            self._finish(op, record, base_round)
            return False
        except BaseException:
            record.status = "failed"
            self._finish(op, record, base_round)
            raise
        record.outputs = [t.id for t in outputs]
        record.status = "done"
        self._finish(op, record, base_round)
        return True

    def _finish(self, op: Op, record: OpRecord, base_round: int) -> None:
        record.end_round = max(base_round, self.ctx.op_rounds.get(op.id, 0))
        record.ended = self.ctx.now()
        self.ctx.emit("op_finished", op.id, kind=op.kind, status=record.status)

    def _inputs(self, op: Op) -> list[Thought]:
        if not op.inputs:
            return [self.source]
        thoughts = self.ctx.state.thoughts
        return [thoughts[t] for source in op.inputs for t in self.ctx.state.ops[source].outputs]
