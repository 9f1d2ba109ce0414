"""The most a graph can ask of the model, known before the first call.

Every op kind bounds what one of its ops does from its params and the most thoughts it can be
given (`kinds.Most`: calls, answers, thoughts passed on); walking the graph in dependency order
and adding them up gives the graph's worst case. A part that may grow (`growth.py`) counts as
if it failed and grew at every level. Why from the caps alone, not the problem: it must be known
for a graph file before it meets a problem, and a bound that holds for any problem is what
`--max-requests` is set against.

Requests: on the sim, a function, or an endpoint that takes `n`, each call is one request; on an
endpoint that ignores `n`, each answer is one; so `requests` (the answers) bounds both. A failed
request retried by the client (`--max-retries`) is one more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from thoughtgraph.engine import kinds
from thoughtgraph.engine.dag import topological
from thoughtgraph.engine.kinds import OpView


@dataclass(frozen=True)
class WorstCase:
    """The most model calls and answers a graph's run makes; `requests` bounds its requests."""

    calls: int
    answers: int

    @property
    def requests(self) -> int:
        """The most requests, an endpoint ignoring `n` included (retries aside)."""
        return self.answers

    def to_dict(self) -> dict[str, int]:
        return {"requests": self.requests, "calls": self.calls, "answers": self.answers}

    def line(self) -> str:
        """One line for a person: `232 requests (232 calls), retries aside`."""
        how = (
            f"{self.calls:,} calls"
            if self.calls == self.answers
            else f"{self.calls:,} calls of {self.answers:,} answers; an endpoint that takes n "
            f"gets {self.calls:,}"
        )
        return f"{self.requests:,} requests ({how}), retries aside"


def worst_case(ops: Sequence[OpView]) -> WorstCase | None:
    """The graph's worst case; None when some op's kind does not bound itself (a kind
    registered without `most`)."""
    index = {op.id: op for op in ops}
    order, _cyclic = topological({op.id: list(dict.fromkeys(op.inputs)) for op in ops})
    outputs: dict[str, int] = {}
    calls = answers = 0
    for op_id in order:
        op = index[op_id]
        given = sum(outputs[i] for i in op.inputs) if op.inputs else 1
        most = kinds.get(op.kind).bound(op.params, given)
        if most is None:
            return None
        outputs[op_id] = most.outputs
        calls += most.calls
        answers += most.answers
    return WorstCase(calls, answers)
