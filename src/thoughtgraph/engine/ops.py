"""The built-in op kinds, each in one place: its params model, its async function
`(ctx, op, inputs) -> output thoughts` and its `OpKind` record (`kinds.py`).

Bounded loops (regenerate, merge again, refine, validate-and-improve) live inside one op, capped
by its params, so the graph itself stays a static DAG. Every attempt is recorded in the run
state; only what the op passes on reaches the next op.
"""

from __future__ import annotations

import asyncio
import functools
import math
import string
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from thoughtgraph.engine.growth import GrowParams, most_per_item, regrow
from thoughtgraph.engine.kinds import Most, OpKind, OpView, Params, register
from thoughtgraph.engine.thought import Thought
from thoughtgraph.errors import GraphError, ModelError
from thoughtgraph.tasks.base import (
    HasReference,
    JoinsAnswers,
    ModelScore,
    ModelSplit,
    ParseError,
    Validates,
    check_parts,
    model_split,
)
from thoughtgraph.tasks.reference import expected
from thoughtgraph.tasks.score import Score

if TYPE_CHECKING:  # typing only: the context is built by the executor, above this module
    from thoughtgraph.engine.context import RunContext

_T = TypeVar("_T")


def _error_value(thought: Thought) -> float:
    return math.inf if thought.score is None else thought.score.value


def _best(thoughts: list[Thought]) -> Thought:
    """Lowest error; the earliest attempt wins a tie (fewer changes, deterministic)."""
    if len(thoughts) == 1:  # most items: answered right the first time
        return thoughts[0]
    return min(thoughts, key=lambda t: (_error_value(t), t.attempt))


def _shown(ctx: RunContext, thought: Thought) -> str:
    """How a thought appears inside a prompt: its parsed content, or its raw text if unparsed."""
    return thought.text if thought.content is None else ctx.task.render(thought.content)


def _errors(thought: Thought | None) -> str:
    return "; ".join(thought.score.errors) if thought and thought.score else ""


_ONE_THOUGHT = frozenset(
    {
        "task",
        "format",
        "part",
        "input",
        "current",
        "result",
        "original",
        "length",
        "errors",
        "previous_errors",
    }
)
"""The template values `_values` fills about one thought (generate, refine, score, ...)."""


def _values(
    ctx: RunContext, thought: Thought, needed: frozenset[str] | None = None, **extra: object
) -> dict[str, object]:
    """Every value a template may use about one thought (templates take what they need);
    given `needed` (the template's variables), `original`, the thought's whole problem
    rendered, only when the template shows it."""
    problem = thought.problem
    shown = _shown(ctx, thought)  # one rendering, under the names the templates use
    values: dict[str, object] = {
        "task": ctx.task.describe(ctx.problem),
        "format": ctx.task.format(),
        "part": shown,
        "input": shown,
        "current": shown,
        "result": shown,
        "length": len(problem) if hasattr(problem, "__len__") else "",
        "errors": _errors(thought),
        "previous_errors": "",
    }
    if needed is None or "original" in needed:
        values["original"] = ctx.task.render(problem) if problem is not None else ""
    return values | extra


def _prompt(ctx: RunContext, name: str, thought: Thought, **extra: object) -> str:
    """Template `name` rendered about one thought (`_values`, those it uses)."""
    return ctx.render(name, **_values(ctx, thought, ctx.variables(name), **extra))


def _discard(ctx: RunContext, attempts: list[Thought], kept: Thought) -> None:
    for attempt in attempts:
        if attempt.id != kept.id:
            ctx.state.add(replace(ctx.state.thoughts[attempt.id], kept=False))


async def _attempts(
    ctx: RunContext,
    op: OpView,
    *,
    item: int,
    kind: str,
    tries: int,
    bar: float,
    problem: object,
    parents: list[Thought],
    make_prompt: Callable[[Thought | None], str],
) -> tuple[Thought, Thought]:
    """Ask up to `tries` times while the answer's error count is above `bar`: (the best, kept;
    the last, whose round growth starts after)."""
    attempts: list[Thought] = []
    previous: Thought | None = None
    for attempt in range(1, tries + 1):
        previous = await ctx.thoughts.model_thought(
            op,
            thought_id=f"{op.id}:{item}.{attempt}",
            kind=kind,
            prompt=functools.partial(make_prompt, previous),  # built once the call has a slot
            problem=problem,
            parents=parents,
            previous=previous,
            attempt=attempt,
        )
        attempts.append(previous)
        if _error_value(previous) <= bar:
            break
    best = _best(attempts)
    _discard(ctx, attempts, best)
    return ctx.state.thoughts[best.id], attempts[-1]


