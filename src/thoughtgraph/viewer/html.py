"""A run's trace as one self-contained HTML page: the graph of thoughts, clickable.

Why a single file: a trace is looked at where it was made, often offline or on a CI artefact
page, so the page carries its own data, script and style and fetches nothing. Why the layout is
done here: it is a few linear passes in Python, testable without a browser, and the page only
draws what it is given, so a 1,000-thought run opens at once.

Safety: every model or user string travels as JSON inside a `<script type="application/json">`
block with `<`, `>` and `&` escaped, and the page shows it with `textContent` only, so an answer
such as `</script><img src=x onerror=...>` is shown as text, never run.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from importlib.resources import files
from pathlib import Path
from typing import Any

from thoughtgraph.engine import trace
from thoughtgraph.engine.dag import topological
from thoughtgraph.engine.metrics import dependencies
from thoughtgraph.engine.state import RunState
from thoughtgraph.errors import InputError
from thoughtgraph.io.tracefile import read_trace

ASSETS = files("thoughtgraph.viewer") / "assets"


# --- loading -------------------------------------------------------------------------------
def load_trace(path: str | Path) -> dict[str, Any]:
    """Read a trace written by `--trace` or `engine.trace.write_trace` (the one reader:
    `tracefile`)."""
    return read_trace(path)


def trace_dict(source: Mapping[str, Any] | RunState | Any) -> dict[str, Any]:
    """A trace dict from a trace dict, a `RunState` or a `Result` (which adds the summary)."""
    if isinstance(source, Mapping):
        return dict(source)
    if isinstance(source, RunState):
        return trace.state_dict(source)
    state = getattr(source, "state", None)
    if isinstance(state, RunState) and hasattr(source, "to_dict"):
        return trace.trace_dict(state, source)
    raise TypeError(f"cannot view a {type(source).__name__}: give a trace dict, RunState or Result")


# --- the page's data -----------------------------------------------------------------------
def page_data(trace: Mapping[str, Any]) -> dict[str, Any]:
    """What the page draws: summary, per-op rows, laid-out thoughts and calls.

    Every field is read with a default, so older or partial traces still render. A thought
    of an op grown at run time says which op grew it (`grown_by`: the graph's op at the root
    of the growth), so the page marks it as grown.
    """
    thoughts = [t for t in _list(trace.get("thoughts")) if isinstance(t, dict) and "id" in t]
    calls = [c for c in _list(trace.get("calls")) if isinstance(c, dict) and "id" in c]
    levels = thought_levels(thoughts)
    xs = layout(thoughts, levels)
    answered = {t.get("call_id") for t in thoughts}
    call_prompts = {c["id"]: c.get("prompt") for c in calls}
    roots = _growth_roots(trace)
    nodes = [_node(t, levels[t["id"]], xs[t["id"]], call_prompts) for t in thoughts]
    answer_of: Counter[str] = Counter()
    for node in nodes:  # which answer of its call a thought is: the thinking before it
        if node["call"] is not None:
            node["answer"] = answer_of[str(node["call"])]
            answer_of[str(node["call"])] += 1
        if node["op"] in roots:
            node["grown_by"] = roots[node["op"]]
    return {
        "summary": summary(trace, thoughts, calls),
        "ops": op_rows(trace, thoughts, calls),
        "nodes": nodes,
        "calls": {c["id"]: _call(c, c["id"] in answered) for c in calls},
    }


def _growth_roots(trace: Mapping[str, Any]) -> dict[str, str]:
    """Each grown op -> the graph op its growth started from (through growths within)."""
    records = [o for o in _list(trace.get("ops")) if isinstance(o, dict)]
    grown_by = {str(o["id"]): str(o["grown_by"]) for o in records if o.get("grown_by")}
    roots = {}
    for op_id in grown_by:
        root, seen = op_id, {op_id}
        while root in grown_by and grown_by[root] not in seen:
            root = grown_by[root]
            seen.add(root)
        roots[op_id] = root
    return roots


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: object) -> dict[str, Any]:
    """A trace field that should be an object; anything else reads as empty (traces are input)."""
    return value if isinstance(value, dict) else {}


def _deps(thought: Mapping[str, Any], known: Mapping[str, Any]) -> list[str]:
    return dependencies(_list(thought.get("parents")), thought.get("previous_attempt"), known)


def thought_levels(thoughts: list[dict[str, Any]]) -> dict[str, int]:
    """Longest dependency path from a root (the paper's latency): one Kahn pass, O(n + e).

    Computed rather than read from the trace so that older traces without `latency` lay out the
    same way; a (corrupt) cycle puts its members one level below everything else.
    """
    known = {t["id"]: t for t in thoughts}
    deps = {tid: _deps(thought, known) for tid, thought in known.items()}
    order, cyclic = topological(deps)
    level: dict[str, int] = {}
    for tid in order:
        level[tid] = 1 + max((level[d] for d in deps[tid]), default=-1)
    deepest = max(level.values(), default=-1)
    return level | {tid: deepest + 1 for tid in cyclic}


def layout(thoughts: list[dict[str, Any]], levels: dict[str, int]) -> dict[str, float]:
    """x position (in node slots) of every thought: under the mean of its dependencies.

    Level by level, nodes are sorted by that wish and swept left to right one slot apart, then
    the level is shifted back so that on average each node sits where it wished. O(n log n).
    """
    known = {t["id"]: t for t in thoughts}
    by_level: dict[int, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
    for index, thought in enumerate(thoughts):
        by_level[levels[thought["id"]]].append((index, thought))
    x: dict[str, float] = {}
    for level in sorted(by_level):
        wishes = []
        for index, thought in by_level[level]:
            deps = [x[d] for d in _deps(thought, known) if d in x]
            wishes.append((sum(deps) / len(deps) if deps else 0.0, index, thought["id"]))
        wishes.sort()
        placed: list[float] = []
        for wish, _, _ in wishes:
            placed.append(wish if not placed else max(wish, placed[-1] + 1))
        shift = sum(w[0] for w in wishes) / len(wishes) - sum(placed) / len(placed)
        for (_, _, tid), pos in zip(wishes, placed, strict=True):
            x[tid] = round(pos + shift, 3)
    return x


def _node(t: dict[str, Any], level: int, x: float, call_prompts: dict[str, Any]) -> dict[str, Any]:
    prompt = t.get("prompt")
    if prompt is not None and call_prompts.get(str(t.get("call_id"))) == prompt:
        prompt = None  # the call carries it; shared by the n answers of one request
    return {
        "id": str(t["id"]),
        "op": str(t.get("op_id", "")),
        "kind": str(t.get("kind", "")),
        "level": level,
        "x": x,
        "attempt": t.get("attempt", 1),
        "kept": t.get("kept", True) is not False,
        "valid": t.get("valid", True) is not False,
        "score": t.get("score"),
        "errors": [str(e) for e in _list(t.get("errors"))],
        "content": t.get("content"),
        "text": t.get("text", ""),
        "prompt": prompt,
        "call": t.get("call_id"),
        "parents": [str(p) for p in _list(t.get("parents"))],
        "prev": t.get("previous_attempt"),
        "volume": t.get("volume"),
        "hops": t.get("latency", level),
        "round": t.get("round"),
        "solved": t.get("solved"),
    }


def _call(call: dict[str, Any], answered: bool) -> dict[str, Any]:
    started, ended = call.get("started"), call.get("ended")
    latency = call.get("latency")
    if latency is None and isinstance(started, int | float) and isinstance(ended, int | float):
        latency = ended - started
    usage = _dict(call.get("usage"))
    data = {
        "op": call.get("op_id"),
        "kind": call.get("kind"),
        "prompt": call.get("prompt"),
        "started": started,
        "ended": ended,
        "latency": latency,
        "prompt_tokens": usage.get("prompt_tokens"),
        "completion_tokens": usage.get("completion_tokens"),
        "error": call.get("error"),
        "n": call.get("n", 1),
        "cached": call.get("cached"),
        "cost": call.get("cost"),
        "model": call.get("model") or None,  # the model that answered it (a routed kind's)
    }
    saved = _dict(call.get("saved"))
    if any(saved.values()):  # tokens the answer cache saved (not paid by this run)
        data["saved_tokens"] = sum(v for v in saved.values() if isinstance(v, int | float))
    if not answered:  # no thought holds its answers (e.g. a failed call): keep them here
        data["texts"] = _list(call.get("texts"))
    reasoning = [str(r) for r in _list(call.get("reasoning"))]
    if any(reasoning):  # a reasoning model's thinking before each answer: shown folded
        data["reasoning"] = reasoning
        data["reasoning_tokens"] = call.get("reasoning_tokens")
    return data


# --- summary and per-op table --------------------------------------------------------------
def summary(
    trace: Mapping[str, Any], thoughts: list[dict[str, Any]], calls: list[dict[str, Any]]
) -> dict[str, Any]:
    """The run's header: the `result` block when present, else what the state tells."""
    result = _dict(trace.get("result"))
    usage = [_dict(c.get("usage")) for c in calls]
    prompt_tokens = sum(u.get("prompt_tokens") or 0 for u in usage)
    completion_tokens = sum(u.get("completion_tokens") or 0 for u in usage)
    ops = [o for o in _list(trace.get("ops")) if isinstance(o, dict)]
    final_id = result.get("final_thought") or _guess_final(trace, thoughts)
    final = next((t for t in thoughts if t["id"] == final_id), {})
    ends = [v for item in calls + ops for v in [item.get("ended")] if isinstance(v, int | float)]
    return {
        "task": result.get("task"),
        "status": result.get("status", "unknown"),
        "clean": result.get("clean"),
        "stop_reason": result.get("stop_reason"),
        "error_count": result.get("error_count", final.get("score")),
        "errors": result.get("errors", final.get("errors", [])),
        "output": result.get("output", final.get("content")),
        "calls": result.get("calls", len(calls)),
        "calls_by_kind": result.get("calls_by_kind") or dict(Counter(c.get("kind") for c in calls)),
        "tokens": result.get("tokens", prompt_tokens + completion_tokens),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "cached_calls": sum(1 for c in calls if c.get("cached")),
        "failed_calls": sum(1 for c in calls if c.get("error")),
        "cost": trace.get("cost", 0.0),
        "wall_seconds": result.get("wall_seconds", max(ends, default=None)),
        "depth": result.get("depth", max((o.get("end_round") or 0 for o in ops), default=None)),
        "volume": result.get("volume", final.get("volume")),
        "latency": result.get("latency", final.get("latency")),
        "model": result.get("model"),
        "models": by_model(calls),
        "simulated": result.get("simulated"),
        "final_thought": final_id,
        "thoughts": len(thoughts),
        "ops": len(ops),
    }


def by_model(calls: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each model's calls, kinds, tokens and cost, when the run routed kinds to more than one
    model (a trace whose calls name one model, or none, gets {}: the header names it)."""
    models: dict[str, dict[str, Any]] = {}
    for call in calls:
        label = call.get("model")
        if not isinstance(label, str) or not label:
            continue
        entry = models.setdefault(label, {"calls": 0, "kinds": [], "tokens": 0, "cost": 0.0})
        usage = _dict(call.get("usage"))
        entry["calls"] += 1
        entry["tokens"] += sum(v for v in usage.values() if isinstance(v, int | float))
        cost = call.get("cost")
        entry["cost"] += cost if isinstance(cost, int | float) else 0.0
        if call.get("kind") not in entry["kinds"]:
            entry["kinds"].append(call.get("kind"))
    return models if len(models) > 1 else {}


def _guess_final(trace: Mapping[str, Any], thoughts: list[dict[str, Any]]) -> str | None:
    """For traces without a result: the best output of the op nothing depends on."""
    graph_ops = _list(_dict(trace.get("graph")).get("ops"))
    used = {i for op in graph_ops if isinstance(op, dict) for i in _list(op.get("inputs"))}
    last = next(
        (
            op.get("id")
            for op in reversed(graph_ops)
            if isinstance(op, dict) and op.get("id") not in used
        ),
        None,
    )
    record = next(
        (o for o in _list(trace.get("ops")) if isinstance(o, dict) and o.get("id") == last), {}
    )
    outputs = set(_list(record.get("outputs")))
    candidates = [t for t in thoughts if t["id"] in outputs]
    scored = [t for t in candidates if isinstance(t.get("score"), int | float)]
    if scored:
        return str(min(scored, key=lambda t: t["score"])["id"])
    return str(candidates[0]["id"]) if candidates else None


def op_rows(
    trace: Mapping[str, Any], thoughts: list[dict[str, Any]], calls: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """One row per op in graph order: status, calls, tokens, thoughts made, best score, timing."""
    graph_ops = [o for o in _list(_dict(trace.get("graph")).get("ops")) if isinstance(o, dict)]
    records = {o.get("id"): o for o in _list(trace.get("ops")) if isinstance(o, dict)}
    order = _row_order(graph_ops, records)
    kinds = {o.get("id"): o.get("kind") for o in graph_ops}
    inputs = {o.get("id"): _list(o.get("inputs")) for o in graph_ops}
    grown_by = {i: r.get("grown_by") for i, r in records.items() if r.get("grown_by")}
    made: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for thought in thoughts:
        made[thought.get("op_id")].append(thought)
    spent: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for call in calls:
        spent[call.get("op_id")].append(call)
    rows = []
    for op_id in order:
        record = records.get(op_id, {})
        scores = [t["score"] for t in made[op_id] if isinstance(t.get("score"), int | float)]
        usage = [_dict(c.get("usage")) for c in spent[op_id]]
        rows.append(
            {
                "id": str(op_id),
                "kind": record.get("kind", kinds.get(op_id)),
                "status": record.get("status", "unknown"),
                "inputs": inputs.get(op_id, _list(record.get("inputs"))),
                "grown_by": grown_by.get(op_id),
                "nest": _nesting(op_id, grown_by),
                "outputs": _list(record.get("outputs")),
                "thoughts": len(made[op_id]),
                "calls": len(spent[op_id]),
                "tokens": sum(
                    (u.get("prompt_tokens") or 0) + (u.get("completion_tokens") or 0) for u in usage
                ),
                "cost": sum(c.get("cost") or 0 for c in spent[op_id]),
                "best": min(scores, default=None),
                "started": record.get("started"),
                "ended": record.get("ended"),
                "end_round": record.get("end_round"),
            }
        )
    return rows


def _row_order(graph_ops: list[dict[str, Any]], records: dict[Any, dict[str, Any]]) -> list[Any]:
    """The ops in graph order, each op grown at run time right after the op that grew it (the
    trace lists them so); records of ops the graph does not name otherwise come last."""
    in_graph = [o.get("id") for o in graph_ops]
    if not any(r.get("grown_by") for r in records.values()):
        known = set(in_graph)
        return in_graph + [i for i in records if i not in known]
    return list(records) + [i for i in in_graph if i not in records]


def _nesting(op_id: Any, grown_by: Mapping[Any, Any]) -> int:
    """How many growths deep an op is: 0 for the graph's own, 1 for what one of them grew."""
    depth, seen = 0, {op_id}
    while op_id in grown_by and grown_by[op_id] not in seen:
        op_id = grown_by[op_id]
        seen.add(op_id)
        depth += 1
    return depth


# --- the page ------------------------------------------------------------------------------
def script_json(value: object) -> str:
    """JSON that is safe inside a <script> element: no `<`, `>` or `&` appears literally."""
    try:
        text = json.dumps(value, default=str, allow_nan=False, separators=(",", ":"))
    except ValueError:
        text = json.dumps(_finite(value), default=str, separators=(",", ":"))
    for char, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escaped)
    return text


def _finite(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # "inf": JSON has no infinity; the page shows it as a bad score
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def render_html(source: Mapping[str, Any] | RunState | Any, *, title: str | None = None) -> str:
    """The self-contained page for a trace dict, a `RunState` or a `Result`."""
    data = page_data(trace_dict(source))
    if title is None:
        task = data["summary"].get("task")
        title = f"thoughtgraph trace · {task}" if task else "thoughtgraph trace"
    css = (ASSETS / "viewer.css").read_text(encoding="utf-8")
    js = (ASSETS / "viewer.js").read_text(encoding="utf-8")
    parts = {
        "TITLE": html.escape(title),
        "CSP": csp(css, js),
        "CSS": css,
        "JS": js,
        "DATA": script_json(data),
    }
    template = (ASSETS / "page.html").read_text(encoding="utf-8")
    return re.sub(r"@@([A-Z]+)@@", lambda m: parts[m.group(1)], template)  # one pass


def csp(css: str, js: str) -> str:
    """A Content-Security-Policy that lets only our own style and script run and loads nothing.

    Defence in depth behind `textContent`: an injected inline handler or script would not run,
    and no request can leave the page.
    """

    def digest(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    return (
        f"default-src 'none'; style-src {digest(css)}; script-src {digest(js)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def write_html(
    source: Mapping[str, Any] | RunState | Any, path: str | Path, *, title: str | None = None
) -> Path:
    """Write the page; returns its path."""
    path = Path(path)
    try:
        path.write_text(render_html(source, title=title), encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path
