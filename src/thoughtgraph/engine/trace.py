"""Writing a run's trace: the run state (and the result summary) as versioned JSON.

Why in the engine and not beside the reader (`io/tracefile.py`): the trace carries the reference
implementation's `output_graph`, which names each op by its kind's `reference_name`, read from
the op-kind registry (`kinds.py`); the state itself (`state.py`) stays plain data that imports
no op. The version and the one reader stay in `io/tracefile.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from thoughtgraph.engine import kinds
from thoughtgraph.engine.state import RunState, natural
from thoughtgraph.errors import InputError
from thoughtgraph.io.bounds import clip_text
from thoughtgraph.io.tracefile import TRACE_VERSION, VERSION_KEY

if TYPE_CHECKING:
    from thoughtgraph.engine.result import Result


def state_dict(state: RunState) -> dict[str, Any]:
    """The run state as a trace: graph, ops, thoughts, calls and edges in a deterministic order
    (graph order, then natural ids), with `output_graph`. `RunState.from_dict` reads it back."""
    order = state.op_order()
    metrics = state.metrics()
    thoughts = []
    for thought in state.ordered_thoughts():
        data = thought.to_dict()
        data["volume"], data["latency"] = metrics[thought.id].volume, metrics[thought.id].latency
        thoughts.append(data)
    return {
        VERSION_KEY: TRACE_VERSION,
        "graph": state.graph,
        "ops": [op.to_dict() for op in sorted(state.ops.values(), key=lambda o: order[o.id])],
        "thoughts": thoughts,
        "calls": [
            c.to_dict()
            for c in sorted(
                state.calls.values(), key=lambda c: (order.get(c.op_id, -1), natural(c.id))
            )
        ],
        "edges": [list(e) for e in state.edges()],
        "cost": state.cost,
        "output_graph": output_graph(state),
    }


def output_graph(state: RunState) -> list[dict[str, Any]]:
    """The reference implementation's `output_graph` layout: one entry per op, then totals."""
    entries: list[dict[str, Any]] = []
    for op in state.graph.get("ops", []):
        record = state.ops.get(op["id"])
        thoughts = [state.thoughts[t] for t in (record.outputs if record else [])]
        entry: dict[str, Any] = {
            "operation": _reference_name(op["kind"]),
            "op_id": op["id"],
            "thoughts": [
                {"id": t.id, "current": t.content, "text": clip_text(t.text)} for t in thoughts
            ],
        }
        if any(t.score is not None for t in thoughts):
            entry["scored"] = [t.score is not None for t in thoughts]
            entry["scores"] = [None if t.score is None else t.score.value for t in thoughts]
        if any(t.validated for t in thoughts):
            entry["validated"] = [t.validated for t in thoughts]
            entry["validity"] = [t.valid for t in thoughts]
        if any(t.solved is not None for t in thoughts):
            entry["compared_to_ground_truth"] = [t.solved is not None for t in thoughts]
            entry["problem_solved"] = [bool(t.solved) for t in thoughts]
        entries.append(entry)
    entries.append(
        {
            "prompt_tokens": sum(c.usage.prompt_tokens for c in state.calls.values()),
            "completion_tokens": sum(c.usage.completion_tokens for c in state.calls.values()),
            "cost": state.cost,
        }
    )
    return entries


def _reference_name(kind: str) -> str:
    """The reference implementation's OperationType name of an op kind (its plotting scripts
    read `output_graph`); a kind unknown here keeps its own name."""
    known = kinds.all_kinds()
    return known[kind].reference_name if kind in known else kind


def trace_dict(state: RunState, result: Result | None = None) -> dict[str, Any]:
    """The trace of a run: its state, with the result summary when there is one."""
    data = state_dict(state)  # answers clipped to MAX_TRACE_TEXT characters each
    if result is None:
        return data
    summary = result.to_dict()
    if isinstance(summary.get("text"), str):
        summary["text"] = clip_text(summary["text"])
    return {VERSION_KEY: TRACE_VERSION, "result": summary, **data}


def write_trace(path: str | Path, state: RunState, result: Result | None = None) -> None:
    """Write the trace (what `solve --trace` writes); a path that cannot be written is one
    `InputError` line."""
    text = json.dumps(trace_dict(state, result), indent=1, default=str) + "\n"
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write trace {path}: {exc.strerror or exc}") from None
