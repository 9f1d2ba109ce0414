"""Budget caps on a run (calls, tokens, cost) and the meter that enforces them before each call.

The rule, checked before every call that will reach the model (answers served from the cache
are free and never checked): the call may start only while

    paid so far + expected for the calls in flight  <  the cap

for each cap that is set. "Paid" counts requests that reached the model (failed ones included)
and the tokens and cost their responses reported. A call in flight is expected to cost one
request, its prompt's tokens estimated at 4 characters a token, plus `max_tokens` per answer
when the model sets it. So with one call at a time the run stops as soon as what it paid reaches
a cap; with many in flight it stops launching once the calls already running are expected to
reach it. Calls in flight always finish and are counted, so tokens and cost can end slightly
above their caps (by what those calls' answers cost beyond the estimate); calls never exceed
`max_calls`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .errors import BudgetExhausted, InputError
from .models.pricing import Price
from .state import Usage


@dataclass(frozen=True)
class Budget:
    """Caps for one run; None means no cap. `max_cost` is in USD and needs a price."""

    max_calls: int | None = None
    max_tokens: int | None = None
    max_cost: float | None = None

    def __post_init__(self) -> None:
        for name, value in self.to_dict().items():
            if value is not None and (value < 0 or not math.isfinite(value)):
                raise InputError(f"{name} must be 0 or more, got {value}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "max_calls": self.max_calls,
            "max_tokens": self.max_tokens,
            "max_cost": self.max_cost,
        }


def estimate_tokens(prompt: str, n: int, max_tokens: int | None) -> Usage:
    """What a request is expected to cost before it is sent (prompt at 4 characters a token)."""
    return Usage(math.ceil(len(prompt) / 4), n * (max_tokens or 0))


@dataclass
class Ticket:
    """A call in flight: what it is expected to cost until its response says what it did."""

    tokens: int
    cost: float
    open: bool = True


@dataclass
class Meter:
    """What a run has paid and what its calls in flight are expected to add."""

    budget: Budget = field(default_factory=Budget)
    price: Price | None = None
    paid_calls: int = 0
    tokens: int = 0
    cost: float = 0.0
    _pending_calls: int = 0
    _pending_tokens: int = 0
    _pending_cost: float = 0.0

    def __post_init__(self) -> None:
        if self.budget.max_cost is not None and self.price is None:
            raise InputError(
                "max_cost needs a price: this model has none in the built-in table; "
                "give price_in and price_out (USD per million tokens)"
            )

    def reserve(self, expected: Usage) -> Ticket:
        """Admit one paid call, or raise `BudgetExhausted` saying which cap stops it."""
        self.check()
        cost = self.price.cost(expected) if self.price else 0.0
        ticket = Ticket(expected.total_tokens, cost)
        self._pending_calls += 1
        self._pending_tokens += ticket.tokens
        self._pending_cost += ticket.cost
        return ticket

    def check(self) -> None:
        caps = self.budget
        if caps.max_calls is not None and self.paid_calls + self._pending_calls >= caps.max_calls:
            raise BudgetExhausted(
                f"max_calls={caps.max_calls} reached "
                f"({self.paid_calls} paid{self._in_flight('calls')})"
            )
        if caps.max_tokens is not None and self.tokens + self._pending_tokens >= caps.max_tokens:
            raise BudgetExhausted(
                f"max_tokens={caps.max_tokens:,} reached "
                f"({self.tokens:,} paid{self._in_flight('tokens')})"
            )
        if caps.max_cost is not None and self.cost + self._pending_cost >= caps.max_cost:
            raise BudgetExhausted(
                f"max_cost={usd(caps.max_cost)} reached "
                f"({usd(self.cost)} paid{self._in_flight('cost')})"
            )

    def settle(self, ticket: Ticket, usage: Usage, cost: float, paid: bool = True) -> None:
        """The call ended: replace its estimate by what it paid (nothing if all was cached)."""
        if ticket.open:
            ticket.open = False
            self._pending_calls -= 1
            self._pending_tokens -= ticket.tokens
            self._pending_cost -= ticket.cost
        if paid:
            self.add(usage, cost)

    def add(self, usage: Usage, cost: float) -> None:
        self.paid_calls += 1
        self.tokens += usage.total_tokens
        self.cost += cost

    def _in_flight(self, what: str) -> str:
        if not self._pending_calls:
            return ""
        amount = {
            "calls": f"{self._pending_calls}",
            "tokens": f"~{self._pending_tokens:,}",
            "cost": f"~{usd(self._pending_cost)}",
        }[what]
        return f", {amount} in flight"


def usd(amount: float) -> str:
    """Dollars to the millionth, without trailing zeros: $0.5, $0.00006, $12."""
    return "$" + f"{amount:,.6f}".rstrip("0").rstrip(".")
