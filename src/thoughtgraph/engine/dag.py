"""The one topological walk shared by the op graph and the thought graph.

Why its own module: `graph.py` (op order), `metrics.py` (volume and latency of thoughts) and the
viewer (layout) all need it, and none of them should import another just for a walk.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence


def topological(deps: Mapping[str, Sequence[str]]) -> tuple[list[str], list[str]]:
    """Kahn's order over dependencies (ties in insertion order), O(n + e).

    Returns the order and the ids left over because they sit on (or behind) a cycle.
    """
    children: dict[str, list[str]] = {tid: [] for tid in deps}
    waiting = {tid: len(ds) for tid, ds in deps.items()}
    for tid, ds in deps.items():
        for dep in ds:
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
    placed = set(order)
    return order, [tid for tid in deps if tid not in placed]
