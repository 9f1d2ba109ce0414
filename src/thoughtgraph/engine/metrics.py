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

from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from thoughtgraph.engine.dag import topological

if TYPE_CHECKING:
    from thoughtgraph.engine.thought import Thought


@dataclass(frozen=True)
class ThoughtMetrics:
    volume: int
    latency: int


def thought_metrics(thoughts: Iterable[Thought]) -> dict[str, ThoughtMetrics]:
    """Volume and latency of every thought. Ancestor sets are bitsets, so this is fast.

    Thoughts are visited depth first (a merge right after its two halves), and a bitset is
    dropped once every thought depending on it has read it: only a frontier of bitsets is alive.
    In breadth-first order every part's bitset stayed alive at once, each as wide as the graph,
    so memory grew with the square of the graph (1.6 GiB for 100,000 ops).
    """
    nodes = {t.id: t for t in thoughts}
    deps = {tid: dependencies(t.parents, t.previous_attempt, nodes) for tid, t in nodes.items()}
    order, cyclic = topological(deps)
    if cyclic:
        raise ValueError(f"thought dependencies form a cycle through {cyclic[0]!r}")
    order = _depth_first(deps, order)
    readers = dict.fromkeys(order, 0)
    for ds in deps.values():
        for dep in ds:
            readers[dep] += 1
    reach: dict[str, int] = {}
    latency: dict[str, int] = {}
    result: dict[str, ThoughtMetrics] = {}
    for index, tid in enumerate(order):
        mine = 1 << index if nodes[tid].call_id else 0  # only model-made thoughts count
        for dep in deps[tid]:
            mine |= reach[dep]
            readers[dep] -= 1
            if not readers[dep]:
                del reach[dep]
        reach[tid] = mine
        latency[tid] = 1 + max((latency[d] for d in deps[tid]), default=-1)
        result[tid] = ThoughtMetrics(mine.bit_count(), latency[tid])
    return result


def metrics_of(target: str, nodes: Mapping[str, Thought]) -> ThoughtMetrics:
    """Volume and latency of one thought (a result's final one), from its ancestors alone.

    The same figures as `thought_metrics(...)[target]`, without computing every thought's: a
    result needs only its final thought's, and the whole table held a bitset, a dependency
    list and a record per thought at the run's peak of memory."""
    deps: dict[str, list[str]] = {}
    latency: dict[str, int] = {}
    on_path: set[str] = {target}
    stack = [(target, iter(_deps_of(target, nodes, deps)))]
    while stack:
        node, pending = stack[-1]
        for dep in pending:
            if dep in on_path:
                raise ValueError(f"thought dependencies form a cycle through {dep!r}")
            if dep not in latency:
                on_path.add(dep)
                stack.append((dep, iter(_deps_of(dep, nodes, deps))))
                break
        else:
            stack.pop()
            on_path.discard(node)
            latency[node] = 1 + max((latency[d] for d in deps[node]), default=-1)
    volume = sum(1 for tid in latency if nodes[tid].call_id)
    return ThoughtMetrics(volume, latency[target])


def _deps_of(tid: str, nodes: Mapping[str, Thought], deps: dict[str, list[str]]) -> list[str]:
    thought = nodes[tid]
    deps[tid] = dependencies(thought.parents, thought.previous_attempt, nodes)
    return deps[tid]


def _depth_first(deps: Mapping[str, Sequence[str]], order: list[str]) -> list[str]:
    """A topological order that finishes each thought's dependencies just before it."""
    seen: set[str] = set()
    out: list[str] = []
    for root in reversed(order):  # from the last thoughts back
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(deps[root]))]
        while stack:
            node, pending = stack[-1]
            for dep in pending:
                if dep not in seen:
                    seen.add(dep)
                    stack.append((dep, iter(deps[dep])))
                    break
            else:
                stack.pop()
                out.append(node)
    return out


def dependencies(
    parents: Iterable[str], previous_attempt: str | None, known: Container[str]
) -> list[str]:
    """What a thought depends on: its parents and its previous attempt (those that exist)."""
    deps = [p for p in parents if p in known]
    if previous_attempt and previous_attempt in known:
        deps.append(previous_attempt)
    return deps
