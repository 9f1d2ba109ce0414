"""The graph of operations (the paper's GoO): plain data, built and validated before any call.

An `Op` has an id, a kind, the ids of the ops whose output thoughts it takes, and params checked
against its kind's params model. A `Graph` is a list of ops that must form a DAG with one output
op. Graphs round-trip through JSON and draw as Mermaid.
"""

from __future__ import annotations

import json
from collections import deque
from graphlib import CycleError, TopologicalSorter
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from .errors import GraphError


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SplitParams(Params):
    """Cut the problem into `parts` sub-problems in code (`Task.split`)."""

    parts: int = Field(ge=1)


class SelectParams(Params):
    """Pass on only the input thought at position `index` (0-based): a code selector."""

    index: int = Field(ge=0)


class GenerateParams(Params):
    """One model answer per input thought; regenerate while its error count is above `bar`."""

    prompt: str = "part"
    max_regenerations: int = Field(default=2, ge=0)
    bar: float = Field(default=0, ge=0)


class AggregateParams(Params):
    """Merge all input thoughts into one; merge again while the result has errors."""

    prompt: str = "merge"
    max_extra_merges: int = Field(default=1, ge=0)


class RefineParams(Params):
    """While the thought has errors, ask for a fix; keep a fix only if it scores strictly better."""

    prompt: str = "refine"
    max_refines: int = Field(default=2, ge=0)
    keep_if_better: bool = True


class ScoreParams(Params):
    """Score input thoughts in code (`Task.score`); already scored thoughts keep their score."""


class KeepBestParams(Params):
    """Keep the `n` best input thoughts; ties go to the earlier thought id."""

    n: int = Field(default=1, ge=1)
    higher_is_better: bool = False


OP_PARAMS: dict[str, type[Params]] = {
    "split": SplitParams,
    "select": SelectParams,
    "generate": GenerateParams,
    "aggregate": AggregateParams,
    "refine": RefineParams,
    "score": ScoreParams,
    "keep_best": KeepBestParams,
}
MODEL_KINDS = frozenset({"generate", "aggregate", "refine"})


