"""The run vocabulary: why a run stopped (`StopReason`), how far an op got (`OpStatus`) and what
a run reports as it goes (events).

Why typed records rather than `(kind: str, data: dict)`: a consumer (the live view, the events
file, OpenTelemetry spans, a test) dispatches on the record's type, so a misspelt event or field
is a type error, not a branch that silently never runs. Each record is a small frozen dataclass;
`Event` is their union. `name` (a class constant) is the event's name in the events file
(`io/eventlog.py`), whose JSON form is unchanged: `{"event": name, "time": ..., "op_id": ...,
**the other fields}`. `time` is seconds since the run started.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar


class StopReason(StrEnum):
    """Why a run stopped early: the one place these words are written (a str, so the JSON forms
    of results, traces and events carry the same words as before)."""

    BUDGET = "budget exhausted"  # a cap (requests, tokens, cost) forbade the next request
    FATAL = "fatal model error"  # the model refused for good (a rejected key, unreachable)
    INTERRUPTED = "interrupted"  # cancelled mid-way (Ctrl-C)


class OpStatus(StrEnum):
    """How far one op of a run got: the words of a trace's `ops[].status` and of `op_finished`
    (a str, so those files keep them)."""

    PENDING = "pending"  # its inputs are not done yet (or the run stopped first)
    RUNNING = "running"
    DONE = "done"
    STOPPED = "stopped"  # a budget cap or a fatal model error stopped it
    FAILED = "failed"  # it raised


@dataclass(frozen=True, slots=True)
class RunStarted:
    time: float
    graph: dict[str, Any]  # the graph's JSON form
    model: str  # the model's display name
    name: ClassVar[str] = "run_started"
    op_id: ClassVar[None] = None


@dataclass(frozen=True, slots=True)
class OpStarted:
    time: float
    op_id: str
    kind: str  # the op's kind
    name: ClassVar[str] = "op_started"


@dataclass(frozen=True, slots=True)
class CallStarted:
    time: float
    op_id: str
    call_id: str
    kind: str  # the call's kind (generate, score, ...)
    n: int  # completions asked for
    model: str = ""  # the label of the model it goes to (engine/routes.py)
    name: ClassVar[str] = "call_started"


@dataclass(frozen=True, slots=True)
class CallFinished:
    time: float
    op_id: str
    call_id: str
    kind: str
    latency: float
    error: str | None
    tokens: int
    prompt_tokens: int
    completion_tokens: int
    cached: bool
    cost: float
    requests: int  # HTTP requests it sent (0: answered from the cache)
    answers: int  # completions that arrived
    model: str = ""  # the label of the model that answered (engine/routes.py)
    name: ClassVar[str] = "call_finished"


@dataclass(frozen=True, slots=True)
class ThoughtMade:
    time: float
    op_id: str
    thought_id: str
    kind: str  # the thought's kind
    score: float | None
    attempt: int
    name: ClassVar[str] = "thought"


@dataclass(frozen=True, slots=True)
class OpFinished:
    time: float
    op_id: str
    kind: str
    status: OpStatus  # done, stopped or failed
    name: ClassVar[str] = "op_finished"


@dataclass(frozen=True, slots=True)
class RunFinished:
    time: float
    calls: int
    stop_reason: StopReason | None
    cost: float
    name: ClassVar[str] = "run_finished"
    op_id: ClassVar[None] = None


Event = RunStarted | OpStarted | CallStarted | CallFinished | ThoughtMade | OpFinished | RunFinished
EVENT_TYPES: tuple[type[Event], ...] = (
    RunStarted,
    OpStarted,
    CallStarted,
    CallFinished,
    ThoughtMade,
    OpFinished,
    RunFinished,
)
EventHandler = Callable[[Event], None]
