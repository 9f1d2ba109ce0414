"""What a run spent: calls, requests, tokens and cost, in total and per call kind, from the
recorded calls.

Three counts, not to be confused:

- a *call* is one model call the graph made: one prompt, asking for `n` answers;
- a *request* is one HTTP request sent to the model for a call: a retry after a 429, a 5xx or a
  timeout is another request, and so is each parallel single request standing in for `n` on a
  server that ignores it; a call answered from the answer cache sends none;
- a *completion* is one answer. `answers_received` came from the model (each is written to the
  answer cache when there is one), `answers_cached` came from the cache.

Paid and cached are kept apart: a call answered wholly from the answer cache is a cached call
and costs nothing; its answers' tokens (and what they would cost at today's price) are "saved".
A failed call reached the model, so it is a paid call, usually with 0 tokens. A request whose
tokens are unknown (it timed out) adds nothing to the token counts and is counted in
`unknown_token_requests` instead. A request whose response reported no usage (many local servers)
has its tokens counted from the texts (`spend.usage.count_tokens`) and is counted in
`estimated_token_requests`: the token and cost figures, and the caps on them, then rest on
estimates, and every report says so (`tokens_estimated`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from thoughtgraph.records import quick_init
from thoughtgraph.spend.pricing import Price
from thoughtgraph.spend.usage import Usage

CALL_KINDS = ("part", "merge", "refine")

MODEL_CALL_KINDS = (
    *CALL_KINDS,
    "split",
    "score",
    "io",
    "cot",
    "improve",
    "paper_merge",
    "propose",
)
"""Every kind of call the built-in ops make (a call's kind is its prompt's name; a merge of
more than two is a "merge") and tune's `--propose`: what `--model-for KIND=SPEC` may route."""

Pricing = Price | Mapping[str, Price | None] | None
"""What the totals price cached answers at: one price for every call, or each call's model's
(`Call.model`, the model's label) from a mapping; None: no price."""


def price_of(pricing: Pricing, model: str) -> Price | None:
    """The price of the calls `model` answered."""
    if pricing is None or isinstance(pricing, Price):
        return pricing
    return pricing.get(model)


class CallRecord(Protocol):
    """What the totals read of one recorded call (the engine's `state.Call`)."""

    @property
    def kind(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def texts(self) -> tuple[str, ...]: ...
    @property
    def usage(self) -> Usage: ...
    @property
    def saved(self) -> Usage: ...
    @property
    def cost(self) -> float: ...
    @property
    def cached(self) -> bool: ...
    @property
    def error(self) -> str | None: ...
    @property
    def requests(self) -> int: ...
    @property
    def received(self) -> int: ...
    @property
    def unknown_tokens(self) -> int: ...
    @property
    def estimated_tokens(self) -> int: ...
    @property
    def reasoning_tokens(self) -> int: ...


@quick_init
@dataclass(frozen=True, slots=True, weakref_slot=True)
class Spend:
    calls: int = 0  # model calls recorded
    paid_calls: int = 0  # calls that sent at least one request (failed ones included)
    cached_calls: int = 0  # calls answered wholly from the answer cache
    failed_calls: int = 0  # calls that got no answer (error recorded on the call)
    requests: int = 0  # HTTP requests sent (retries and parallel singles included)
    answers_received: int = 0  # completions the model delivered
    answers_cached: int = 0  # completions served from the answer cache
    unknown_token_requests: int = 0  # requests whose tokens are unknown (timed out)
    estimated_token_requests: int = 0  # requests whose response said no usage: counted
    # from the texts (`spend.usage.count_tokens`), so the token figures are estimates
    prompt_tokens: int = 0  # paid
    completion_tokens: int = 0  # paid
    reasoning_tokens: int = 0  # of the paid completion tokens, a reasoning model's thinking
    cost: float = 0.0  # USD paid (0 without a price)
    saved_tokens: int = 0  # tokens of answers served from the cache
    saved_cost: float = 0.0  # what those answers would cost now

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def tokens_estimated(self) -> bool:
        return self.estimated_token_requests > 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "paid_calls": self.paid_calls,
            "cached_calls": self.cached_calls,
            "failed_calls": self.failed_calls,
            "requests": self.requests,
            "answers_received": self.answers_received,
            "answers_cached": self.answers_cached,
            "unknown_token_requests": self.unknown_token_requests,
            "estimated_token_requests": self.estimated_token_requests,
            "tokens_estimated": self.tokens_estimated,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "tokens": self.tokens,
            "cost": round(self.cost, 8),
            "saved_tokens": self.saved_tokens,
            "saved_cost": round(self.saved_cost, 8),
        }


