"""What an op sees while it runs: the task, the model, the run state and the call accounting."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import BudgetExhausted, ModelError
from .events import Event, EventHandler
from .graph import Op
from .models.base import LanguageModel
from .state import Call, RunState, Score, Thought, Usage
from .tasks.base import ParseError, Task

logger = logging.getLogger("thoughtgraph")


@dataclass
class RunContext:
    task: Task
    problem: Any
    model: LanguageModel
    state: RunState
    concurrency: int = 16
    max_calls: int | None = None
    on_event: EventHandler | None = None
    started: float = field(default_factory=time.perf_counter)
    calls_started: int = 0
    stop_reason: str | None = None
    op_rounds: dict[str, int] = field(default_factory=dict)  # latest model round per op
    _semaphore: asyncio.Semaphore | None = None

    def __post_init__(self) -> None:
        self._semaphore = asyncio.Semaphore(self.concurrency)

    def now(self) -> float:
        return time.perf_counter() - self.started

    def emit(self, event: str, op_id: str | None = None, **data: Any) -> None:
        if self.on_event is not None:
            self.on_event(Event(event, self.now(), op_id, data))

    # --- model calls -----------------------------------------------------------------------
    async def ask(self, op: Op, call_id: str, kind: str, prompt: str) -> str:
        """One model call, recorded in the state before its answer is used.

        Raises `BudgetExhausted` before the call when a cap forbids it, `ModelError` when the
        call failed in a way the op may retry.
        """
        if self.max_calls is not None and self.calls_started >= self.max_calls:
            self.stop_reason = "budget exhausted"
            raise BudgetExhausted(f"max_calls={self.max_calls} reached")
        self.calls_started += 1
        assert self._semaphore is not None
        async with self._semaphore:
            started = self.now()
            self.emit("call_started", op.id, call_id=call_id, kind=kind)
            try:
                completions = await self.model.complete(prompt)
                if not completions:
                    raise ModelError("the model returned no answer")
            except ModelError as exc:
                self._record(Call(call_id, op.id, kind, prompt, (), started, self.now(), error=str(exc)))
                raise
            usage = Usage(
                sum(c.usage.prompt_tokens for c in completions[:1]),
                sum(c.usage.completion_tokens for c in completions),
            )
            texts = tuple(c.text for c in completions)
            self._record(Call(call_id, op.id, kind, prompt, texts, started, self.now(), usage))
            return texts[0]

    def _record(self, call: Call) -> None:
        self.state.calls[call.id] = call
        self.emit(
            "call_finished",
            call.op_id,
            call_id=call.id,
            kind=call.kind,
            latency=call.latency,
            error=call.error,
            tokens=call.usage.total_tokens,
        )

    async def model_thought(
        self,
        op: Op,
        *,
        thought_id: str,
        kind: str,
        prompt: str,
        problem: Any,
        parents: Sequence[Thought],
        previous: Thought | None,
        attempt: int,
        base_round: int,
    ) -> Thought:
        """Ask the model, parse and score its answer in code: always returns a scored thought."""
        valid = True
        try:
            text = await self.ask(op, thought_id, kind, prompt)
        except ModelError as exc:
            text, content, valid = "", None, False
            score = self.task.score_unparsed(problem, f"the model call failed: {exc}")
        else:
            try:
                content = self.task.parse(text)
            except ParseError as exc:
                content, valid = None, False
                score = self.task.score_unparsed(problem, str(exc))
            else:
                score = self.task.score(problem, content)
        thought = Thought(
            id=thought_id,
            op_id=op.id,
            kind=kind,
            content=content,
            text=text,
            problem=problem,
            parents=tuple(p.id for p in parents),
            previous_attempt=previous.id if previous else None,
            attempt=attempt,
            score=score,
            valid=valid,
            prompt=prompt,
            call_id=thought_id,
            round=(previous.round if previous else base_round) + 1,
        )
        self.state.add(thought)
        self.op_rounds[op.id] = max(self.op_rounds.get(op.id, 0), thought.round)
        self.emit("thought", op.id, thought_id=thought.id, kind=kind, score=score.value, attempt=attempt)
        return thought

    def code_thought(self, op: Op, thought_id: str, content: Any, problem: Any,
                     parents: Sequence[Thought], base_round: int) -> Thought:
        thought = Thought(
            id=thought_id,
            op_id=op.id,
            kind=op.kind,
            content=content,
            text=self.task.render(content),
            problem=problem,
            parents=tuple(p.id for p in parents),
            round=base_round,
        )
        return self.state.add(thought)

    def rescore(self, thought: Thought) -> Thought:
        if thought.score is not None:
            return thought
        if thought.content is None:
            score: Score = self.task.score_unparsed(thought.problem, "no content to score")
        else:
            score = self.task.score(thought.problem, thought.content)
        return self.state.add(thought.with_score(score))
