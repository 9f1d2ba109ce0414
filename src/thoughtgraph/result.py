"""The result of a run: the best final thought, its score, the call counts and the run state."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from .graph import Graph
from .state import RunState, Thought

CALL_KINDS = ("part", "merge", "refine")


@dataclass
class Result:
    """What `solve` returns. `status` is "clean" only when the final thought scores perfectly."""

    output: Any
    text: str
    error_count: float
    errors: list[str]
    status: str
    calls: int  # model requests
    completions: int  # answers received (a request may ask for n of them)
    calls_by_kind: dict[str, int]
    depth: int
    wall_seconds: float
    graph: Graph
    state: RunState
    model: str
    simulated: bool
    task: str
    final: Thought
    stop_reason: str | None = None
    tokens: int = 0
    volume: int = 0  # model thoughts the final thought can be reached from (itself included)
    latency: int = 0  # hops from the input to the final thought

    @property
    def clean(self) -> bool:
        return self.status == "clean"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (the full state is in `state.to_dict()`)."""
        return {
            "task": self.task,
            "output": self.output,
            "text": self.text,
            "clean": self.clean,
            "status": self.status,
            "stop_reason": self.stop_reason,
            "error_count": self.error_count,
            "errors": self.errors,
            "calls": self.calls,
            "completions": self.completions,
            "calls_by_kind": self.calls_by_kind,
            "volume": self.volume,
            "latency": self.latency,
            "tokens": self.tokens,
            "depth": self.depth,
            "wall_seconds": round(self.wall_seconds, 4),
            "model": self.model,
            "simulated": self.simulated,
            "final_thought": self.final.id,
            "graph": self.graph.to_dict(),
        }


def count_calls(state: RunState) -> dict[str, int]:
    counts = Counter(call.kind for call in state.calls.values())
    return {kind: counts.get(kind, 0) for kind in CALL_KINDS} | {
        kind: n for kind, n in sorted(counts.items()) if kind not in CALL_KINDS
    }


def calls_by_op(state: RunState) -> dict[str, int]:
    """Model calls per op id, in graph order (more than one means retries happened)."""
    order = {op["id"]: i for i, op in enumerate(state.graph["ops"])}
    counts = Counter(call.op_id for call in state.calls.values())
    return {op: counts[op] for op in sorted(counts, key=order.__getitem__)}
