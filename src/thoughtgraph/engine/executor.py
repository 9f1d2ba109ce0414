"""The controller: runs a graph of ops over a problem and fills in the run state.

An op starts as soon as all of its inputs are done, so independent ops overlap and the in-flight
model calls are bounded only by `concurrency` (order "eager"). Order "bfs" runs ops one at a time
in the exact BFS order of the reference controller; "auto", the default, is "bfs" at
`concurrency=1` and "eager" otherwise. Thought ids are structural, so the run state does not
depend on the order in which calls complete.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
from typing import Any

from thoughtgraph.engine import kinds
from thoughtgraph.engine.context import RunContext, run_prompts
from thoughtgraph.engine.gateway import CallGateway
from thoughtgraph.engine.graph import Graph, Op
from thoughtgraph.engine.outcome import RunOutcome, Stop
from thoughtgraph.engine.routes import Routes
from thoughtgraph.engine.state import OpRecord, RunState
from thoughtgraph.engine.thought import Thought
from thoughtgraph.engine.thoughts import ThoughtFactory
from thoughtgraph.errors import BudgetExhausted, FatalModelError
from thoughtgraph.events import (
    EventHandler,
    OpFinished,
    OpStarted,
    OpStatus,
    RunFinished,
    RunStarted,
    StopReason,
)
from thoughtgraph.models.base import LanguageModel, display_name
from thoughtgraph.models.limits import ConcurrencyLimiter
from thoughtgraph.spend.accounting import spend_tables
from thoughtgraph.spend.budget import Budget, Meter
from thoughtgraph.spend.pricing import Price
from thoughtgraph.tasks.base import BaseTask

logger = logging.getLogger("thoughtgraph")


async def execute(
    graph: Graph,
    task: BaseTask[Any, Any],
    problem: object,
    model: LanguageModel,
    *,
    concurrency: int = 16,
    budget: Budget | None = None,
    price: Price | None = None,
    on_event: EventHandler | None = None,
    meter: Meter | None = None,
    limiter: ConcurrencyLimiter | None = None,
    order: str = "auto",
    reference: object = None,
    routes: Routes | None = None,
) -> RunOutcome:
    """Run every op of `graph`; returns its outcome: the run state, the stop, the spend.

    A budget cap or a fatal model error stops the run the same way: the op that met it stops,
    no further op or paid call starts, the calls in flight finish and are recorded, and the
    reason is the outcome's `stop`. `meter`, when given, is a
    budget shared with other runs (an evaluation's): its caps apply instead of `budget`;
    `limiter`, when given, is a cap on calls in flight shared with other runs, instead of
    `concurrency`. `order` is the scheduler's (module doc). `reference` is the problem's given
    reference, when the task does not carry it in its problem (tasks/reference.py). `routes`
    sends some kinds of call to other models (engine/routes.py; its default is `model` at
    `price`), all under the one budget. The options come checked (`options.RunOptions`). A
    cancellation (Ctrl-C) stops it at once: stop reason "interrupted", recorded in
    `run_finished`, and the `CancelledError` carries `.run`, the outcome so far, so the caller
    can still report what was done.
    """
    budget = meter.budget if meter is not None else budget or Budget()
    state = RunState(graph)  # the graph's JSON-able data is built if a trace asks for it
    state.ops = {op.id: OpRecord(op.id, op.kind) for op in graph.ops}
    routes = routes or Routes.single(model, price)
    gateway = CallGateway(
        model,
        state,
        concurrency,
        budget,
        price,
        on_event,
        shared_meter=meter,
        limiter=limiter,
        routes=routes,
    )
    thoughts = ThoughtFactory(task, state, gateway)
    prompts = run_prompts(task, graph.templates)
    ctx = RunContext(task, problem, state, gateway, thoughts, prompts, reference)
    if logger.isEnabledFor(logging.INFO):  # a 10,000-op graph's JSON is not built for nothing
        logger.info("graph of operations: %s", json.dumps(state.graph))
    if on_event is not None:
        gateway.emit(RunStarted(gateway.now(), state.graph, display_name(model)))
    source = Thought(
        id="input",
        op_id="input",
        kind="input",
        content=problem,
        text=task.render(problem),
        problem=problem,
    )
    state.add(source)
    runner = _Runner(graph, ctx, source)
    stop: Stop | None = None
    try:
        if order == "bfs" or (order == "auto" and concurrency == 1):
            await runner.run_in_order()
        else:
            await runner.run_concurrently()
        await gateway.drain()
    except asyncio.CancelledError as exc:  # Ctrl-C (or a cancelled task): keep what was done
        stop = gateway.stop or Stop(StopReason.INTERRUPTED, "cancelled (Ctrl-C)")
        exc.run = _outcome(state, stop, routes, budget)  # type: ignore[attr-defined]  # asolve
        raise  # builds the partial result from it
    finally:
        gateway.closed = True
        stop = stop or gateway.stop
        reason = None if stop is None else stop.reason
        gateway.emit(RunFinished(gateway.now(), len(state.calls), reason, state.cost))
        logger.info("run finished: %d model calls", len(state.calls))
    return _outcome(state, stop, routes, budget)


def _outcome(state: RunState, stop: Stop | None, routes: Routes, budget: Budget) -> RunOutcome:
    tables = spend_tables(state.calls.values(), routes.prices, routes.labels)
    return RunOutcome(state, stop, tables, budget)


class _Runner:
    def __init__(self, graph: Graph, ctx: RunContext, source: Thought) -> None:
        self.graph, self.ctx, self.source = graph, ctx, source
        # the graph's structure, worked out once per graph (its cached properties)
        self.ops, self.succ, self.in_place = (
            graph.ops_by_id,
            graph.successor_ids,
            graph.in_place_ids,
        )
        self.waiting = dict(graph.input_counts)  # counted down as ops end
        self._output_cache: dict[str, list[Thought]] = {}

    def _roots(self) -> list[str]:
        return list(self.graph.root_ids)

    def _ready_after(self, op_id: str) -> list[str]:
        ready = []
        for nxt in self.succ[op_id]:
            self.waiting[nxt] -= 1
            if self.waiting[nxt] == 0:
                ready.append(nxt)
        return ready

    async def run_in_order(self) -> None:
        """The reference controller's BFS: a FIFO queue, one op at a time."""
        queue = collections.deque(self._roots())
        while queue:
            op_id = queue.popleft()
            if not await self._run_op(self.ops[op_id]):
                return
            queue.extend(self._ready_after(op_id))
            # a cancellation point between ops (Ctrl-C): with a model that answers without
            # waiting, nothing else in the run would give the loop a turn
            await asyncio.sleep(0)

    async def run_concurrently(self) -> None:
        """Start every op the moment its inputs are done; stop launching once the run stops.

        The op that finishes an op's last input launches it, from its own task, the moment it
        ends: through the scheduler's loop it waited two more turns of the event loop, and a
        turn of the 4,096-part `got` graph runs every answer that came due (the merges of a
        level then started only once the whole level below had been read). An op of an
        `in_place` kind (select, keep_best, a score in code: code that never waits) runs right
        there instead of as a task: a task costs more than such an op does, and the 10,000-op
        `got` graph has 3,333 selects. The scheduler only waits until no task is left, or one
        failed, and raises what it raised: each task's done-callback tells it (a queue it read a
        task at a time woke it once per task, an event-loop turn each)."""
        self._running: set[asyncio.Task[bool]] = set()
        self._stopped = False
        self._settled: asyncio.Future[asyncio.Task[bool] | None] = (
            asyncio.get_running_loop().create_future()
        )
        self._launching = True  # the roots' launch may await (an in-place op of a user's kind)
        running = self._running
        try:
            await self._launch(self._roots())
            self._launching = False  # from here, no task left means every op has run
            if running and not self._settled.done():
                await self._settled  # none left, or one failed
            failed = self._settled.result() if self._settled.done() else None
            if failed is not None:
                failed.result()  # an op's error (or its cancellation) ends the run here
        finally:
            for task in running:
                task.cancel()
            if running:
                await asyncio.gather(*running, return_exceptions=True)

    async def _launch(self, op_ids: list[str]) -> None:
        """Start these ready ops: each as a task, or (in place) here, in the order the ops
        became ready; each task's done-callback reports it (`_task_done`), not asyncio.wait over
        every running task (O(running) per wake-up, which made big graphs quadratic)."""
        here: collections.deque[str] = collections.deque()
        while True:
            for op_id in op_ids:
                if op_id in self.in_place:
                    here.append(op_id)
                    continue
                task = asyncio.create_task(self._run_task(self.ops[op_id]))
                task.add_done_callback(self._task_done)
                self._running.add(task)
            if not here:
                return
            op_id = here.popleft()
            op_ids = self._next(op_id, await self._run_op(self.ops[op_id]))

    def _task_done(self, task: asyncio.Task[bool]) -> None:
        """A task ended: the run is settled once none is left (each launched what it made
        ready before it ended), or at once when one failed or was cancelled."""
        self._running.discard(task)
        # read here, so that an error after the first is never "never retrieved"
        failed = task.cancelled() or task.exception() is not None
        if self._settled.done():
            return
        if failed:
            self._settled.set_result(task)
        elif not self._running and not self._launching:
            self._settled.set_result(None)

    async def _run_task(self, op: Op) -> bool:
        """One op as a task: run it, then launch what it made ready."""
        done = await self._run_op(op)
        ready = self._next(op.id, done)
        if ready:  # half the parts of a merge tree make nothing ready
            await self._launch(ready)
        return done

    def _next(self, op_id: str, done: bool) -> list[str]:
        """The ops that op's end makes ready; none once the run has stopped (a cap, a fatal
        model error: no further op starts)."""
        if not done:
            self._stopped = True
        return [] if self._stopped else self._ready_after(op_id)

    async def _run_op(self, op: Op) -> bool:
        """Run one op; False when a budget cap or a fatal model error stopped it (its attempts
        stay in the state)."""
        record = self.ctx.state.ops[op.id]
        inputs = self._inputs(op)
        record.status, record.started = OpStatus.RUNNING, (started := self.ctx.gateway.now())
        if self.ctx.gateway.on_event is not None:
            self.ctx.gateway.emit(OpStarted(started, op.id, op.kind))
        try:
            outputs = await kinds.get(op.kind).run(self.ctx, op, inputs)
        except (BudgetExhausted, FatalModelError):
            record.status = OpStatus.STOPPED
            self._finish(op, record)
            return False
        except BaseException:
            record.status = OpStatus.FAILED
            self._finish(op, record)
            raise
        record.outputs = [t.id for t in outputs]
        record.status = OpStatus.DONE
        self._finish(op, record)
        return True

    def _finish(self, op: Op, record: OpRecord) -> None:
        record.end_round = self.ctx.thoughts.end_round(op)
        record.ended = ended = self.ctx.gateway.now()
        if self.ctx.gateway.on_event is not None:
            self.ctx.gateway.emit(OpFinished(ended, op.id, op.kind, record.status))

    def _inputs(self, op: Op) -> list[Thought]:
        if not op.inputs:
            return [self.source]
        if len(op.inputs) == 1:  # no copy: a split's 1,000 outputs feed 1,000 selects
            return self._outputs(op.inputs[0])
        inputs: list[Thought] = []
        for source in op.inputs:
            inputs.extend(self._outputs(source))
        return inputs

    def _outputs(self, op_id: str) -> list[Thought]:
        """An op's output thoughts, looked up once when several ops read them (a split's 1,000
        outputs feed 1,000 selects); an op read by one alone is not kept (memory)."""
        cached = self._output_cache.get(op_id)
        if cached is not None:
            return cached
        thoughts = self.ctx.state.thoughts
        outputs = [thoughts[t] for t in self.ctx.state.ops[op_id].outputs]
        if len(self.succ[op_id]) > 1:
            self._output_cache[op_id] = outputs
        return outputs
