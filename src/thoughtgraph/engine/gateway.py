"""The call gateway: every model call of a run goes through `CallGateway.ask`.

It is the one place a request is admitted (shared concurrency slot, budget reservation through
the ledger, free cache hits), recorded in the run state with its tokens and cost, announced as
events, and where the run stops (a cap reached, a fatal model error) and drains (the calls in
flight finish and are recorded; none starts after). It knows nothing about thoughts: the thought
factory (`thoughts.py`) turns its answers into them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from thoughtgraph.engine.outcome import Stop
from thoughtgraph.engine.routes import Route, Routes
from thoughtgraph.engine.state import Call, OpRef, RunState
from thoughtgraph.errors import BudgetExhausted, FatalModelError, ModelError
from thoughtgraph.events import CallFinished, CallStarted, Event, EventHandler, StopReason
from thoughtgraph.models.base import (
    Completion,
    LanguageModel,
    complete_with,
    completion_cap,
    would_answer,
)
from thoughtgraph.models.limits import ConcurrencyLimiter
from thoughtgraph.models.reasoning import may_think, split_inline
from thoughtgraph.spend.budget import Budget, Meter, Ticket
from thoughtgraph.spend.ledger import Attempt, CallLedger
from thoughtgraph.spend.pricing import Price
from thoughtgraph.spend.usage import Usage, estimate_tokens, usage_of

logger = logging.getLogger("thoughtgraph")


@dataclass
class CallGateway:
    """The model, the budget and the stop state of one run; `state` receives every call.

    `model` and `price` are the run's one model, unless `routes` sends some kinds of call to
    other models (engine/routes.py): each call then goes to its kind's model, at its price,
    under the one budget."""

    model: LanguageModel
    state: RunState
    concurrency: int = 16
    budget: Budget = field(default_factory=Budget)
    price: Price | None = None
    on_event: EventHandler | None = None
    started: float = field(default_factory=time.perf_counter)
    stop: Stop | None = None  # the first reason to stop met (a fatal error outranks a cap);
    # the executor hands it on in the run's outcome
    shared_meter: Meter | None = None  # an evaluation's, shared by all its runs (so that its
    # caps bound them together); None: a fresh one for this run's budget
    meter: Meter = field(init=False)
    closed: bool = False  # set when the run has ended: no call may start after that
    _in_flight: int = 0
    _idle: asyncio.Event = field(init=False)
    limiter: ConcurrencyLimiter | None = None  # the cap on calls in flight, shared on purpose
    # with other runs (an evaluation's pairs); None: this run's own, of `concurrency`
    _slots: asyncio.Semaphore | None = None  # the limiter's slots on the run's loop
    routes: Routes | None = None  # which model answers each kind; None: `model` answers all

    def __post_init__(self) -> None:
        if self.routes is None:
            self.routes = Routes.single(self.model, self.price)
        self.meter = self.shared_meter or Meter(self.budget, self.price)
        if self.limiter is None:
            self.limiter = ConcurrencyLimiter(self.concurrency)
        self._idle = asyncio.Event()
        self._idle.set()

    def now(self) -> float:
        return time.perf_counter() - self.started

    def emit(self, event: Event) -> None:
        if self.on_event is not None:
            self.on_event(event)

    async def ask(
        self, op: OpRef, call_id: str, kind: str, prompt: str | Callable[[], str], n: int = 1
    ) -> tuple[str, ...]:
        """One model call for `n` completions, recorded in the state before it is used.

        `prompt` may be a function that builds it: it is then built once a slot is free, so
        thousands of ops waiting for the model do not each hold a prompt (a set-intersection
        part carries the whole first set: 6,250 parts built up front made the time and
        memory before the first request grow with the square of the input).

        The call gateway: raises `BudgetExhausted` before a request that a cap forbids (cache
        hits are free), `FatalModelError` when the run must stop (and for every call after
        that), and `ModelError` when the call got no answer in a way the op may retry. A call
        may return fewer than `n` answers (some of its requests failed): every answer that
        arrived is kept and used.
        """
        self._check_open()
        if self._slots is None:  # a run lives on one loop: looked up once, not per call
            assert self.limiter is not None  # set in __post_init__
            self._slots = self.limiter.slots()
        async with self._slots:
            self._check_open()
            if callable(prompt):
                prompt = prompt()
            assert self.routes is not None  # set in __post_init__
            route = self.routes.of(kind)
            try:
                hit = would_answer(route.model, prompt, n)
            except FatalModelError as exc:  # a damaged cache: stop, never run on without it
                self._stop(StopReason.FATAL, str(exc))
                raise
            ledger = CallLedger(
                self.meter,
                lambda count: self._estimate(route, prompt, count),
                route.price,
                lambda detail: self._stop(StopReason.BUDGET, detail),
                None if hit else self._reserve(route, prompt, n),
            )
            self._in_flight += 1
            self._idle.clear()
            try:
                return await self._call(op, call_id, kind, prompt, n, ledger, route)
            finally:
                self._in_flight -= 1
                if not self._in_flight:
                    self._idle.set()

    async def _call(
        self,
        op: OpRef,
        call_id: str,
        kind: str,
        prompt: str,
        n: int,
        ledger: CallLedger,
        route: Route,
    ) -> tuple[str, ...]:
        started = self.now()
        if self.on_event is not None:
            self.emit(CallStarted(started, op.id, call_id, kind, n, model=route.label))
        try:
            completions = await complete_with(route.model, prompt, n, ledger)
            if not completions:
                raise ModelError("the model returned no answer")
        except (ModelError, FatalModelError, BudgetExhausted) as exc:
            self._count_unreported(ledger, (), failed=str(exc))
            failed = self._failed_call(op, call_id, kind, prompt, n, started, ledger, exc, route)
            self._record(failed)
            if isinstance(exc, FatalModelError):
                self._stop(StopReason.FATAL, str(exc))
            raise
        except BaseException:  # cancelled: what was sent stays counted and recorded
            ledger.release()
            if ledger.attempts:
                error = "cancelled before its answers arrived"
                self._record(
                    self._failed_call(op, call_id, kind, prompt, n, started, ledger, error, route)
                )
            raise
        self._count_unreported(ledger, completions)
        attempts = ledger.attempts
        for attempt in attempts:
            if attempt.fatal:  # a sibling request was refused for good: keep these, then stop
                self._stop(StopReason.FATAL, attempt.error or attempt.outcome)
                break
        usage = ledger.usage
        cost = route.price.cost(usage) if route.price and attempts else 0.0
        texts, reasoning, saved = _answers(completions)
        self._record(
            Call(
                call_id,
                op.id,
                kind,
                prompt,
                texts,
                started,
                self.now(),
                usage,
                n=n,
                cached=not attempts,
                cost=cost,
                saved=saved,
                requests=len(attempts),
                attempts=tuple([a.to_dict() for a in attempts]),
                reasoning=reasoning,
                reasoning_tokens=ledger.reasoning_tokens,
                model=route.label,
                thinking_cut=_replayed_cut(completions),
            )
        )
        return texts

    def _count_unreported(
        self, ledger: CallLedger, completions: Sequence[Completion], failed: str | None = None
    ) -> None:
        """A model that does not count its own requests (the simulated model, a function) sent
        one request per call that reached it: count that one on the gateway's reservation."""
        if ledger.attempts or ledger.provisional is None:
            ledger.release()
            return
        paid = prompt_tokens = completion_tokens = 0
        estimated = False
        for answer in completions:  # one pass: every call of a simulated run comes here
            if not answer.cached:
                paid += 1
                prompt_tokens += answer.usage.prompt_tokens
                completion_tokens += answer.usage.completion_tokens
                estimated = estimated or answer.estimated
        if failed is None and not paid:  # answered wholly from the cache after all
            ledger.release()
            return
        ticket = ledger.reserve(paid or 1)  # the gateway's reservation: never refused
        outcome = "ok" if failed is None else "error"
        ledger.record(
            ticket,
            Attempt(outcome, paid, prompt_tokens, completion_tokens, failed, estimated=estimated),
        )

    def _failed_call(
        self,
        op: OpRef,
        call_id: str,
        kind: str,
        prompt: str,
        n: int,
        started: float,
        ledger: CallLedger,
        exc: BaseException | str,
        route: Route,
    ) -> Call:
        usage = ledger.usage
        return Call(
            call_id,
            op.id,
            kind,
            prompt,
            (),
            started,
            self.now(),
            usage,
            error=str(exc),
            n=n,
            cost=route.price.cost(usage) if route.price else 0.0,
            requests=len(ledger.attempts),
            attempts=tuple(a.to_dict() for a in ledger.attempts),
            model=route.label,
        )

    def _check_open(self) -> None:
        """After a fatal error no call starts; after the run's end none at all."""
        if self.stop is not None and self.stop.reason == StopReason.FATAL:
            raise FatalModelError(self.stop.detail or "the model failed")
        if self.closed:
            raise BudgetExhausted("the run has ended")

    def _estimate(self, route: Route, prompt: str, n: int) -> Usage:
        return estimate_tokens(prompt, n, completion_cap(route.model))

    def _reserve(self, route: Route, prompt: str, n: int) -> Ticket:
        try:
            return self.meter.reserve(self._estimate(route, prompt, n), route.price)
        except BudgetExhausted as exc:
            self._stop(StopReason.BUDGET, str(exc))
            raise

    def _stop(self, reason: StopReason, detail: str) -> None:
        """The first reason to stop is the one reported."""
        if self.stop is None:
            self.stop = Stop(reason, detail)
            logger.info("run stopping: %s (%s)", reason, detail)
        elif reason == StopReason.FATAL and self.stop.reason != reason:
            self.stop = Stop(reason, detail)  # a fatal error outranks a budget

    async def drain(self) -> None:
        """Wait for the calls still in flight (their answers are paid for), then admit no more."""
        await self._idle.wait()
        self.closed = True

    def _record(self, call: Call) -> None:
        self.state.calls[call.id] = call
        self.state.cost += call.cost
        if self.on_event is None:  # nobody listens: the event's 13 fields are not worked out
            return
        self.emit(
            CallFinished(
                self.now(),
                call.op_id,
                call.id,
                call.kind,
                latency=call.latency,
                error=call.error,
                tokens=call.usage.total_tokens,
                prompt_tokens=call.usage.prompt_tokens,
                completion_tokens=call.usage.completion_tokens,
                cached=call.cached,
                cost=call.cost,
                requests=call.requests,
                answers=call.received,
                model=call.model,
            )
        )


