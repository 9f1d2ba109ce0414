"""Budget caps on a run (requests, tokens, cost) and the meter that enforces them before each
HTTP request.

What each cap counts:

- `max_calls`: HTTP requests sent to the model: every retry of a failed request and every
  parallel single request that stands in for `n` on a server that ignores it counts as one,
  failed ones included. Answers from the answer cache send no request and count nothing.
- `max_tokens`: tokens (prompt + completion) the responses reported; a request whose tokens are
  unknown (it timed out: the server may have billed it) counts its estimate.
- `max_cost`: USD for those tokens at the run's price (the same estimate for unknown ones).

The rule, checked before every request leaves the process: it may be sent only while

    counted so far + expected for the requests in flight  <  the cap

for each cap that is set. A request in flight is expected to cost its prompt's tokens (4
characters a token) plus `max_tokens` per answer when the model sets it. So no request is ever
sent past `max_calls`; tokens and cost can end slightly above their caps, by what the requests
already in flight cost beyond their estimate. One `Meter` may be shared by several runs (an
evaluation): its caps then bound all of them together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from thoughtgraph.errors import BudgetExhausted, InputError
from thoughtgraph.spend.pricing import Price
from thoughtgraph.spend.usage import Usage


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
    requests: int = 0  # requests sent and ended (failed ones included)
    tokens: int = 0  # tokens reported, plus the estimate of requests whose tokens are unknown
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

    @property
    def paid_calls(self) -> int:
        """The older name of `requests`."""
        return self.requests

    def reserve(self, expected: Usage) -> Ticket:
        """Admit one request, or raise `BudgetExhausted` saying which cap stops it."""
        self.check()
        cost = self.price.cost(expected) if self.price else 0.0
        ticket = Ticket(expected.total_tokens, cost)
        self._pending_calls += 1
        self._pending_tokens += ticket.tokens
        self._pending_cost += ticket.cost
        return ticket

    def check(self) -> None:
        caps = self.budget
        if caps.max_calls is not None and self.requests + self._pending_calls >= caps.max_calls:
            raise BudgetExhausted(
                f"max_calls={caps.max_calls} reached "
                f"({self.requests} requests sent{self._in_flight('calls')})"
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

    def settle(self, ticket: Ticket, usage: Usage | None, cost: float, paid: bool = True) -> None:
        """The request ended: replace its estimate by what it cost (nothing if it was never
        sent). `usage` None means unknown: the estimate stays counted."""
        if ticket.open:
            ticket.open = False
            self._pending_calls -= 1
            self._pending_tokens -= ticket.tokens
            self._pending_cost -= ticket.cost
        if not paid:
            return
        if usage is None:
            self.requests += 1
            self.tokens += ticket.tokens
            self.cost += ticket.cost
        else:
            self.add(usage, cost)

    def add(self, usage: Usage, cost: float) -> None:
        """Count one request that was sent, with what its response reported."""
        self.requests += 1
        self.tokens += usage.total_tokens
        self.cost += cost

    def carry(self, requests: int, tokens: int, cost: float) -> None:
        """What earlier runs under the same budget already spent (a resumed evaluation)."""
        self.requests += requests
        self.tokens += tokens
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
