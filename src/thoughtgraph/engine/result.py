"""The result of a run: the best final thought, its score, the call counts and the run state."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from thoughtgraph.engine.graph import Graph
from thoughtgraph.engine.state import RunState
from thoughtgraph.engine.thought import Thought
from thoughtgraph.errors import shown
from thoughtgraph.events import StopReason
from thoughtgraph.spend.accounting import CALL_KINDS, Spend
from thoughtgraph.spend.budget import Budget
from thoughtgraph.spend.pricing import Price

__all__ = ["CALL_KINDS", "Result", "ResultStatus", "calls_by_op", "count_calls"]


class ResultStatus(StrEnum):
    """A run's verdict (a str, so `result.status == "clean"` holds and the JSON files, the
    results of an evaluation, keep their words)."""

    CLEAN = "clean"  # the final thought scores perfectly and the run went to its end
    NOT_CLEAN = "not clean"  # errors left, stopped early, or a rating meant and not read


@dataclass(repr=False)
class Result:
    """What `solve` returns. `status` is "clean" only when the final thought scores perfectly."""

    output: Any
    text: str
    error_count: float
    errors: list[str]
    status: ResultStatus
    calls: int  # model calls the graph made (one prompt each, asking for n answers)
    completions: int  # answers the run got, from the model or the answer cache
    calls_by_kind: dict[str, int]
    depth: int
    wall_seconds: float
    graph: Graph
    state: RunState
    model: str
    simulated: bool
    task: str
    final: Thought
    stop_reason: StopReason | None = None  # None: ran to the end
    tokens: int = 0  # paid tokens (prompt + completion); cached answers are in `spend`
    volume: int = 0  # model thoughts the final thought can be reached from (itself included)
    latency: int = 0  # hops from the input to the final thought
    stop_detail: str | None = None  # why it stopped, one line: "max_cost=$0.5 reached (...)"
    spend: Spend = field(default_factory=Spend)  # calls, paid/cached, tokens, cost, saved
    spend_by_kind: dict[str, Spend] = field(default_factory=dict)  # the same per call kind
    # the same per model (its label, engine/routes.py): the default model first, then those
    # routed to kinds (`model_for`: kind -> label); `prices`: each model's (label -> price)
    spend_by_model: dict[str, Spend] = field(default_factory=dict)
    model_for: dict[str, str] = field(default_factory=dict)
    prices: dict[str, Price | None] = field(default_factory=dict)
    budget: Budget = field(default_factory=Budget)
    price: Price | None = None  # USD per million tokens; None: cost not known (counted as 0)
    # tokens each answer was capped at by default (engine/answer_cap.py); None: the user's
    # own cap (or no cap) applied, or the model takes none (a function, the simulated model)
    completion_cap: int | None = None
    # the cap the default model's requests went with at the run's end, when `completion_cap`
    # is set: above it, room for a model that reasons to think; None, no cap (the server
    # refused that room: its context is smaller)
    completion_cap_sent: int | None = None
    # answers of this run the answer cache holds: its hits and what it stored, the answers of a
    # call cut short by Ctrl-C included (a top-up's singles are stored as they arrive); None:
    # no cache
    cached_answers: int | None = None
    # The model's rating of the final answer (higher is better, 0..rating_scale) when the graph
    # rates answers with the model: None when it did not rate this one or no rating could be
    # read (then the run is "not clean"). `rating_scale` None: the graph rates only in code.
    rating: float | None = None
    rating_scale: int | None = None

    @property
    def unrated(self) -> bool:
        """The graph meant the model to rate the final answer and no rating was read."""
        return self.rating_scale is not None and self.rating is None

    @property
    def clean(self) -> bool:
        return self.status == ResultStatus.CLEAN

    def __repr__(self) -> str:
        # short on purpose: asyncio may repr a finished task's result, and the full state of a
        # large run takes seconds to print
        return (
            f"Result(status={self.status.value!r}, error_count={self.error_count:g}, "
            f"calls={self.calls}, requests={self.requests}, output={shown(self.output)})"
        )

    @property
    def cost(self) -> float:
        return self.spend.cost

    @property
    def priced(self) -> bool:
        """Some model of the run has a price: its cost is known (else shown as unknown)."""
        return self.price is not None or any(p is not None for p in self.prices.values())

    @property
    def requests(self) -> int:
        """HTTP requests sent to the model (retries and parallel singles included)."""
        return self.spend.requests

    @property
    def paid_calls(self) -> int:
        return self.spend.paid_calls

    @property
    def cached_calls(self) -> int:
        return self.spend.cached_calls

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (the full state: `engine.trace.state_dict(result.state)`)."""
        return {
            "task": self.task,
            "output": self.output,
            "text": self.text,
            "clean": self.clean,
            "status": self.status,
            "stop_reason": self.stop_reason,
            "stop_detail": self.stop_detail,
            "error_count": self.error_count,
            "errors": self.errors,
            "calls": self.calls,
            "requests": self.requests,
            "completions": self.completions,
            "calls_by_kind": self.calls_by_kind,
            "volume": self.volume,
            "latency": self.latency,
            **{key: value for key, value in self.spend.to_dict().items() if key != "calls"},
            "spend_by_kind": {kind: s.to_dict() for kind, s in self.spend_by_kind.items()},
            "spend_by_model": self.spend_by_model_dict(),
            "model_for": self.model_for,
            "budget": self.budget.to_dict(),
            "price": None if self.price is None else self.price.to_dict(),
            "completion_cap": self.completion_cap,
            "completion_cap_sent": self.completion_cap_sent,
            "rating": self.rating,
            "rating_scale": self.rating_scale,
            "depth": self.depth,
            "wall_seconds": round(self.wall_seconds, 4),
            "model": self.model,
            "simulated": self.simulated,
            "final_thought": self.final.id,
            "worst_case": self.worst_case,
            "graph": self.graph.to_dict(),
        }

    def spend_by_model_dict(self) -> dict[str, dict[str, Any]]:
        """Each model's spend, the kinds it answered and its price, as `--json` shows them."""
        kinds: dict[str, list[str]] = {}
        for call in self.state.calls.values():
            found = kinds.setdefault(call.model or self.model, [])
            if call.kind not in found:
                found.append(call.kind)
        shown = {}
        for label, spent in self.spend_by_model.items():
            price = self.prices.get(label)
            shown[label] = {
                **spent.to_dict(),
                "kinds": kinds.get(label, []),
                "price": None if price is None else price.to_dict(),
            }
        return shown

    @property
    def worst_case(self) -> dict[str, int] | None:
        """The most the graph could have asked of the model, known before its first call
        (`engine/worstcase.py`); None when some op's kind does not bound itself."""
        bound = self.graph.worst_case()
        return None if bound is None else bound.to_dict()


def count_calls(state: RunState) -> dict[str, int]:
    """Calls per kind: the spec's part, merge and refine always, then the others sorted."""
    counts = dict.fromkeys(CALL_KINDS, 0)
    others: dict[str, int] = {}
    for call in state.calls.values():  # a plain loop: a Counter costs more than a run's calls
        kind = call.kind
        if kind in counts:
            counts[kind] += 1
        else:
            others[kind] = others.get(kind, 0) + 1
    return counts | dict(sorted(others.items())) if others else counts


def calls_by_op(state: RunState) -> dict[str, int]:
    """Model calls per op id, in graph order (more than one means retries happened)."""
    order = {op_id: i for i, op_id in enumerate(state.op_ids())}
    counts = Counter(call.op_id for call in state.calls.values())
    return {op: counts[op] for op in sorted(counts, key=order.__getitem__)}