async def _together(jobs: list[Coroutine[Any, Any, _T]]) -> list[_T]:
    """Run the jobs concurrently, results in order. A single job is awaited where it stands:
    `gather` would wrap it in a task of its own (a generate op of the `got` graph has one
    input, and 3,333 of them in a 10,000-op graph)."""
    if len(jobs) == 1:
        return [await jobs[0]]
    return list(await asyncio.gather(*jobs))


async def _branches(
    ctx: RunContext,
    op: OpView,
    *,
    item: int,
    kind: str,
    prompt: str,
    problem: object,
    parents: list[Thought],
) -> list[Thought]:
    """`repeat` concurrent requests of `n` answers each; every answer is passed on."""
    params = op.params_as(BranchParams)
    n, repeat = params.n, params.repeat
    if n * repeat == 1:
        return [
            await ctx.thoughts.model_thought(
                op,
                thought_id=f"{op.id}:{item}.1",
                kind=kind,
                prompt=prompt,
                problem=problem,
                parents=parents,
            )
        ]
    requests = [
        ctx.thoughts.model_thoughts(
            op,
            call_id=f"{op.id}:{item}.r{r}",
            thought_ids=[f"{op.id}:{item}.r{r}.{c}" for c in range(1, n + 1)],
            kind=kind,
            prompt=prompt,
            problem=problem,
            parents=parents,
        )
        for r in range(1, repeat + 1)
    ]
    return [t for batch in await _together(requests) for t in batch]


class SplitParams(Params):
    """Cut the problem into `parts` sub-problems: in code (`Task.split`) or by the model.

    `by="model"` asks the task's `split` prompt (one request) and parses the parts from the
    answer, as the paper's GoT configuration does; if the answer cannot be used, the code split
    stands in and the split thought records the error.
    """

    parts: int = Field(ge=1, le=1_000_000)
    by: Literal["code", "model"] = "code"
    prompt: str = "split"

    def prompt_of(self) -> str | None:
        return None if self.by == "code" else self.prompt


async def split(ctx: RunContext, op: OpView, inputs: list[Thought]) -> list[Thought]:
    params = op.params_as(SplitParams)
    parts = params.parts
    out = []
    for item, source in enumerate(inputs):
        chunks = None
        parent = source
        if params.by == "model":
            parent, chunks = await _model_split(ctx, op, item, source, parts)
        if chunks is None:
            chunks = ctx.task.split(source.content, parts)
        prefix = f"{op.id}:{item}." if len(inputs) > 1 else f"{op.id}:"
        for index, chunk in enumerate(chunks):
            out.append(ctx.thoughts.code_thought(op, f"{prefix}{index}", chunk, chunk, [parent]))
    return out


async def _model_split(
    ctx: RunContext, op: OpView, item: int, source: Thought, parts: int
) -> tuple[Thought, list[Any] | None]:
    """Ask the model to split; its parts stand only if there are exactly `parts` of them."""
    name = op.params_as(SplitParams).prompt
    length = len(source.content) // parts if hasattr(source.content, "__len__") else ""
    prompt = _prompt(ctx, name, source, parts=parts, length=length)
    call_id = f"{op.id}:{item}.answer"
    texts: tuple[str, ...] = ()
    error = None
    try:
        texts = await ctx.gateway.ask(op, call_id, name, prompt)
        chunks = model_split(cast(ModelSplit[Any], ctx.task), source.content, texts[0], parts)
    except (ModelError, ParseError) as exc:  # an unusable answer: the code split stands in
        chunks, error = None, f"the model's split could not be used ({exc}); split in code"
    answer = ctx.thoughts.model_answer(
        op,
        call_id=call_id,
        kind=name,
        prompt=prompt,
        text=texts[0] if texts else "",
        content=chunks,
        problem=source.problem,
        parents=[source],
        score=Score(0.0) if error is None else Score(1.0, (error,)),
    )
    return answer, chunks


SPLIT = register(
    OpKind(
        "split",
        SplitParams,
        split,
        _ONE_THOUGHT | {"parts"},
        reference_name="generate",
        needs=lambda params: ModelSplit if params.by == "model" else None,
        check=lambda params, problem: check_parts(params.parts, len(problem)),
        makes_answers=False,
        most=lambda p, k: Most(k * (p.by == "model"), k * (p.by == "model"), k * p.parts),
    )
)


