"""The op-kind registry: everything about one kind of op, in one record.

A kind is its params model (what a graph file may say about it), its run function, the template
values it fills, the reference implementation's name for it and how its retries read in a
summary. The built-in kinds are written in `ops.py`, each record next to its function, so adding
a kind touches one place (CONTRIBUTING.md). Everything else reads the records from here: graph
validation, the JSON Schema and drawings (`graph.py`), the executor, `api.check_graph`, the
trace's `output_graph` (`state.py`) and the CLI summary.

Why a registry module and not `ops.py` itself: `state.py` and `graph.py` sit below the op
functions (which need the run context), so they read the records here; the built-in records
are loaded on the first lookup.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from thoughtgraph.errors import GraphError, shown

if TYPE_CHECKING:
    from thoughtgraph.engine.context import RunContext
    from thoughtgraph.engine.graph import Op
    from thoughtgraph.engine.state import Thought


class Params(BaseModel):
    """Base of every kind's params model: unknown fields are refused, values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    @classmethod
    def prompt_of(cls, params: Mapping[str, Any]) -> str | None:
        """The template an op with these (validated) params sends; None if it calls no model."""
        prompt = params.get("prompt")
        return prompt if isinstance(prompt, str) else None


OpFunction = Callable[["RunContext", "Op", list["Thought"]], Awaitable[list["Thought"]]]
"""`(ctx, op, inputs) -> the thoughts the op passes on` (rounds are the thought factory's)."""

RetryNote = Callable[["Op", int, list["Thought"]], "str | None"]
"""`(op, model calls it made, its thoughts) -> a short note for the summary, or None`."""

Needs = Callable[[Mapping[str, Any]], "type | None"]
"""`(op params) -> the optional task capability (a protocol of tasks/base.py) the op needs`."""

Check = Callable[[Mapping[str, Any], Any], None]
"""`(op params, problem) -> None`: raise a `ThoughtgraphError` to refuse the graph before any
call (a split into more parts than the problem has items)."""


@dataclass(frozen=True)
class OpKind:
    """One op kind.

    `fills` names the template values the op supplies (a graph whose prompt needs others is
    refused before any call); `needs` and `check` refuse, before any call, a graph the task or
    the problem cannot run. `makes_answers` is False when the model thoughts the op makes are
    not answers to the problem (a model's split), so a run stopped early never returns one.
    `plumbing` kinds (select) only route thoughts and are left out of one-line summaries.
    `in_place` kinds work in code and never wait (select, keep_best): the scheduler runs them
    where it stands instead of as an asyncio task of their own, which costs more than they do.
    """

    name: str
    params: type[Params]
    run: OpFunction
    fills: frozenset[str] = frozenset()
    reference_name: str = ""  # the reference implementation's OperationType (default: name)
    retries: RetryNote | None = None
    needs: Needs | None = None
    check: Check | None = None
    makes_answers: bool = True
    plumbing: bool = False
    in_place: bool = False

    def __post_init__(self) -> None:
        if not self.reference_name:
            object.__setattr__(self, "reference_name", self.name)

    def retry_note(self, op: Op, calls: int, thoughts: list[Thought]) -> str | None:
        return self.retries(op, calls, thoughts) if self.retries is not None else None

    def capability(self, params: Mapping[str, Any]) -> type | None:
        """The task capability an op of this kind with these params needs, if any."""
        return self.needs(params) if self.needs is not None else None

    def check_problem(self, params: Mapping[str, Any], problem: Any) -> None:
        if self.check is not None:
            self.check(params, problem)


_KINDS: dict[str, OpKind] = {}


def register(kind: OpKind) -> OpKind:
    """Add a kind; a second, different kind under a taken name is a programming error."""
    known = _KINDS.get(kind.name)
    if known is not None and known is not kind:
        raise ValueError(f"op kind {kind.name!r} is already registered")
    _KINDS[kind.name] = kind
    return kind


def all_kinds() -> Mapping[str, OpKind]:
    """Every registered kind by name, the built-ins first (read-only)."""
    _load_builtins()
    return MappingProxyType(_KINDS)


def get(name: str) -> OpKind:
    """The kind of that name; an unknown name is one `GraphError` line listing the known."""
    kind = _KINDS.get(name)  # looked up for every op run: no read-only view built for it
    if kind is not None:
        return kind
    kinds = all_kinds()
    if name not in kinds:
        raise GraphError(f"unknown op kind {shown(name)} (known: {', '.join(kinds)})")
    return kinds[name]


def _load_builtins() -> None:
    if "split" not in _KINDS:
        from thoughtgraph.engine import ops  # noqa: F401 - defines and registers the built-in kinds