_SUMMED = (
    "calls",
    "cached_calls",
    "failed_calls",
    "requests",
    "answers_received",
    "answers_cached",
    "unknown_token_requests",
    "estimated_token_requests",
    "prompt_tokens",
    "completion_tokens",
    "reasoning_tokens",
    "cost",
    "saved_tokens",
    "saved_cost",
)  # the Spend fields that are sums over calls, in the order `_figures` gives them

_Figures = tuple[int, int, int, int, int, int, int, int, int, int, int, float, int, float]


def _figures(c: CallRecord, price: Pricing) -> _Figures:
    """One call's share of every summed Spend field, read once (its attempts are walked by
    `received` and the token counters, so a call is read once however many tables it is in)."""
    got = c.received
    priced = price_of(price, c.model)
    return (
        1,
        int(c.cached),
        int(c.error is not None),
        c.requests,
        got,
        max(0, len(c.texts) - got),
        c.unknown_tokens,
        c.estimated_tokens,
        c.usage.prompt_tokens,
        c.usage.completion_tokens,
        c.reasoning_tokens,
        c.cost,
        c.saved.total_tokens,
        priced.cost(c.saved) if priced else 0.0,
    )


NO_SPEND = Spend(cost=0)  # the sums of no calls (a trace's "cost": 0); frozen, so shared


def _total(rows: Sequence[_Figures]) -> Spend:
    """The Spend of these calls' figures (sums in call order, so the floats are the same as
    adding the calls up one by one)."""
    if not rows:
        return NO_SPEND
    if len(rows) == 1:  # most of a small run's kinds: one call
        sums = rows[0]
    else:
        sums = cast(_Figures, tuple(sum(column) for column in zip(*rows, strict=True)))
    # Spend's fields: calls, paid_calls, then the rest of `_SUMMED` in its order
    return Spend(sums[0], sums[0] - sums[1], *sums[1:])


def spend(calls: Iterable[CallRecord], price: Pricing = None) -> Spend:
    """The totals of these calls, in one pass over them."""
    return _total([_figures(c, price) for c in calls])


@dataclass(frozen=True)
class SpendTables:
    """A run's totals, per call kind and per model: what its result reports."""

    total: Spend
    by_kind: dict[str, Spend]  # the spec's part, merge, refine always, then others, sorted
    by_model: dict[str, Spend]  # the given models first, in their order, then the others


def spend_tables(
    calls: Iterable[CallRecord], price: Pricing = None, models: Sequence[str] = ()
) -> SpendTables:
    """All three tables from one read of each call (a 32,768-number run has 8,191 calls: the
    result once read every call three times and walked each one's attempts nine)."""
    rows: list[_Figures] = []
    kinds: dict[str, list[_Figures]] = {}
    found: dict[str, list[_Figures]] = {}
    for call in calls:
        row = _figures(call, price)
        rows.append(row)
        kinds.setdefault(call.kind, []).append(row)
        found.setdefault(call.model, []).append(row)
    kind_order = list(CALL_KINDS) + sorted(k for k in kinds if k not in CALL_KINDS)
    model_order = list(dict.fromkeys([*models, *found]))
    return SpendTables(
        _total(rows),
        {kind: _total(kinds.get(kind, [])) for kind in kind_order},
        {model: _total(found.get(model, [])) for model in model_order},
    )


@dataclass(frozen=True)
class Consumed:
    """What a scheme consumed on one problem, whether its answers came from the wire or from the
    answer cache: a property of the scheme, not of what ran before it.

    `requests` counts the graph's model calls (one request each on a server that honours `n`;
    retries and parallel singles are the transport's and are counted in `Spend.requests`),
    `completions` the answers the calls got, `tokens` their prompt and completion tokens (the
    tokens a cached answer cost when it was fetched) and `cost` those tokens at `price`.
    """

    requests: int = 0
    completions: int = 0
    tokens: int = 0
    cost: float = 0.0


def consumed(calls: Iterable[CallRecord], price: Pricing = None) -> Consumed:
    """The scheme-intrinsic totals of these calls: paid and cached answers alike, each call's
    tokens at its model's price."""
    count = answers = tokens = 0
    cost = 0.0
    for c in calls:
        count += 1
        if c.error is not None:  # no answer: the transport's loss, not the scheme's use
            continue
        answers += len(c.texts)
        usage = Usage(
            c.usage.prompt_tokens + c.saved.prompt_tokens,
            c.usage.completion_tokens + c.saved.completion_tokens,
        )
        tokens += usage.total_tokens
        priced = price_of(price, c.model)
        cost += priced.cost(usage) if priced is not None else 0.0
    return Consumed(count, answers, tokens, cost)
