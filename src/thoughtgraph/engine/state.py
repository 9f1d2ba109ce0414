"""Thoughts, scores, model calls and the run state (the paper's Graph Reasoning State).

Everything here is plain data. Ids are structural (derived from the op id, the item and the
attempt), never from completion order, so the same graph and the same answers give the same state.
Its JSON export, the trace, is written by `engine/trace.py` and read back by `RunState.load` /
`from_dict` through `io/tracefile.py` (the version and the one reader).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from thoughtgraph.engine.metrics import ThoughtMetrics, metrics_of, thought_metrics
from thoughtgraph.engine.thought import Thought
from thoughtgraph.errors import InputError
from thoughtgraph.events import OpStatus
from thoughtgraph.io.bounds import clip_text
from thoughtgraph.io.tracefile import read_trace, upgrade
from thoughtgraph.records import quick_init
from thoughtgraph.spend.usage import NO_USAGE, Usage


@quick_init
@dataclass(frozen=True, slots=True)
class Call:
    """One model request, recorded before its answer is used.

    `usage` and `cost` are what this run paid; answers served from the cache are counted in
    `saved` instead, so budgets and totals count only paid tokens. A reasoning model's thinking
    is kept apart from its answers: `reasoning[i]` is what it thought before `texts[i]`, and
    `reasoning_tokens` how many of the paid completion tokens were thinking.
    """

    id: str
    op_id: str
    kind: str  # prompt kind: "part", "merge", "refine", ...
    prompt: str
    texts: tuple[str, ...]
    started: float  # seconds since the run started
    ended: float
    usage: Usage = NO_USAGE
    error: str | None = None
    n: int = 1  # completions asked for
    cached: bool = False  # every answer came from the answer cache (nothing was paid)
    saved: Usage = NO_USAGE  # tokens of answers served from the cache
    cost: float = 0.0  # USD paid for this call (0 without a price, and for cached answers)
    requests: int = 0  # HTTP requests it sent (retries and parallel singles included)
    attempts: tuple[dict[str, Any], ...] = ()  # each request's outcome (see ledger.Attempt)
    reasoning: tuple[str, ...] = ()  # the thinking before each answer ("" where none)
    reasoning_tokens: int = 0  # of the paid completion tokens, thinking
    model: str = ""  # the label of the model that answered it (engine/routes.py); "": a trace
    # from before calls named their model (its run had one model: the result's)
    thinking_cut: int | None = None  # the cap that cut the thinking of an answer the cache
    # replayed (a paid answer's is in its attempt); None: none was

    @property
    def latency(self) -> float:
        return self.ended - self.started

    @property
    def received(self) -> int:
        """Completions the model delivered (answers from the cache not included)."""
        return sum(int(a.get("answers") or 0) for a in self.attempts)

    @property
    def estimated_tokens(self) -> int:
        """Requests whose tokens were counted from the texts (the server sent no usage)."""
        return sum(bool(a.get("estimated")) for a in self.attempts)

    @property
    def unknown_tokens(self) -> int:
        """Requests whose tokens are unknown (timed out: possibly billed, never reported)."""
        return sum(a.get("prompt_tokens") is None for a in self.attempts)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["texts"] = [clip_text(text) for text in self.texts]
        data["attempts"] = [dict(a) for a in self.attempts]
        data["latency"] = round(self.latency, 6)
        if any(self.reasoning):
            data["reasoning"] = [clip_text(text) for text in self.reasoning]
        else:  # a model that does not reason: its calls are written as before
            del data["reasoning"], data["reasoning_tokens"]
        if self.thinking_cut is None:
            del data["thinking_cut"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Call:
        data = dict(data)
        data.pop("latency", None)
        data["texts"] = tuple(data.get("texts", ()))
        data["reasoning"] = tuple(str(r) for r in data.get("reasoning", ()))
        data["usage"] = Usage(**data.get("usage", {}))
        data["saved"] = Usage(**data.get("saved", {}))
        if "requests" not in data:  # a trace from before requests were counted
            cached = bool(data.get("cached"))
            data["requests"] = 0 if cached else 1
            answers = 0 if cached else len(data["texts"])
            data["attempts"] = () if cached else ({"outcome": "ok", "answers": answers},)
        data["attempts"] = tuple(dict(a) for a in data.get("attempts", ()))
        return cls(**data)


class OpRef(Protocol):
    """An op as the run's records see it: its id, its kind and the ids of its inputs.

    The gateway and the thought factory take this, not `graph.Op`: they sit below the op kinds,
    whose records the graph reads, so they never import the graph.
    """

    @property
    def id(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def inputs(self) -> tuple[str, ...]: ...


class GraphSource(Protocol):
    """What the run state reads of the graph it is handed: its ops, and its JSON-able data when
    a trace asks for it (the engine's `Graph`; the state never imports the graph)."""

    @property
    def ops(self) -> Sequence[OpRef]: ...

    def to_dict(self) -> dict[str, Any]: ...


@dataclass(slots=True)
class OpRecord:
    """What happened to one op during a run.

    An op grown at run time (`engine/growth.py`) is in no graph: its record says which op grew
    it (`grown_by`) and carries its inputs and params, so a trace describes it fully."""

    id: str
    kind: str
    status: OpStatus = OpStatus.PENDING
    outputs: list[str] = field(default_factory=list)  # ids of the thoughts passed on
    end_round: int = 0
    started: float | None = None
    ended: float | None = None
    grown_by: str | None = None
    inputs: tuple[str, ...] = ()  # a grown op's (a graph op's are in the graph)
    params: dict[str, Any] | None = None  # a grown op's, as a graph file writes them

    def to_dict(self) -> dict[str, Any]:
        """The trace's form; a graph op's has no growth fields (traces stay as they were)."""
        data = asdict(self)
        if self.grown_by is None:
            del data["grown_by"], data["inputs"], data["params"]
        else:
            data["inputs"] = list(self.inputs)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OpRecord:
        """An op of a trace (its status read back as an `OpStatus`)."""
        record = cls(**data)
        record.status = OpStatus(record.status)
        record.inputs = tuple(record.inputs)
        return record


class RunState:
    """Every thought, op and call of one run. Export order is deterministic (graph order, ids).

    `graph` is the graph as JSON-able data. A run hands in the `Graph` itself (a
    `GraphSource`), turned into data on first use: for a 10,000-op graph that data is a
    sixth of the run's memory and a few percent of its time, and most runs write no trace."""

    def __init__(
        self,
        graph: GraphSource | dict[str, Any],
        ops: dict[str, OpRecord] | None = None,
        thoughts: dict[str, Thought] | None = None,
        calls: dict[str, Call] | None = None,
        cost: float = 0.0,  # money spent on calls, when the model has a price
    ) -> None:
        self._graph = graph
        self.ops: dict[str, OpRecord] = {} if ops is None else ops
        # the ops each op grew at run time, in the order they were recorded
        self.grown: dict[str, list[str]] = {}
        for record in self.ops.values():
            if record.grown_by is not None:
                self.grown.setdefault(record.grown_by, []).append(record.id)
        self.thoughts: dict[str, Thought] = {} if thoughts is None else thoughts
        self.calls: dict[str, Call] = {} if calls is None else calls
        self.cost = cost

    @property
    def graph(self) -> dict[str, Any]:
        if not isinstance(self._graph, dict):
            self._graph = self._graph.to_dict()
        return self._graph

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RunState):
            return NotImplemented
        return (self.graph, self.ops, self.thoughts, self.calls, self.cost) == (
            other.graph,
            other.ops,
            other.thoughts,
            other.calls,
            other.cost,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it was

    def op_ids(self) -> list[str]:
        """The graph's op ids in graph order (without building the graph's data), each op grown
        at run time right after the op that grew it."""
        if isinstance(self._graph, dict):
            ids = [op["id"] for op in self._graph.get("ops", [])]
        else:
            ids = [op.id for op in self._graph.ops]
        return self._with_grown(ids) if self.grown else ids

    def add_op(self, record: OpRecord) -> OpRecord:
        """Record an op grown at run time (a graph's ops are recorded when the run starts)."""
        self.ops[record.id] = record
        if record.grown_by is not None:
            self.grown.setdefault(record.grown_by, []).append(record.id)
        return record

    def _with_grown(self, ids: list[str]) -> list[str]:
        """`ids` with each op's grown ops after it: one growth's ops as recorded, the growths
        of one op by their ids (`part_3.g0` before `part_3.g1`), whatever order they ran in."""
        out: list[str] = []

        def visit(op_id: str) -> None:
            out.append(op_id)
            blocks: dict[str, list[str]] = {}
            for child in self.grown.get(op_id, ()):
                blocks.setdefault(child.rsplit(".", 1)[0], []).append(child)
            for prefix in sorted(blocks, key=natural):
                for child in blocks[prefix]:
                    visit(child)

        for op_id in ids:
            visit(op_id)
        return out

    def __repr__(self) -> str:
        return (
            f"RunState({len(self.ops)} ops, {len(self.thoughts)} thoughts, {len(self.calls)} calls)"
        )

    def add(self, thought: Thought) -> Thought:
        self.thoughts[thought.id] = thought
        return thought

    def outputs(self, op_id: str) -> list[Thought]:
        return [self.thoughts[t] for t in self.ops[op_id].outputs]

    def edges(self) -> list[tuple[str, str]]:
        """Thought-to-thought dependencies, including attempt-to-attempt."""
        pairs: list[tuple[str, str]] = []
        for thought in self.ordered_thoughts():
            pairs.extend((p, thought.id) for p in thought.parents)
            if thought.previous_attempt:
                pairs.append((thought.previous_attempt, thought.id))
        return pairs

    def op_order(self) -> dict[str, int]:
        return {op_id: i for i, op_id in enumerate(self.op_ids())}

    def ordered_thoughts(self) -> list[Thought]:
        """Every thought in export order: graph order of its op, then natural id order."""
        order = self.op_order()
        return sorted(self.thoughts.values(), key=lambda t: (order.get(t.op_id, -1), natural(t.id)))

    def metrics(self) -> dict[str, ThoughtMetrics]:
        return thought_metrics(self.ordered_thoughts())

    def metrics_of(self, thought_id: str) -> ThoughtMetrics:
        """One thought's volume and latency (`metrics()[thought_id]`, from its ancestors only)."""
        return metrics_of(thought_id, self.thoughts)

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "the trace") -> RunState:
        """Rebuild a run state from a trace of any version `tracefile` reads."""
        data = upgrade(data, where)
        try:
            ops = {op["id"]: OpRecord.from_dict(op) for op in data.get("ops", [])}
            state = cls(graph=data["graph"], ops=ops, cost=data.get("cost", 0.0))
            state.thoughts = {t["id"]: Thought.from_dict(t) for t in data["thoughts"]}
            state.calls = {c["id"]: Call.from_dict(c) for c in data.get("calls", [])}
        except (KeyError, TypeError, ValueError) as exc:
            why = f"no {exc}" if isinstance(exc, KeyError) else str(exc)
            raise InputError(f"{where} cannot be read as a run state ({why})") from None
        return state

    @classmethod
    def load(cls, path: str | Path) -> RunState:
        """Load a run state written by `save` or by the CLI's `--trace` (any version read)."""
        return cls.from_dict(read_trace(path), str(path))


_DIGITS = re.compile(r"(\d+)")


def natural(text: str) -> list[Any]:
    """Sort key that puts 'part_10' after 'part_9'."""
    return [int(tok) if tok.isdigit() else tok for tok in _DIGITS.split(text)]