class SelectParams(Params):
    """Pass on only the input thought at position `index` (0-based): a code selector."""

    index: int = Field(ge=0)


async def select(ctx: RunContext, op: OpView, inputs: list[Thought]) -> list[Thought]:
    index = op.params_as(SelectParams).index
    if index >= len(inputs):
        raise GraphError(f"op {op.id!r} selects thought {index} but its inputs hold {len(inputs)}")
    return [inputs[index]]


SELECT = register(
    OpKind(
        "select",
        SelectParams,
        select,
        reference_name="selector",
        plumbing=True,
        in_place=True,
        most=lambda _p, k: Most(outputs=min(k, 1)),
    )
)


class BranchParams(Params):
    """What the ops that branch share (generate, aggregate): `repeat` requests of `n` answers
    each, for the template `prompt`."""

    prompt: str = "part"
    n: int = Field(default=1, ge=1, le=1000)
    repeat: int = Field(default=1, ge=1, le=1000)


class GenerateParams(BranchParams):
    """Model answers for every input thought: `repeat` requests of `n` completions each.

    With `max_regenerations` > 0 (only for one answer per input: n = repeat = 1), an answer whose
    error count is above `bar` is asked for again with its errors in `previous_errors`, and the
    best attempt is passed on. Otherwise every answer is passed on (follow with `keep_best`).
    With `grow` (also only for n = repeat = 1), a best attempt still above `bar` grows: its
    sub-problem is split again in code and solved finer (`GrowParams`), the result passed on
    only if it scores better. Growth is opt-in: without `grow` nothing is ever added.
    """

    max_regenerations: int = Field(default=0, ge=0, le=100)
    bar: float = Field(default=0, ge=0)
    grow: GrowParams | None = None

    @model_validator(mode="after")
    def _regenerate_one(self) -> GenerateParams:
        if self.max_regenerations and self.n * self.repeat > 1:
            raise ValueError(
                "max_regenerations needs n = repeat = 1 (use keep_best after branches)"
            )
        if self.grow is not None and self.n * self.repeat > 1:
            raise ValueError("grow needs n = repeat = 1 (one answer per part to judge)")
        return self

    def grown_prompts(self) -> tuple[tuple[str, str], ...]:
        return () if self.grow is None else (("aggregate", self.grow.merge_prompt),)

    @model_serializer(mode="wrap")
    def _no_growth_written(self, write: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A part that does not grow is written as it always was (no `grow: null`), so the
        graphs, traces and eval fingerprints of every graph without growth stay the same."""
        data: dict[str, Any] = write(self)
        if self.grow is None:
            data.pop("grow", None)
        return data


async def generate(ctx: RunContext, op: OpView, inputs: list[Thought]) -> list[Thought]:
    """Answers for every input thought, concurrently: branches, or the spec's Part with retries."""
    params = op.params_as(GenerateParams)
    name = params.prompt

    async def one(item: int, source: Thought) -> list[Thought]:
        if params.max_regenerations or params.grow is not None:

            def prompt(previous: Thought | None) -> str:
                return _prompt(ctx, name, source, previous_errors=_errors(previous))

            best, last = await _attempts(
                ctx,
                op,
                item=item,
                kind=name,
                tries=params.max_regenerations + 1,
                bar=params.bar,
                problem=source.problem,
                parents=[source],
                make_prompt=prompt,
            )
            if params.grow is not None and _error_value(best) > params.bar:
                grown = await regrow(ctx, op, item, source, best, last.round, params.grow)
                return [grown or best]
            return [best]
        return await _branches(
            ctx,
            op,
            item=item,
            kind=name,
            prompt=_prompt(ctx, name, source),
            problem=source.problem,
            parents=[source],
        )

    batches = await _together([one(i, t) for i, t in enumerate(inputs)])
    return [t for batch in batches for t in batch]


def _regenerations(op: OpView, calls: int, _thoughts: list[Thought]) -> str | None:
    return f"{op.id} regenerated {calls - 1}×" if calls > 1 and _single(op) else None


def _single(op: OpView) -> bool:
    """One answer per request: more calls are retries, not branches."""
    params = op.params_as(BranchParams)
    return params.n == 1 and params.repeat == 1


def _generate_most(params: GenerateParams, inputs: int) -> Most:
    """Every attempt at every item, and everything a failing item may grow (`growth.py`)."""
    if params.max_regenerations or params.grow is not None:
        calls = inputs * most_per_item(params.max_regenerations + 1, params.grow)
        return Most(calls, calls, inputs)
    calls = inputs * params.repeat
    return Most(calls, calls * params.n, calls * params.n)


GENERATE = register(
    OpKind(
        "generate",
        GenerateParams,
        generate,
        _ONE_THOUGHT,
        retries=_regenerations,
        most=_generate_most,
    )
)


class AggregateParams(BranchParams):
    """Merge all input thoughts into one answer: `repeat` requests of `n` completions each.

    With `max_extra_merges` > 0 (only for n = repeat = 1) a merge with errors is asked for again
    and the best one is passed on; otherwise every answer is passed on.
    """

    prompt: str = "merge"
    max_extra_merges: int = Field(default=0, ge=0, le=100)

    @model_validator(mode="after")
    def _retry_one(self) -> AggregateParams:
        if self.max_extra_merges and self.n * self.repeat > 1:
            raise ValueError("max_extra_merges needs n = repeat = 1 (use keep_best after branches)")
        return self


async def aggregate(ctx: RunContext, op: OpView, inputs: list[Thought]) -> list[Thought]:
    """The spec's Merge: all inputs into one answer; merged again while it has errors."""
    if len(inputs) < 2:
        raise GraphError(f"op {op.id!r} merges {len(inputs)} thought(s); it needs at least 2")
    params = op.params_as(AggregateParams)
    name = params.prompt
    shown = [_shown(ctx, t) for t in inputs]
    problem = ctx.task.join([t.problem for t in inputs])
    if len(inputs) > 2 and name == "merge":
        name = "merge_many"
    needed = ctx.variables(name)  # the joined problem and all results: only when shown
    values: dict[str, object] = {
        "task": ctx.task.describe(ctx.problem),
        "format": ctx.task.format(),
        "count": len(inputs),
        "result_a": shown[0],
        "result_b": shown[1],
    }
    if "original" in needed:
        values["original"] = ctx.task.render(problem)
    if "results" in needed:
        values["results"] = "\n".join(
            f"<{_tag(i)}>{text}</{_tag(i)}>" for i, text in enumerate(shown)
        )
    prompt = ctx.render(name, **values)
    if params.max_extra_merges:
        best, _last = await _attempts(
            ctx,
            op,
            item=0,
            kind="merge",
            tries=params.max_extra_merges + 1,
            bar=0,
            problem=problem,
            parents=inputs,
            make_prompt=lambda _previous: prompt,
        )
        merged = [best]
    else:
        merged = await _branches(
            ctx,
            op,
            item=0,
            kind="merge" if name == "merge_many" else name,
            prompt=prompt,
            problem=problem,
            parents=inputs,
        )
    if any(t.content is not None for t in merged):
        return merged
    joined = _joined_in_code(ctx, op, inputs, problem)
    return merged if joined is None else [joined]


def _joined_in_code(
    ctx: RunContext, op: OpView, inputs: list[Thought], problem: object
) -> Thought | None:
    """Every merge attempt failed: rather than pass on an empty answer (and lose the parts),
    pass on the inputs joined in code, scored as an answer to the merge's problem, so its
    errors (e.g. a concatenation that is not sorted) lead the next op. Inputs with no content
    are left out; None when none has any, or the task cannot join its answers."""
    usable = [t for t in inputs if t.content is not None]
    if not usable:
        return None
    contents = [t.content for t in usable]
    task = ctx.task
    try:
        content = (
            task.join_answers(contents)
            if isinstance(task, JoinsAnswers)
            else _concatenated(contents)
        )
    except (TypeError, ValueError):
        content = None
    if content is None:
        return None
    thought = ctx.thoughts.code_thought(op, f"{op.id}:0.joined", content, problem, usable)
    return ctx.thoughts.rescore(thought)


def _concatenated(contents: list[Any]) -> Any:
    """Answers that are sequences of one type, end to end (lists, tuples, texts); else None."""
    kind = type(contents[0])
    if not issubclass(kind, list | tuple | str) or any(type(c) is not kind for c in contents):
        return None
    if kind is str:
        return "\n\n".join(contents)
    joined = contents[0][:0]
    for content in contents:
        joined = joined + content
    return joined


def _tag(index: int) -> str:
    letters = string.ascii_lowercase
    return letters[index % 26] + (str(index // 26) if index >= 26 else "")


def _merges(op: OpView, calls: int, _thoughts: list[Thought]) -> str | None:
    return f"{op.id} merged again {calls - 1}×" if calls > 1 and _single(op) else None


_MERGE_VALUES = frozenset(
    {"task", "format", "original", "count", "result_a", "result_b", "results"}
)


def _aggregate_most(params: AggregateParams, _inputs: int) -> Most:
    """All inputs go into one merge: its attempts, or its requests of `n` answers."""
    if params.max_extra_merges:
        return Most(params.max_extra_merges + 1, params.max_extra_merges + 1, 1)
    return Most(params.repeat, params.repeat * params.n, params.repeat * params.n)


AGGREGATE = register(
    OpKind(
        "aggregate",
        AggregateParams,
        aggregate,
        _MERGE_VALUES,
        retries=_merges,
        most=_aggregate_most,
    )
)


class RefineParams(Params):
    """Improve: while a thought has errors, ask for a fix, at most `max_refines` passes.

    With `keep_if_better` a fix replaces the thought only if it scores strictly better.
    """

    prompt: str = "refine"
    max_refines: int = Field(default=2, ge=0, le=100)
    keep_if_better: bool = True


async def refine(ctx: RunContext, op: OpView, inputs: list[Thought]) -> list[Thought]:
    """The spec's Refine and stop rule: at most `max_refines` passes while errors remain."""
    params = op.params_as(RefineParams)
    out = []
    for item, source in enumerate(inputs):
        best = ctx.thoughts.rescore(source)
        for attempt in range(1, params.max_refines + 1):
            if best.score is None or best.score.perfect:
                break
            candidate = await ctx.thoughts.model_thought(
                op,
                thought_id=f"{op.id}:{item}.{attempt}",
                kind=params.prompt,
                prompt=_prompt(ctx, params.prompt, best),
                problem=best.problem,
                parents=[best],
                attempt=attempt,
            )
            if _error_value(candidate) < _error_value(best) or not params.keep_if_better:
                best = candidate
            else:
                ctx.state.add(replace(candidate, kept=False))
        out.append(best)
    return out


def _passes(op: OpView, calls: int, thoughts: list[Thought]) -> str | None:
    kept = sum(t.kept for t in thoughts)
    return f"{op.id}: {calls} pass{'es' if calls > 1 else ''}, {kept} kept"


REFINE = register(
    OpKind(
        "refine",
        RefineParams,
        refine,
        _ONE_THOUGHT,
        reference_name="improve",
        retries=_passes,
        most=lambda p, k: Most(k * p.max_refines, k * p.max_refines, k),
    )
)


class ValidateAndImproveParams(Params):
    """Validate each thought (`Task.validate`); while invalid, improve it, at most `tries` times.

    The last answer is passed on whether or not it is better (the paper's ValidateAndImprove).
    """

    prompt: str = "refine"
    tries: int = Field(default=3, ge=1, le=100)


async def validate_and_improve(ctx: RunContext, op: OpView, inputs: list[Thought]) -> list[Thought]:
    """Validate; while invalid, improve (at most `tries` times); pass on the last answer."""

    params = op.params_as(ValidateAndImproveParams)

    async def one(item: int, source: Thought) -> Thought:
        current = _validated(ctx, source)
        for attempt in range(1, params.tries + 1):
            if current.valid:
                break
            current = await ctx.thoughts.model_thought(
                op,
                thought_id=f"{op.id}:{item}.{attempt}",
                kind=params.prompt,
                prompt=_prompt(ctx, params.prompt, current),
                problem=current.problem,
                parents=[current],
                attempt=attempt,
            )
            current = _validated(ctx, current)
        return current

    return await _together([one(i, t) for i, t in enumerate(inputs)])


def _validated(ctx: RunContext, thought: Thought) -> Thought:
    """Mark the thought validated; a task without `validate` accepts a perfect code score."""
    if thought.content is None:
        ok = False
    elif isinstance(ctx.task, Validates):
        ok = bool(ctx.task.validate(thought.problem, thought.content))
    else:
        scored = ctx.thoughts.rescore(
            thought
        )  # recorded, so the thought keeps the score it was judged by
        ok = scored.score is not None and scored.score.perfect
    return ctx.state.add(replace(ctx.state.thoughts[thought.id], validated=True, valid=ok))


def _improvements(op: OpView, calls: int, _thoughts: list[Thought]) -> str | None:
    return f"{op.id}: {calls} improvement{'s' if calls > 1 else ''}"


VALIDATE_AND_IMPROVE = register(
    OpKind(
        "validate_and_improve",
        ValidateAndImproveParams,
        validate_and_improve,
        _ONE_THOUGHT,
        retries=_improvements,
        most=lambda p, k: Most(k * p.tries, k * p.tries, k),
    )
)


class ScoreParams(Params):
    """Score input thoughts: `scorer="code"` (`Task.score`) or `"model"`.

    The model scorer sends the task's `prompt` once with `samples` completions and averages the
    parsed scores; use it only where code cannot check. `force` re-scores scored thoughts.
    """

    scorer: Literal["code", "model"] = "code"
    samples: int = Field(default=1, ge=1, le=100)
    prompt: str = "score"
    force: bool = False

    def prompt_of(self) -> str | None:
        return None if self.scorer == "code" else self.prompt


async def score(ctx: RunContext, op: OpView, inputs: list[Thought]) -> list[Thought]:
    params = op.params_as(ScoreParams)
    if params.scorer == "code":
        return [ctx.thoughts.rescore(t, force=params.force) for t in inputs]

    async def by_model(item: int, thought: Thought) -> Thought:
        if thought.score is not None and not params.force:
            return thought
        name = params.prompt
        return await ctx.thoughts.model_scored(
            op,
            thought,
            call_id=f"{op.id}:{item}.score",
            kind=name,
            prompt=_prompt(ctx, name, thought),
            samples=params.samples,
        )

    return await _together([by_model(i, t) for i, t in enumerate(inputs)])


SCORE = register(
    OpKind(
        "score",
        ScoreParams,
        score,
        _ONE_THOUGHT,
        needs=lambda params: ModelScore if params.scorer == "model" else None,
        in_place_when=lambda params: params.scorer == "code",  # no model call: never waits
        most=lambda p, k: Most(k, k * p.samples, k) if p.scorer == "model" else Most(outputs=k),
    )
)


class KeepBestParams(Params):
    """Keep the `n` best input thoughts; ties go to the earlier input."""

    n: int = Field(default=1, ge=1)
    higher_is_better: bool = False


async def keep_best(ctx: RunContext, op: OpView, inputs: list[Thought]) -> list[Thought]:
    params = op.params_as(KeepBestParams)
    sign = -1 if params.higher_is_better else 1
    scored = [ctx.thoughts.rescore(t) for t in inputs]
    ranked = sorted(enumerate(scored), key=lambda it: (sign * _error_value(it[1]), it[0]))
    unique: dict[str, Thought] = {}
    for _, thought in ranked:
        unique.setdefault(thought.id, thought)
    return list(unique.values())[: params.n]


KEEP_BEST = register(
    OpKind(
        "keep_best",
        KeepBestParams,
        keep_best,
        reference_name="keep_best_n",
        in_place=True,
        most=lambda p, k: Most(outputs=min(p.n, k)),
    )
)


class KeepValidParams(Params):
    """Keep only the input thoughts that parsed (and passed validation where validated)."""


async def keep_valid(ctx: RunContext, op: OpView, inputs: list[Thought]) -> list[Thought]:
    return [t for t in inputs if t.valid]


KEEP_VALID = register(
    OpKind(
        "keep_valid",
        KeepValidParams,
        keep_valid,
        in_place=True,
        most=lambda _p, k: Most(outputs=k),
    )
)


class GroundTruthParams(Params):
    """Compare each input thought with `Task.reference`: recorded as `solved`, never used to choose."""  # noqa: E501 - one line in the schema


async def ground_truth(ctx: RunContext, op: OpView, inputs: list[Thought]) -> list[Thought]:
    """Record whether each thought matches the reference answer; never changes what is passed on.

    The reference is the problem's given one (`ctx.reference`) or the task's own solver's
    (`tasks.reference.expected`); the task's `matches_reference` compares (equality unless the
    task says otherwise: case, order, a set in any order; None when it has no reference)."""
    out = []
    for thought in inputs:
        reference = expected(ctx.task, thought.problem, ctx.problem, ctx.reference)
        solved = ctx.task.matches_reference(thought.problem, thought.content, reference)
        out.append(ctx.state.add(replace(ctx.state.thoughts[thought.id], solved=solved)))
    return out


GROUND_TRUTH = register(
    OpKind(
        "ground_truth",
        GroundTruthParams,
        ground_truth,
        reference_name="ground_truth_evaluator",
        needs=lambda _params: HasReference,
        in_place=True,
        most=lambda _p, k: Most(outputs=k),
    )
)
