"""The requests of one model call: each reserved against the budget before it leaves, counted
when it ends, its outcome kept for the trace.

A model call (`CallGateway.ask`) may send several HTTP requests: retries after a 429, a 5xx or a
timeout, and the parallel single requests that stand in for `n` when a server ignores it. Only
the model knows when it sends one, so the gateway opens a `CallLedger` for the call and puts it
in a context variable; a model that sends requests itself (`OpenAIModel`) calls
`reserve_request()` before each one, which raises `BudgetExhausted` when a cap forbids it (so no
request past a cap ever leaves the process), and `record_request()` when it ends. A model that
does not (the simulated model, a plain function) counts as one request per call that reached it.

Context variables follow `asyncio.gather` into its tasks, so the wrappers between the gateway and
the model (answer cache, rate limits) need not know about any of this.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from thoughtgraph.engine.state import Usage, usage_of
from thoughtgraph.errors import BudgetExhausted
from thoughtgraph.spend.budget import Meter, Ticket
from thoughtgraph.spend.pricing import Price


@dataclass(frozen=True)
class Attempt:
    """One HTTP request and how it ended. Tokens are None when unknown (a timed-out request may
    have been processed and billed; the server never said)."""

    outcome: str  # "ok", or what went wrong: "HTTP 500", "timeout", "connection", "malformed"
    answers: int = 0  # completions it delivered
    prompt_tokens: int | None = 0
    completion_tokens: int | None = 0
    error: str | None = None  # the one-line reason, for a failed request
    fatal: bool = False  # the failure stops the run (rejected key, bad request)

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
            return self.meter.reserve(self.estimate(n))
        except BudgetExhausted as exc:
            self.on_refused(str(exc))
            raise

    def record(self, ticket: Ticket, attempt: Attempt) -> None:
        """The request ended: count it, with what it delivered (tokens None: unknown)."""
        usage = attempt.usage
        cost = self.price.cost(usage) if self.price and usage is not None else 0.0
        self.meter.settle(ticket, usage, cost)
        self.attempts.append(attempt)

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
        known = [a.usage for a in self.attempts if a.usage is not None]
        return usage_of(
            sum(u.prompt_tokens for u in known), sum(u.completion_tokens for u in known)
        )

    @property
    def unknown(self) -> int:
        """Requests whose tokens are unknown."""
        return sum(a.usage is None for a in self.attempts)

    @property
    def received(self) -> int:
        return sum(a.answers for a in self.attempts)


_current: ContextVar[CallLedger | None] = ContextVar("thoughtgraph_call_ledger", default=None)


def current() -> CallLedger | None:
    """The ledger of the model call running in this task (None outside a run)."""
    return _current.get()


def open_call(ledger: CallLedger) -> Any:
    """Make `ledger` the current one; returns the token `close_call` needs."""
    return _current.set(ledger)


def close_call(token: Any) -> None:
    _current.reset(token)


def reserve_request(n: int) -> Ticket | None:
    """Called by a model before it sends a request; raises `BudgetExhausted` past a cap."""
    ledger = _current.get()
    return None if ledger is None else ledger.reserve(n)


def record_request(ticket: Ticket | None, attempt: Attempt) -> None:
    """Called by a model when a request it sent has ended, however it ended."""
    ledger = _current.get()
    if ledger is not None and ticket is not None:
        ledger.record(ticket, attempt)


def unsent_request(ticket: Ticket | None) -> None:
    """Called by a model when a request it reserved could not be sent at all."""
    ledger = _current.get()
    if ledger is not None and ticket is not None:
        ledger.unsent(ticket)
