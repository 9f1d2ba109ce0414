"""Budget caps on a run (requests, tokens, cost) and the meter that enforces them before each
HTTP request.

What each cap counts:

- `max_requests`: HTTP requests sent to the model: every retry of a failed request and every
  parallel single request that stands in for `n` on a server that ignores it counts as one,
  failed ones included. Answers from the answer cache send no request and count nothing.
- `max_tokens`: tokens (prompt + completion) the responses reported; a request whose tokens are
  unknown (it timed out: the server may have billed it) counts its estimate.
- `max_cost`: USD for those tokens at the run's price (the same estimate for unknown ones).

The rule, checked before every request leaves the process: it may be sent only while

    counted so far + expected for the requests in flight  <  the cap

for each cap that is set. A request in flight is expected to cost its prompt's tokens (4
characters a token) plus `max_tokens` per answer when the model sets it. So no request is ever
sent past `max_requests`; tokens and cost can end slightly above their caps, by what the requests
already in flight cost beyond their estimate. One `Meter` may be shared by several runs (an
evaluation): its caps then bound all of them together.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from thoughtgraph.errors import BudgetExhausted, InputError, shown
from thoughtgraph.spend.pricing import Price
from thoughtgraph.spend.usage import Usage


@dataclass(frozen=True)
class Budget:
    """Caps for one run (or a whole evaluation or tune); None means no cap. `max_cost` is in USD
    and needs a price (`check_priced`).

    Built with values as given, it is the one place caps are checked: a cap that is not a whole
    number 0 or more (`max_cost`: a finite number 0 or more) is refused with one line, naming
    the option as the command line spells it (`--max-requests`) when `flags` is set.
    """

    max_requests: int | None = None
    max_tokens: int | None = None
    max_cost: float | None = None
    flags: bool = field(default=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("max_requests", "max_tokens"):
            check_whole(self.label(name), getattr(self, name), 0, flags=self.flags)
        check_real(self.label("max_cost"), self.max_cost, 0.0, False)

    def label(self, name: str) -> str:
        return "--" + name.replace("_", "-") if self.flags else name

    def any(self) -> bool:
        return any(v is not None for v in (self.max_requests, self.max_tokens, self.max_cost))

    @property
    def empty(self) -> bool:
        """True when a set cap admits not one more request (0 requests or tokens, $0)."""
        return (
            (self.max_requests is not None and self.max_requests < 1)
            or (self.max_tokens is not None and self.max_tokens < 1)
            or (self.max_cost is not None and self.max_cost <= 0)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "max_requests": self.max_requests,
            "max_tokens": self.max_tokens,
            "max_cost": self.max_cost,
        }


@dataclass(frozen=True)
class Amounts:
    """Requests, tokens and USD: what was spent, or what allowances hold."""

    requests: float = 0
    tokens: float = 0
    cost: float = 0.0

    def plus(self, other: Amounts) -> Amounts:
        return Amounts(
            self.requests + other.requests, self.tokens + other.tokens, self.cost + other.cost
        )


NOTHING = Amounts()


def share(budget: Budget, spent: Amounts, held: Amounts = NOTHING, slots: int = 1) -> Budget:
    """The one "remaining share" rule: for each of `slots` runs about to start, an equal share
    of what `budget` leaves after what was `spent` and the allowances `held` by runs still in
    flight (rounded down to whole requests and tokens, never below 0). Every unit is the
    budget's: requests, not calls. Evaluations on Ray and tunes give each run its share as its
    own caps, so the runs in flight together never pass the budget. `.empty` says a share
    admits nothing."""
    slots = max(1, slots)

    def whole(cap: int | None, used: float) -> int | None:
        return None if cap is None else max(0, int(cap - used) // slots)

    return Budget(
        whole(budget.max_requests, spent.requests + held.requests),
        whole(budget.max_tokens, spent.tokens + held.tokens),
        None
        if budget.max_cost is None
        else max(0.0, (budget.max_cost - spent.cost - held.cost) / slots),
    )


def check_priced(budget: Budget, price: Price | None, model_name: str | None = None) -> None:
    """The one "a cost cap needs a price" check."""
    if budget.max_cost is None or price is not None:
        return
    what = (
        f"{model_name} is not in the built-in price table"
        if model_name
        else "this model has none in the built-in table"
    )
    raise InputError(
        f"{budget.label('max_cost')} needs a price: {what}; give price_in and price_out "
        "(--price-in/--price-out, USD per million tokens)"
    )


def check_whole(
    label: str,
    value: object,
    least: int,
    *,
    most: int | None = None,
    required: bool = False,
    flags: bool = False,
) -> None:
    """A whole number from `least` to `most`; None means "not set", unless `required`."""
    if value is None and not required:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(f"{label} must be a whole number, got {shown(value)}")
    if value < least:
        bound = "0 or more" if least == 0 and not flags else f"at least {least}"
        raise InputError(f"{label} must be {bound}, got {value}")
    if most is not None and value > most:
        raise InputError(f"{label} must be at most {most}, got {value}")


def check_real(label: str, value: object, floor: float, strict: bool) -> None:
    """A finite number at or above (strict: above) `floor`; None means "not set"."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InputError(f"{label} must be a finite number, got {shown(value)}")
    if value < floor or (strict and value == floor):
        raise InputError(
            f"{label} must be {'more than ' if strict else ''}{floor:g}"
            f"{'' if strict else ' or more'}, got {value:g}"
        )


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
    _pending_requests: int = 0
    _pending_tokens: int = 0
    _pending_cost: float = 0.0

    def __post_init__(self) -> None:
        check_priced(self.budget, self.price)

    @property
    def spent(self) -> Amounts:
        return Amounts(self.requests, self.tokens, self.cost)

    def tokens_left(self, price: Price | None = None, mine: Ticket | None = None) -> int | None:
        """Tokens one more request may use before a token or cost cap (the cost cap's at the
        output price), beside what is paid and what the other requests in flight expect
        (`mine`: the request's own reservation, left out); None: no such cap."""
        caps, price = self.budget, price or self.price
        own_tokens, own_cost = (
            (mine.tokens, mine.cost) if mine is not None and mine.open else (0, 0.0)
        )
        left: list[int] = []
        if caps.max_tokens is not None:
            left.append(caps.max_tokens - self.tokens - self._pending_tokens + own_tokens)
        if caps.max_cost is not None and price is not None and price.output > 0:
            money = caps.max_cost - self.cost - self._pending_cost + own_cost
            left.append(int(money * 1e6 / price.output))
        return max(0, min(left)) if left else None

    def reserve(self, expected: Usage, price: Price | None = None) -> Ticket:
        """Admit one request, or raise `BudgetExhausted` saying which cap stops it. `price` is
        the request's model's, when the run routes kinds to models priced apart (else the
        meter's)."""
        self.check()
        price = price or self.price
        cost = price.cost(expected) if price else 0.0
        ticket = Ticket(expected.total_tokens, cost)
        self._pending_requests += 1
        self._pending_tokens += ticket.tokens
        self._pending_cost += ticket.cost
        return ticket

    def check(self) -> None:
        caps = self.budget
        if (
            caps.max_requests is not None
            and self.requests + self._pending_requests >= caps.max_requests
        ):
            raise BudgetExhausted(
                f"max_requests={caps.max_requests} reached "
                f"({self.requests} requests sent{self._in_flight('requests')})"
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
            self._pending_requests -= 1
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
        if not self._pending_requests:
            return ""
        amount = {
            "requests": f"{self._pending_requests}",
            "tokens": f"~{self._pending_tokens:,}",
            "cost": f"~{usd(self._pending_cost)}",
        }[what]
        return f", {amount} in flight"


def usd(amount: float) -> str:
    """Dollars to the millionth, without trailing zeros: $0.5, $0.00006, $12; a cap or a spend
    below a millionth of a dollar is `<$0.000001`, never $0."""
    if 0 < amount < 5e-7:
        return "<$0.000001"
    return "$" + f"{amount:,.6f}".rstrip("0").rstrip(".")


def dollars(amount: float, sign: str = "$") -> str:
    """A cost as the summaries and tables show it: to four decimals ($0.0123), a smaller one
    to two significant digits ($0.000012), so a real cost never reads as $0.0000 (`sign=""`:
    a table cell under a `$` heading)."""
    rounded = float(f"{amount:.2g}")  # its two digits ($0.0000999 is $0.0001)
    if not math.isfinite(amount) or amount == 0 or abs(rounded) >= 0.0001:
        return f"{sign}{amount:,.4f}"
    return f"{sign}{rounded:.{1 - math.floor(math.log10(abs(rounded)))}f}"


def requests_cap(max_requests: int | None, max_calls: int | None) -> int | None:
    """`max_requests`, or its older name `max_calls` (it always counted requests); both given
    must agree."""
    if max_calls is None:
        return max_requests
    if max_requests is not None and max_requests != max_calls:
        raise InputError(
            f"max_calls is the older name of max_requests: give one (got {max_requests} "
            f"and {max_calls})"
        )
    return max_calls
