"""The requests of one model call: each reserved against the budget before it leaves, counted
when it ends, its outcome kept for the trace.

A model call (`CallGateway.ask`) may send several requests: retries after a 429, a 5xx or a
timeout, and the parallel single requests that stand in for `n` when a server ignores it. Only
the model knows when it sends one, so the gateway opens a `CallLedger` for the call and hands it
to the model as its `RequestRecorder` (the `recorder=` keyword of `complete`, passed only to a
model that says `reports_requests = True`; wrappers forward it). The model calls, for every
request:

    ticket = recorder.reserve(n)      # before it leaves; raises BudgetExhausted past a cap
    recorder.record(ticket, attempt)  # when it ended, however it ended (an `Attempt`)
    recorder.unsent(ticket)           # instead of `record`: no connection was ever made

so no request past a cap ever leaves the process. A model that does not report (the simulated
model, a plain function) counts as one request per call that reached it. `UNMETERED` is the
recorder of a model used outside a run: it admits every request and keeps nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from thoughtgraph.errors import BudgetExhausted
from thoughtgraph.records import quick_init
from thoughtgraph.spend.budget import Meter, Ticket
from thoughtgraph.spend.pricing import Price
from thoughtgraph.spend.usage import Usage, usage_of


@quick_init
@dataclass(frozen=True, slots=True, weakref_slot=True)
class Attempt:
    """One HTTP request and how it ended. Tokens are None when unknown (a timed-out request may
    have been processed and billed; the server never said)."""

    outcome: str  # "ok", or what went wrong: "HTTP 500", "timeout", "connection", "malformed"
    answers: int = 0  # completions it delivered
    prompt_tokens: int | None = 0
    completion_tokens: int | None = 0
    error: str | None = None  # the one-line reason, for a failed request
    fatal: bool = False  # the failure stops the run (rejected key, bad request)
    estimated: bool = False  # the response said no usage: tokens counted from the texts
    reasoning_tokens: int = 0  # of `completion_tokens`, the model's thinking
    thinking_cut: int | None = None  # the completion cap that cut the model's thinking

    @property
    def usage(self) -> Usage | None:
        if self.prompt_tokens is None or self.completion_tokens is None:
            return None
        return Usage(self.prompt_tokens, self.completion_tokens)

    def to_dict(self) -> dict[str, Any]:
        # written out, not dataclasses.asdict (which deep-copies field by field): one per call
        return {
            "outcome": self.outcome,
            "answers": self.answers,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "error": self.error,
            "fatal": self.fatal,
            "estimated": self.estimated,
            "reasoning_tokens": self.reasoning_tokens,
            "thinking_cut": self.thinking_cut,
        }


@dataclass
class CallLedger:
    """What one model call sent, against the run's (or the evaluation's) meter."""

    meter: Meter
    estimate: Callable[[int], Usage]  # expected usage of one request for n answers
    price: Price | None = None
    on_refused: Callable[[str], None] = lambda detail: None
    provisional: Ticket | None = None  # reserved by the gateway for the call's first request
    attempts: list[Attempt] = field(default_factory=list)

    def reserve(self, n: int) -> Ticket:
        """Admit one request for `n` answers, or raise `BudgetExhausted` (nothing is sent)."""
        if self.provisional is not None:
            ticket, self.provisional = self.provisional, None
            return ticket
        try:
            return self.meter.reserve(self.estimate(n), self.price)
        except BudgetExhausted as exc:
            self.on_refused(str(exc))
            raise

    def record(self, ticket: Ticket, attempt: Attempt) -> None:
        """The request ended: count it, with what it delivered (tokens None: unknown)."""
        usage = attempt.usage
        cost = self.price.cost(usage) if self.price and usage is not None else 0.0
        self.meter.settle(ticket, usage, cost)
        self.attempts.append(attempt)

    def tokens_left(self) -> int | None:
        """Tokens the budget leaves the call's next request (its own first reservation not
        counted against it); None: no token or cost cap."""
        return self.meter.tokens_left(self.price, self.provisional)

    def unsent(self, ticket: Ticket) -> None:
        """A reserved request that never left (no connection could be made): not counted."""
        self.meter.settle(ticket, Usage(), 0.0, paid=False)

    def release(self) -> None:
        """Give back a reservation no request used (a cache hit, a cancelled call)."""
        if self.provisional is not None:
            self.meter.settle(self.provisional, Usage(), 0.0, paid=False)
            self.provisional = None

    @property
    def usage(self) -> Usage:
        """Tokens known to be billed (requests with unknown tokens add nothing here)."""
        prompt = completion = 0
        for attempt in self.attempts:  # no Usage built per attempt: read once per call
            if attempt.prompt_tokens is not None and attempt.completion_tokens is not None:
                prompt += attempt.prompt_tokens
                completion += attempt.completion_tokens
        return usage_of(prompt, completion)

    @property
    def reasoning_tokens(self) -> int:
        """Of the completion tokens known to be billed, the model's thinking."""
        return sum(a.reasoning_tokens for a in self.attempts)

    @property
    def unknown(self) -> int:
        """Requests whose tokens are unknown."""
        return sum(a.usage is None for a in self.attempts)

    @property
    def received(self) -> int:
        return sum(a.answers for a in self.attempts)


class RequestRecorder(Protocol):
    """What a model adapter reports its requests to (see the module doc). `CallLedger` is the
    one a run hands in; `UNMETERED` admits everything and keeps nothing."""

    def reserve(self, n: int) -> Ticket:
        """Admit one request for `n` answers, or raise `BudgetExhausted` (then send nothing)."""
        ...

    def record(self, ticket: Ticket, attempt: Attempt) -> None:
        """The request reserved with `ticket` ended as `attempt` (counted, failed ones too)."""
        ...

    def unsent(self, ticket: Ticket) -> None:
        """The request reserved with `ticket` never left (no connection): not counted."""
        ...

    def tokens_left(self) -> int | None:
        """Tokens the budget leaves one more request (None: no token or cost cap): what a cap
        the model chose itself (room to think) is held to."""
        ...


class _Unmetered:
    """The recorder of a model called outside a run: no budget, nothing kept."""

    def reserve(self, n: int) -> Ticket:
        return Ticket(0, 0.0, open=False)

    def record(self, ticket: Ticket, attempt: Attempt) -> None:
        pass

    def unsent(self, ticket: Ticket) -> None:
        pass

    def tokens_left(self) -> int | None:
        return None

    def __repr__(self) -> str:
        return "UNMETERED"


UNMETERED: RequestRecorder = _Unmetered()
