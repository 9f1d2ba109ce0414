"""What one kind of op is (`OpKind`, its params base `Params`) and `register`, which adds one.

Why apart from the registry's lookups (`kinds.py`): the built-in kinds (`ops.py`) register here
as they load, and the lookups load them on first use; kept in one module, the lookups and the
built-ins would import each other. Users write `kinds.register(kinds.OpKind(...))`: `kinds`
re-exports these names.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from thoughtgraph.engine.context import RunContext
    from thoughtgraph.engine.graph import Op
    from thoughtgraph.engine.state import Thought


class Params(BaseModel):
    """Base of every kind's params model: unknown fields are refused, values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    def prompt_of(self) -> str | None:
        """The template an op with these params sends; None if it calls no model."""
        prompt = getattr(self, "prompt", None)
        return prompt if isinstance(prompt, str) else None


P = TypeVar("P", bound=Params)


OpFunction = Callable[["RunContext", "Op", list["Thought"]], Awaitable[list["Thought"]]]
"""`(ctx, op, inputs) -> the thoughts the op passes on` (rounds are the thought factory's)."""

RetryNote = Callable[["Op", int, list["Thought"]], "str | None"]
"""`(op, model calls it made, its thoughts) -> a short note for the summary, or None`."""

Needs = Callable[[P], "type | None"]
"""`(op params) -> the optional task capability (a protocol of tasks/base.py) the op needs`."""

Check = Callable[[P, Any], None]
"""`(op params, problem) -> None`: raise a `ThoughtgraphError` to refuse the graph before any
call (a split into more parts than the problem has items)."""


@dataclass(frozen=True)
class OpKind(Generic[P]):
    """One op kind.

    `fills` names the template values the op supplies (a graph whose prompt needs others is
    refused before any call); `needs` and `check` refuse, before any call, a graph the task or
    the problem cannot run. `makes_answers` is False when the model thoughts the op makes are
    not answers to the problem (a model's split), so a run stopped early never returns one.
    `plumbing` kinds (select) only route thoughts and are left out of one-line summaries.
    `in_place` kinds work in code and never wait (select, keep_best): the scheduler runs them
    where it stands instead of as an asyncio task of their own, which costs more than they do.
    `needs` and `check` receive the op's validated params, an instance of `params`.
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

    def __post_init__(self) -> None:
        if not self.reference_name:
            object.__setattr__(self, "reference_name", self.name)

    def retry_note(self, op: Op, calls: int, thoughts: list[Thought]) -> str | None:
        return self.retries(op, calls, thoughts) if self.retries is not None else None

    def capability(self, params: Params) -> type | None:
        """The task capability an op of this kind with these params needs, if any."""
        return self.needs(self._own(params)) if self.needs is not None else None

    def check_problem(self, params: Params, problem: Any) -> None:
        if self.check is not None:
            self.check(self._own(params), problem)

    def _own(self, params: Params) -> P:
        if not isinstance(params, self.params):
            raise TypeError(f"{self.name} takes {self.params.__name__}, not {type(params)}")
        return params


KINDS: dict[str, OpKind[Any]] = {}
"""Every registered kind by name (read it through `kinds.all_kinds`, which loads the built-ins)."""


def register(kind: OpKind[P]) -> OpKind[P]:
    """Add a kind; a second, different kind under a taken name is a programming error."""
    known = KINDS.get(kind.name)
    if known is not None and known is not kind:
        raise ValueError(f"op kind {kind.name!r} is already registered")
    KINDS[kind.name] = kind
    return kind
