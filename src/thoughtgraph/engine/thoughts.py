"""The thought factory: turns model answers (and code results) into scored thoughts.

It asks through the call gateway (`gateway.py`), parses and scores each answer in code, records
the thought in the run state and works out its round: the model rounds on the critical path
before it. An op starts in the round its latest input op ended in; its k-th sequential attempt
(a regeneration, a refine pass) ends k rounds later, and a code thought sits in the round of the
latest parent its own op made (else in the op's start round). The ops never pass rounds around,
so a thought's round depends only on the graph and on which attempts were made, never on the
order in which calls complete.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from thoughtgraph.engine.gateway import CallGateway
from thoughtgraph.engine.state import OpRef, RunState
from thoughtgraph.engine.thought import Thought
from thoughtgraph.errors import ModelError
from thoughtgraph.events import ThoughtMade
from thoughtgraph.models.reasoning import hit_cap_line
from thoughtgraph.tasks.base import BaseTask, ModelScore, ParseError, model_score
from thoughtgraph.tasks.score import Score
from thoughtgraph.tasks.scorer import scored


class ThoughtFactory:
    """Every thought an op makes is made here, so ids, scores and rounds follow one rule."""

    def __init__(self, task: BaseTask[Any, Any], state: RunState, gateway: CallGateway) -> None:
        self.task, self.state, self.gateway = task, state, gateway
        self._end_rounds: dict[str, int] = {}  # the latest model round each op reached
        self._floors: dict[str, int] = {}  # a grown op's start: after what grew it

    # --- rounds -----------------------------------------------------------------------------
    def start_round(self, op: OpRef) -> int:
        """An op starts once all its inputs are done: in the round the latest of them ended
        (an op grown at run time, once the attempts that grew it ended: `begin_after`)."""
        inputs, ops = op.inputs, self.state.ops
        if len(inputs) == 1:  # most ops: asked two or three times each
            start = ops[inputs[0]].end_round
        else:
            start = max((ops[i].end_round for i in inputs), default=0)
        return max(start, self._floors[op.id]) if self._floors and op.id in self._floors else start

    def begin_after(self, op_id: str, round_: int) -> None:
        """The op starts no earlier than `round_` (a grown split: after the last attempt of
        the part that grew it, not when that part's own op started)."""
        self._floors[op_id] = round_

    def extend_to(self, op: OpRef, round_: int) -> None:
        """The op ends no earlier than `round_` (a part waits for what it grew)."""
        self._reached(op, round_)

    def end_round(self, op: OpRef) -> int:
        """The round the op ended in: its start, or its latest model round."""
        return max(self.start_round(op), self._end_rounds.get(op.id, 0))

    def _reached(self, op: OpRef, round_: int) -> None:
        self._end_rounds[op.id] = max(self._end_rounds.get(op.id, 0), round_)

    # --- thoughts from the model ------------------------------------------------------------
    async def model_thoughts(
        self,
        op: OpRef,
        *,
        call_id: str,
        thought_ids: Sequence[str],
        kind: str,
        prompt: str | Callable[[], str],
        problem: object,
        parents: Sequence[Thought],
        previous: Thought | None = None,
        attempt: int = 1,
    ) -> list[Thought]:
        """One request for len(thought_ids) answers; each is parsed and scored in code.

        A failed call or a missing answer becomes a scored failure, never an exception (budget
        caps aside), so an op's retry logic can decide what to do next. `attempt` is the op's
        sequential attempt at this item: the answers end that many rounds after the op started.
        `prompt` may be a function building it once the call has a slot (`Gateway.ask`).
        """
        built: list[str] = [prompt] if isinstance(prompt, str) else []

        def build() -> str:
            if not built:
                assert callable(prompt)
                built.append(prompt())
            return built[0]

        try:
            texts: tuple[str, ...] = await self.gateway.ask(
                op, call_id, kind, prompt if built else build, len(thought_ids)
            )
            # read only for a missing answer: worked out when one is missing
            failure = "" if len(texts) >= len(thought_ids) else self._shortfall(call_id)
        except ModelError as exc:
            texts, failure = (), f"the model call failed: {exc}"
        round_ = self.start_round(op) + attempt
        if thought_ids:  # every answer of the call ends in this round
            self._reached(op, round_)
        sent = built[0] if built else ""  # never built: the call was refused before a slot
        parent_ids = tuple(p.id for p in parents)  # the same for every answer of the call
        earlier = previous.id if previous else None
        thoughts = self.state.thoughts
        made = []
        for index, thought_id in enumerate(thought_ids):
            text = texts[index] if index < len(texts) else None
            cut = self._thinking_cut(call_id) if text is not None and not text.strip() else None
            content, score, valid = self.judge(problem, None if cut else text, cut or failure, sent)
            thought = Thought(
                id=thought_id,
                op_id=op.id,
                kind=kind,
                content=content,
                text=text or "",
                problem=problem,
                parents=parent_ids,
                previous_attempt=earlier,
                attempt=attempt,
                score=score,
                valid=valid,
                prompt=sent,
                call_id=call_id,
                round=round_,
            )
            thoughts[thought_id] = thought  # a model thought: its op reached round_ (above)
            made.append(thought)
            if self.gateway.on_event is not None:
                self.gateway.emit(
                    ThoughtMade(
                        self.gateway.now(),
                        op.id,
                        thought.id,
                        kind,
                        None if score is None else score.value,
                        attempt,
                    )
                )
        return made

    async def model_thought(
        self,
        op: OpRef,
        *,
        thought_id: str,
        kind: str,
        prompt: str | Callable[[], str],
        problem: object,
        parents: Sequence[Thought],
        previous: Thought | None = None,
        attempt: int = 1,
    ) -> Thought:
        """One request for one answer; the call shares the thought's id."""
        made = await self.model_thoughts(
            op,
            call_id=thought_id,
            thought_ids=[thought_id],
            kind=kind,
            prompt=prompt,
            problem=problem,
            parents=parents,
            previous=previous,
            attempt=attempt,
        )
        return made[0]

    def model_answer(
        self,
        op: OpRef,
        *,
        call_id: str,
        kind: str,
        prompt: str,
        text: str,
        content: object,
        problem: object,
        parents: Sequence[Thought],
        score: Score,
    ) -> Thought:
        """A first-attempt answer the op parsed itself (a model's split), scored by the op."""
        thought = Thought(
            id=call_id,
            op_id=op.id,
            kind=kind,
            content=content,
            text=text,
            problem=problem,
            parents=tuple(p.id for p in parents),
            score=score,
            valid=score.perfect,
            prompt=prompt,
            call_id=call_id,
            round=self.start_round(op) + 1,
        )
        return self._made(op, thought)

    async def model_scored(
        self, op: OpRef, thought: Thought, *, call_id: str, kind: str, prompt: str, samples: int
    ) -> Thought:
        """The thought re-scored by the model (`samples` answers averaged); a failed call leaves
        it the worst score. One round after the op started."""
        try:
            texts = await self.gateway.ask(op, call_id, kind, prompt, samples)
        except ModelError:
            texts = ()
        score = model_score(cast(ModelScore, self.task), texts)
        self._reached(op, self.start_round(op) + 1)
        return self.state.add(thought.with_score(score))

    def _thinking_cut(self, call_id: str) -> str | None:
        """Why an answer is empty when the completion cap cut the model's thinking: the one
        line that says so (`models.reasoning.hit_cap_line`); None otherwise."""
        call = self.state.calls.get(call_id)
        caps = [a.get("thinking_cut") for a in call.attempts] if call else []
        caps.append(call.thinking_cut if call else None)  # an answer the cache replayed
        cap = max((c for c in caps if isinstance(c, int)), default=None)
        return None if cap is None else hit_cap_line(cap)

    def _shortfall(self, call_id: str) -> str:
        """Why a call gave fewer answers than asked: the last of its requests that failed."""
        call = self.state.calls.get(call_id)
        errors = [a.get("error") for a in call.attempts if a.get("error")] if call else []
        reason = f": {errors[-1]}" if errors else ""
        return f"the model gave fewer answers than asked for{reason}"

    def judge(
        self, problem: object, text: str | None, failure: str, prompt: str = ""
    ) -> tuple[object, Score | None, bool]:
        """Parse and score one answer in code: (content, score, valid)."""
        if text is None:
            return None, self.task.score_unparsed(problem, failure), False
        try:
            content = self.task.parse_reply(text, problem, prompt)
        except ParseError as exc:
            return None, self.task.score_unparsed(problem, str(exc)), False
        except (ValueError, TypeError, OverflowError, RecursionError) as exc:
            # a parser that chokes on a degenerate answer must not lose the run's paid work
            reason = f"the answer could not be parsed ({type(exc).__name__}: {str(exc)[:200]})"
            return None, self.task.score_unparsed(problem, reason), False
        return content, scored(self.task, problem, content), True

    def _made(self, op: OpRef, thought: Thought) -> Thought:
        """Record a model-made thought; it moves its op's end round."""
        self._reached(op, thought.round)
        return self.state.add(thought)

    # --- thoughts from code -----------------------------------------------------------------
    def code_thought(
        self,
        op: OpRef,
        thought_id: str,
        content: object,
        problem: object,
        parents: Sequence[Thought],
    ) -> Thought:
        """A thought made in code (a part of a split, inputs joined): no round of its own."""
        own = [p.round for p in parents if p.op_id == op.id]
        thought = Thought(
            id=thought_id,
            op_id=op.id,
            kind=op.kind,
            content=content,
            text=_display(self.task, content),
            problem=problem,
            parents=tuple(p.id for p in parents),
            round=max(own, default=self.start_round(op)),
        )
        return self.state.add(thought)

    def rescore(self, thought: Thought, force: bool = False) -> Thought:
        """Score a thought in code (kept as is when already scored, unless `force`)."""
        if thought.score is not None and not force:
            return thought
        if thought.content is None:
            score: Score | None = self.task.score_unparsed(thought.problem, "no content to score")
        else:
            score = scored(self.task, thought.problem, thought.content)
        return self.state.add(thought.with_score(score))


def _display(task: BaseTask[Any, Any], content: object) -> str:
    """A code thought's text, for traces and the viewer (prompts render its content anew):
    the task's `brief`. A set-intersection part carries the whole first set, and 6,250 parts
    each holding its full text made splitting 50,000 + 50,000 numbers quadratic in memory
    before the first request."""
    return str(task.brief(content))
