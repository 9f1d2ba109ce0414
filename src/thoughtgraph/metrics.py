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

from collections.abc import Iterable
from dataclasses import dataclass

from .state import Thought


@dataclass(frozen=True)
class ThoughtMetrics:
    volume: int
    latency: int


def thought_metrics(thoughts: Iterable[Thought]) -> dict[str, ThoughtMetrics]:
    """Volume and latency of every thought. Ancestor sets are bitsets, so this is fast."""
    nodes = {t.id: t for t in thoughts}
    order = _topological(nodes)
    bit = {tid: 1 << i for i, tid in enumerate(order)}
    model_made = 0
    for tid in order:
        if nodes[tid].call_id:
            model_made |= bit[tid]
    reach: dict[str, int] = {}
    latency: dict[str, int] = {}
    result: dict[str, ThoughtMetrics] = {}
    for tid in order:
        deps = _deps(nodes[tid], nodes)
        reach[tid] = bit[tid]
        for dep in deps:
            reach[tid] |= reach[dep]
        latency[tid] = 1 + max((latency[d] for d in deps), default=-1)
        result[tid] = ThoughtMetrics((reach[tid] & model_made).bit_count(), latency[tid])
    return result


def _deps(thought: Thought, nodes: dict[str, Thought]) -> list[str]:
    deps = [p for p in thought.parents if p in nodes]
    if thought.previous_attempt and thought.previous_attempt in nodes:
        deps.append(thought.previous_attempt)
    return deps


def _topological(nodes: dict[str, Thought]) -> list[str]:
    """Kahn's algorithm over thought dependencies (ties in insertion order)."""
    from collections import deque

    children: dict[str, list[str]] = {tid: [] for tid in nodes}
    waiting: dict[str, int] = {}
    for tid, thought in nodes.items():
        deps = _deps(thought, nodes)
        waiting[tid] = len(deps)
        for dep in deps:
            children[dep].append(tid)
    queue = deque(tid for tid, n in waiting.items() if n == 0)
    order: list[str] = []
    while queue:
        tid = queue.popleft()
        order.append(tid)
        for child in children[tid]:
            waiting[child] -= 1
            if waiting[child] == 0:
                queue.append(child)
    if len(order) != len(nodes):
        raise ValueError("thought dependencies form a cycle")
    return order
