"""Volume and latency of thoughts (the paper's section 6).

- **latency** of a thought: the number of hops on the longest path from the input to it (the
  input has latency 0, a first answer 1).
- **volume** of a thought: the number of model-made thoughts from which it can be reached along
  dependencies (parents and previous attempts), **counting the thought itself** when the model
  made it. The input and code-made thoughts (split chunks) are not counted.

With these conventions a chain of N model thoughts ends with latency N and volume N, as in the
paper's Table 2.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .dag import topological

if TYPE_CHECKING:  # state imports this module: no import back at run time
    from .state import Thought


@dataclass(frozen=True)
class ThoughtMetrics:
    volume: int
    latency: int


def thought_metrics(thoughts: Iterable[Thought]) -> dict[str, ThoughtMetrics]:
    """Volume and latency of every thought. Ancestor sets are bitsets, so this is fast."""
    nodes = {t.id: t for t in thoughts}
    deps = {tid: dependencies(t.parents, t.previous_attempt, nodes) for tid, t in nodes.items()}
    order, cyclic = topological(deps)
    if cyclic:
        raise ValueError(f"thought dependencies form a cycle through {cyclic[0]!r}")
    bit = {tid: 1 << i for i, tid in enumerate(order)}
    model_made = 0
    for tid in order:
        if nodes[tid].call_id:
            model_made |= bit[tid]
    reach: dict[str, int] = {}
    latency: dict[str, int] = {}
    result: dict[str, ThoughtMetrics] = {}
    for tid in order:
        reach[tid] = bit[tid]
        for dep in deps[tid]:
            reach[tid] |= reach[dep]
        latency[tid] = 1 + max((latency[d] for d in deps[tid]), default=-1)
        result[tid] = ThoughtMetrics((reach[tid] & model_made).bit_count(), latency[tid])
    return result


def dependencies(
    parents: Iterable[str], previous_attempt: str | None, known: Container[str]
) -> list[str]:
    """What a thought depends on: its parents and its previous attempt (those that exist)."""
    deps = [p for p in parents if p in known]
    if previous_attempt and previous_attempt in known:
        deps.append(previous_attempt)
    return deps
