"""The op kinds: what one kind of op is (`OpKind`, its params base `Params`), the registry of
every kind, `register`, which adds one, and the lookups.

A kind is its params model (what a graph file may say about it), its run function, the template
values it fills, the reference implementation's name for it and how its retries read in a
summary. The built-in kinds are written in `ops.py`, each record next to its function, so adding
a kind touches one place (CONTRIBUTING.md). Everything else reads the records from here: graph
validation, the JSON Schema and drawings (`graph.py`), the executor, `solving.check_graph`, the
trace's `output_graph` (`trace.py`) and the CLI summary.

Why the records and the built-in functions are two modules: the op functions need the run
context, which needs the gateway and the run state; the graph needs only the records. An op
function sees its op through `OpView`, so nothing here imports the graph, and the built-ins
(`ops.py`) register as the engine package loads (`engine/__init__.py`), so no lookup imports them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from thoughtgraph.engine.state import OpRef
from thoughtgraph.engine.thought import Thought
from thoughtgraph.errors import GraphError, shown

if TYPE_CHECKING:
    from thoughtgraph.engine.context import RunContext


class Params(BaseModel):
    """Base of every kind's params model: unknown fields are refused, values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    def prompt_of(self) -> str | None:
        """The template an op with these params sends; None if it calls no model."""
        if "prompt" not in type(self).__pydantic_fields__:  # no failed lookup through pydantic's
            return None  # __getattr__ (a raised AttributeError): most kinds have no prompt
        prompt = getattr(self, "prompt", None)
        return prompt if isinstance(prompt, str) else None

    def grown_prompts(self) -> tuple[tuple[str, str], ...]:
        """(kind, prompt) of every op these params may grow at run time beside the op's own
        prompt (a part's merges back): checked before any call like the graph's own."""
        return ()


P = TypeVar("P", bound=Params)


class OpView(OpRef, Protocol):
    """What an op function reads of its op: id, kind, inputs and its params (`graph.Op` is one).

    A protocol, not `graph.Op`: the graph validates its ops against the records of this module,
    so this module never imports the graph.
    """

    @property
    def params(self) -> Params: ...

    def params_as(self, model: type[P]) -> P: ...


OpFunction = Callable[["RunContext", OpView, list[Thought]], Awaitable[list[Thought]]]
"""`(ctx, op, inputs) -> the thoughts the op passes on` (rounds are the thought factory's)."""

RetryNote = Callable[[OpView, int, list[Thought]], "str | None"]
"""`(op, model calls it made, its thoughts) -> a short note for the summary, or None`."""

Needs = Callable[[P], "type | None"]
"""`(op params) -> the optional task capability (a protocol of tasks/base.py) the op needs`."""

Check = Callable[[P, Any], None]
"""`(op params, problem) -> None`: raise a `ThoughtgraphError` to refuse the graph before any
call (a split into more parts than the problem has items)."""


@dataclass(frozen=True, slots=True)
class Most:
    """The most one op can do, from its params and the most thoughts it can be given: model
    calls, answers asked for (a call of `n` answers asks `n`) and thoughts passed on. What the
    graph's worst case (`worstcase.py`) adds up, op by op, before any call."""

    calls: int = 0
    answers: int = 0
    outputs: int = 1


Bound = Callable[[P, int], Most]
"""`(op params, the most input thoughts) -> the most the op does (`Most`)`."""


@dataclass(frozen=True)
class OpKind(Generic[P]):
    """One op kind.

    `fills` names the template values the op supplies (a graph whose prompt needs others is
    refused before any call); `needs` and `check` refuse, before any call, a graph the task or
    the problem cannot run. `makes_answers` is False when the model thoughts the op makes are
    not answers to the problem (a model's split), so a run stopped early never returns one.
    `plumbing` kinds (select) only route thoughts and are left out of one-line summaries.
    `in_place` kinds work in code and never wait (select, keep_best): the scheduler runs them
    where it stands instead of as an asyncio task of their own, which costs more than they do;
    `in_place_when` says it of an op by its params (a score op scoring in code never waits, one
    asking the model does).
    `needs` and `check` receive the op's validated params, an instance of `params`. `most`
    bounds what an op does from its params alone (`Most`); a kind without it leaves the graph's
    worst case unknown.
    """

    name: str
    params: type[P]
    run: OpFunction
    fills: frozenset[str] = frozenset()
    reference_name: str = ""  # the reference implementation's OperationType (default: name)
    retries: RetryNote | None = None
    needs: Needs[P] | None = None
    check: Check[P] | None = None
    makes_answers: bool = True
    plumbing: bool = False
    in_place: bool = False
    in_place_when: Callable[[P], bool] | None = None
    most: Bound[P] | None = None

    def __post_init__(self) -> None:
        if not self.reference_name:
            object.__setattr__(self, "reference_name", self.name)

    def retry_note(self, op: OpView, calls: int, thoughts: list[Thought]) -> str | None:
        return self.retries(op, calls, thoughts) if self.retries is not None else None

    def capability(self, params: Params) -> type | None:
        """The task capability an op of this kind with these params needs, if any."""
        return self.needs(self._own(params)) if self.needs is not None else None

    def runs_in_place(self, params: Params) -> bool:
        """Does an op of this kind with these params run where the scheduler stands?"""
        if self.in_place_when is not None:
            return self.in_place or self.in_place_when(self._own(params))
        return self.in_place

    def check_problem(self, params: Params, problem: object) -> None:
        if self.check is not None:
            self.check(self._own(params), problem)

    def bound(self, params: Params, inputs: int) -> Most | None:
        """The most an op of this kind with these params does given `inputs` thoughts; None
        when the kind does not say."""
        return self.most(self._own(params), inputs) if self.most is not None else None

    def _own(self, params: Params) -> P:
        if not isinstance(params, self.params):
            raise TypeError(f"{self.name} takes {self.params.__name__}, not {type(params)}")
        return params


KINDS: dict[str, OpKind[Any]] = {}
"""Every registered kind by name; the built-ins register as `ops.py` loads (the engine package
loads it first: `engine/__init__.py`)."""


def register(kind: OpKind[P]) -> OpKind[P]:
    """Add a kind; a second, different kind under a taken name is a programming error."""
    known = KINDS.get(kind.name)
    if known is not None and known is not kind:
        raise ValueError(f"op kind {kind.name!r} is already registered")
    KINDS[kind.name] = kind
    return kind


def all_kinds() -> Mapping[str, OpKind[Any]]:
    """Every registered kind by name, the built-ins first (read-only)."""
    return MappingProxyType(KINDS)


def get(name: str) -> OpKind[Any]:
    """The kind of that name; an unknown name is one `GraphError` line listing the known."""
    kind = KINDS.get(name)  # looked up for every op run: no read-only view built for it
    if kind is None:
        raise GraphError(f"unknown op kind {shown(name)} (known: {', '.join(KINDS)})")
    return kind