class Op(BaseModel):
    """One operation. `params` is validated and completed with defaults for its kind."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]*$", max_length=200)
    kind: str
    inputs: tuple[str, ...] = ()
    params: dict[str, Any] = Field(default_factory=dict, validate_default=True)

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, kind: str) -> str:
        if kind not in OP_PARAMS:
            raise ValueError(f"unknown op kind {kind!r} (known: {', '.join(OP_PARAMS)})")
        return kind

    @field_validator("params")
    @classmethod
    def _valid_params(cls, params: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        kind = info.data.get("kind")
        if kind not in OP_PARAMS:
            return params  # the kind's own error is reported
        try:
            return OP_PARAMS[kind].model_validate(params).model_dump()
        except ValidationError as exc:
            raise ValueError(_first_error(exc)) from None

    @property
    def calls_model(self) -> bool:
        return self.kind in MODEL_KINDS


class Graph(BaseModel):
    """A validated DAG of ops with exactly one output (leaf) op."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ops: tuple[Op, ...]

    def model_post_init(self, _context: Any) -> None:
        _validate(self.ops)

    # --- structure -------------------------------------------------------------------------
    def op(self, op_id: str) -> Op:
        return self._by_id()[op_id]

    def _by_id(self) -> dict[str, Op]:
        return {op.id: op for op in self.ops}

    def successors(self) -> dict[str, list[str]]:
        succ: dict[str, list[str]] = {op.id: [] for op in self.ops}
        for op in self.ops:
            for source in dict.fromkeys(op.inputs):
                succ[source].append(op.id)
        return succ

    @property
    def output(self) -> Op:
        """The op whose thoughts are the run's result (the only op nothing depends on)."""
        succ = self.successors()
        return next(op for op in self.ops if not succ[op.id])

    def bfs_order(self) -> list[str]:
        """The controller's order: roots first, then each successor once all its inputs ran."""
        succ, waiting = self.successors(), {op.id: len(set(op.inputs)) for op in self.ops}
        queue = deque(op.id for op in self.ops if not op.inputs)
        order: list[str] = []
        while queue:
            current = queue.popleft()
            order.append(current)
            for nxt in succ[current]:
                waiting[nxt] -= 1
                if waiting[nxt] == 0:
                    queue.append(nxt)
        return order

    def summary(self) -> str:
        """One line such as `split → 4 × generate → 3 × aggregate → refine`."""
        groups: list[tuple[str, int]] = []
        for op_id in self.bfs_order():
            kind = self.op(op_id).kind
            if kind == "select":
                continue
            if groups and groups[-1][0] == kind:
                groups[-1] = (kind, groups[-1][1] + 1)
            else:
                groups.append((kind, 1))
        return " → ".join(kind if n == 1 else f"{n} × {kind}" for kind, n in groups)

    # --- serialisation ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"ops": [op.model_dump(mode="json") for op in self.ops]}

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: Any) -> Graph:
        """Build and validate a graph; any problem becomes one `GraphError` line."""
        if not isinstance(data, dict) or not isinstance(data.get("ops"), list):
            raise GraphError('a graph must be an object with a list "ops"')
        ops = []
        for index, raw in enumerate(data["ops"]):
            where = f"op {index + 1}" + (f" ({raw.get('id')!r})" if isinstance(raw, dict) else "")
            try:
                ops.append(Op.model_validate(raw))
            except ValidationError as exc:
                raise GraphError(f"{where}: {_first_error(exc)}") from None
        extra = set(data) - {"ops"}
        if extra:
            raise GraphError(f"unknown graph field(s): {', '.join(sorted(extra))}")
        return cls(ops=tuple(ops))

    @classmethod
    def from_json(cls, text: str) -> Graph:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise GraphError(f"graph JSON is invalid: {exc.msg} at line {exc.lineno}") from None
        return cls.from_dict(data)

    def to_mermaid(self) -> str:
        lines = ["flowchart TD"]
        for op in self.ops:
            detail = ", ".join(f"{k}={v}" for k, v in op.params.items() if k != "prompt")
            label = f"{op.id}<br/><i>{op.kind}</i>" + (f"<br/>{detail}" if detail else "")
            lines.append(f'    {_mermaid_id(op.id)}["{label}"]')
        for op in self.ops:
            for source in op.inputs:
                lines.append(f"    {_mermaid_id(source)} --> {_mermaid_id(op.id)}")
        return "\n".join(lines) + "\n"


def _mermaid_id(op_id: str) -> str:
    return "op_" + op_id.replace(".", "_").replace("-", "_")


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(part) for part in err["loc"])
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        msg = "unknown field"
    if loc == "params" and err["type"] == "value_error":
        return f"params.{msg}"  # the params model already named the field
    if err["type"] == "missing":
        msg = "required field missing"
    return f"{loc}: {msg}" if loc else msg


def _validate(ops: tuple[Op, ...]) -> None:
    if not ops:
        raise GraphError("a graph needs at least one op")
    seen: set[str] = set()
    for op in ops:
        if op.id in seen:
            raise GraphError(f"duplicate op id {op.id!r}")
        seen.add(op.id)
    for op in ops:
        for source in op.inputs:
            if source == op.id:
                raise GraphError(f"op {op.id!r} takes its own output as input (cycle: {op.id})")
            if source not in seen:
                raise GraphError(f"op {op.id!r} has unknown input {source!r}")
    try:
        tuple(TopologicalSorter({op.id: op.inputs for op in ops}).static_order())
    except CycleError as exc:
        cycle = exc.args[1]
        raise GraphError(f"the graph has a cycle: {' → '.join(cycle)}") from None
    used = {source for op in ops for source in op.inputs}
    leaves = [op.id for op in ops if op.id not in used]
    if len(leaves) != 1:
        raise GraphError(
            f"a graph needs exactly one output op (nothing takes its output); found {len(leaves)}: "
            + ", ".join(leaves)
        )