def _answers(completions: Sequence[Completion]) -> tuple[tuple[str, ...], tuple[str, ...], Usage]:
    """A call's answers as recorded, in one pass: their texts and thinking (inline thinking
    taken apart, `_thinking_apart`), and the tokens of those served from the cache."""
    texts: list[str] = []
    reasoning: list[str] = []
    prompt_tokens = completion_tokens = 0
    for answer in completions:
        answer = _thinking_apart(answer)
        texts.append(answer.text)
        reasoning.append(answer.reasoning)
        if answer.cached:
            prompt_tokens += answer.usage.prompt_tokens
            completion_tokens += answer.usage.completion_tokens
    return tuple(texts), tuple(reasoning), usage_of(prompt_tokens, completion_tokens)


def _replayed_cut(completions: Sequence[Completion]) -> int | None:
    """The cap that cut the thinking of an answer served from the cache (a paid one's is in
    its attempt), so that the call says why its answer is empty as the paid one did."""
    caps = [a.cut_at for a in completions if a.cached and a.cut and a.cut_at]
    return max(caps) if caps else None


def _thinking_apart(answer: Completion) -> Completion:
    """An answer with inline `<think>` blocks left in it (a user's function calling a local
    server, an answer cached before it was read apart) taken out of the answer: the thinking is
    never read as the answer (`models.reasoning`)."""
    if answer.reasoning or not may_think(answer.text):
        return answer
    reply = split_inline(answer.text)
    if reply.answer == answer.text:
        return answer
    return replace(answer, text=reply.answer, reasoning=reply.reasoning, cut=reply.unclosed)
