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
`unknown_token_requests` instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .models.pricing import Price
from .state import Call, RunState

CALL_KINDS = ("part", "merge", "refine")


@dataclass(frozen=True)
class Spend:
    calls: int = 0  # model calls recorded
    paid_calls: int = 0  # calls that sent at least one request (failed ones included)
    cached_calls: int = 0  # calls answered wholly from the answer cache
    failed_calls: int = 0  # calls that got no answer (error recorded on the call)
    requests: int = 0  # HTTP requests sent (retries and parallel singles included)
    answers_received: int = 0  # completions the model delivered
    answers_cached: int = 0  # completions served from the answer cache
    unknown_token_requests: int = 0  # requests whose tokens are unknown (timed out)
    prompt_tokens: int = 0  # paid
    completion_tokens: int = 0  # paid
    cost: float = 0.0  # USD paid (0 without a price)
    saved_tokens: int = 0  # tokens of answers served from the cache
    saved_cost: float = 0.0  # what those answers would cost now

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

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
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tokens": self.tokens,
            "cost": round(self.cost, 8),
            "saved_tokens": self.saved_tokens,
            "saved_cost": round(self.saved_cost, 8),
        }


def spend(calls: Iterable[Call], price: Price | None = None) -> Spend:
    calls = list(calls)
    saved = sum(c.saved.total_tokens for c in calls)
    saved_cost = sum(price.cost(c.saved) for c in calls) if price else 0.0
    return Spend(
        calls=len(calls),
        paid_calls=sum(not c.cached for c in calls),
        cached_calls=sum(c.cached for c in calls),
        failed_calls=sum(c.error is not None for c in calls),
        requests=sum(c.requests for c in calls),
        answers_received=sum(c.received for c in calls),
        answers_cached=sum(max(0, len(c.texts) - c.received) for c in calls),
        unknown_token_requests=sum(c.unknown_tokens for c in calls),
        prompt_tokens=sum(c.usage.prompt_tokens for c in calls),
        completion_tokens=sum(c.usage.completion_tokens for c in calls),
        cost=sum(c.cost for c in calls),
        saved_tokens=saved,
        saved_cost=saved_cost,
    )


def spend_by_kind(state: RunState, price: Price | None = None) -> dict[str, Spend]:
    """Per call kind: the spec's part, merge, refine always (as `calls_by_kind`), then others."""
    kinds: dict[str, list[Call]] = {}
    for call in state.calls.values():
        kinds.setdefault(call.kind, []).append(call)
    order = list(CALL_KINDS) + sorted(k for k in kinds if k not in CALL_KINDS)
    return {kind: spend(kinds.get(kind, []), price) for kind in order}
