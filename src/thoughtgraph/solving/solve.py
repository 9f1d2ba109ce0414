"""`solve` and `asolve`: run a Graph-of-Thoughts scheme on one problem and return a `Result`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import math
import time
import weakref
from collections.abc import Coroutine, Mapping
from dataclasses import replace
from typing import Any

from typing_extensions import Unpack

from thoughtgraph import schemes
from thoughtgraph.engine import kinds
from thoughtgraph.engine.context import template_for
from thoughtgraph.engine.executor import execute
from thoughtgraph.engine.gcpause import fewer_collections
from thoughtgraph.engine.graph import Graph, Op
from thoughtgraph.engine.ops import SplitParams
from thoughtgraph.engine.options import PreparedRun, RunKeywords, RunOptions, run_options
from thoughtgraph.engine.outcome import RunOutcome
from thoughtgraph.engine.result import Result, ResultStatus, count_calls
from thoughtgraph.engine.routes import Routes
from thoughtgraph.engine.state import RunState
from thoughtgraph.engine.thought import Thought
from thoughtgraph.errors import (
    FatalModelError,
    GraphError,
    InputError,
    RunInterrupted,
    ThoughtgraphError,
    shown,
)
from thoughtgraph.events import EventHandler, OpStatus, StopReason
from thoughtgraph.io.bounds import check_items
from thoughtgraph.models.base import LanguageModel, display_name
from thoughtgraph.models.limits import ConcurrencyLimiter
from thoughtgraph.modelspec import ModelLike, ModelsFor, as_model, models_for
from thoughtgraph.schemes import variants
from thoughtgraph.solving import loop
from thoughtgraph.solving.routing import run_models
from thoughtgraph.spend.budget import Meter, check_whole, dollars
from thoughtgraph.tasks import TASKS, Task, get_task
from thoughtgraph.tasks.base import BaseTask, HasReference, check_parts, lacks
from thoughtgraph.tasks.reference import attach_reference, can_check, given_reference
from thoughtgraph.tasks.score import Score

logger = logging.getLogger("thoughtgraph")

MOST_RETRIES = 100  # max_regenerations / max_extra_merges / max_refines: the graph schema's bound


class SolveKeywords(RunKeywords, total=False):
    """The keywords of `solve`: `asolve`'s, each documented there."""

    parts: int | None
    max_regenerations: int
    max_extra_merges: int
    max_refines: int
    scheme: str | None
    graph: Graph | None
    on_event: EventHandler | None
    meter: Meter | None
    reference: object
    limiter: ConcurrencyLimiter | None
    models: ModelsFor | None


async def asolve(
    task: str | Task[Any, Any],
    input: object,
    model: ModelLike | None = "sim",
    *,
    parts: int | None = None,
    max_regenerations: int = 2,
    max_extra_merges: int = 1,
    max_refines: int = 2,
    scheme: str | None = None,
    graph: Graph | None = None,
    on_event: EventHandler | None = None,
    meter: Meter | None = None,
    reference: object = None,
    limiter: ConcurrencyLimiter | None = None,
    models: ModelsFor | None = None,
    **options: Unpack[RunKeywords],
) -> Result:
    """Solve one problem with the spec's GoT pattern (or your own `graph`). Awaitable anywhere.

    `model` is a spec string (`"sim"`, `"sim:error=0"`, `"openai:gpt-4o-mini"`,
    `"openai:NAME@http://127.0.0.1:8001/v1"`), a `LanguageModel`, or any function
    `prompt -> str` (sync or async). `models` routes kinds of call to other models, each
    given as `model` is: `models={"merge": "openai:big@http://127.0.0.1:8002/v1"}` sends every
    merge there and the rest to `model` (kinds: `MODEL_CALL_KINDS`); each model has its own
    price (a spec's `price_in=`/`price_out=`, else `price_in`/`price_out`, else the table's)
    and cache key, and the caps hold for all of them together (`Result.spend_by_model`).
    `scheme` picks a built-in graph (`got`, `got_paper`, `io`, `cot`, `cot_sc`, `tot`,
    `tot2`); `graph` runs your own instead. The caps apply to `got`.

    Spending: `max_requests` (HTTP requests, retries and parallel singles included; `max_calls`
    is its older name, kept as an alias), `max_tokens`
    (paid tokens) and `max_cost` (USD; needs a price) are checked before every request leaves;
    when one is reached the best thought so far is returned with status "not clean" and
    `stop_reason` "budget exhausted". `meter` is a budget shared with other runs (what
    `evaluate` passes): its caps then apply instead. The price is
    `price_in`/`price_out` (USD per million tokens) or the built-in table's for OpenAI models.
    `cache` is an answer-cache file (SQLite): answers in it are free and a rerun resumes.
    `rpm`/`tpm` cap requests/tokens per minute for every run in the process using the same
    model; `concurrency` caps this run's calls in flight, unless `limiter` is given: a
    `ConcurrencyLimiter` shared on purpose with other runs, whose one cap they then keep
    together. `order` is the scheduler's: "eager" starts every op as soon as its inputs are
    done, "bfs" runs one op at a time in the reference controller's BFS order, "auto" (the
    default) is "bfs" at `concurrency=1` and "eager" otherwise. A fatal model error (rejected
    key, unreachable endpoint, bad request) stops the run and raises `FatalModelError` whose
    `result` holds the run so far. `reference` is the problem's expected answer, when you have
    one: the `ground_truth` op records whether the output matches it (`solved`, by the task's
    `matches_reference`), and a task that scores against a reference is given it. Without one,
    for a task that has no reference solver either, a scheme runs without its ground_truth op
    (`solved` unknown).
    """
    checked = run_options(options)
    default = as_model(model)
    if on_event is not None and not callable(on_event):
        raise InputError(f"on_event must be a function of one event, got {type(on_event).__name__}")
    with fewer_collections():  # the graph build too: a 10,000-op graph is 10,000 pydantic ops
        prepared = prepare(
            task,
            input,
            graph,
            scheme=scheme,
            parts=parts,
            max_regenerations=max_regenerations,
            max_extra_merges=max_extra_merges,
            max_refines=max_refines,
            reference=reference,
        )
        routed = models_for(  # the graph's own kinds of call (its prompts' names) routable too
            models,
            default,
            default_spec=model if isinstance(model, str) else None,
            own=prepared.graph.call_kinds,
        )
        return await run_prepared(
            prepared,
            default,
            checked,
            on_event=on_event,
            meter=meter,
            limiter=limiter,
            models=routed,
        )


async def run_prepared(
    prepared: PreparedRun,
    model: LanguageModel,
    options: RunOptions,
    *,
    on_event: EventHandler | None = None,
    meter: Meter | None = None,
    limiter: ConcurrencyLimiter | None = None,
    models: Mapping[str, LanguageModel] | None = None,
) -> Result:
    """Run a prepared run with checked options: what `asolve` does after its checks (the CLI and
    `evaluate` prepare once and call this). `models` are the kinds routed to other models
    (kind -> model, `modelspec.models_for`). Raises `FatalModelError` as `asolve` does."""
    with fewer_collections():  # see gcpause: the run's objects live until it ends
        return await _run_prepared(
            prepared, model, options, on_event=on_event, meter=meter, limiter=limiter, models=models
        )


async def _run_prepared(
    prepared: PreparedRun,
    model: LanguageModel,
    options: RunOptions,
    *,
    on_event: EventHandler | None,
    meter: Meter | None,
    limiter: ConcurrencyLimiter | None,
    models: Mapping[str, LanguageModel] | None,
) -> Result:
    the_task, problem, graph = prepared.task, prepared.problem, prepared.graph
    # each model capped by default (a looping model), rate-limited, cached or numbered: a cache
    # numbers the samples of each prompt; without one, a model that takes samples has them
    # numbered for this run all the same (models/samples.py)
    wrapped = run_models(
        model,
        models,
        options,
        the_task,
        problem,
        prepared.reference,
        check=lambda lm: _check_simulated(lm, the_task, problem),
    )
    routes, lm = wrapped.routes, wrapped.capped
    started = time.perf_counter()
    try:
        outcome = await execute(
            graph,
            the_task,
            problem,
            routes.default.model,
            concurrency=options.concurrency,
            budget=options.budget,
            price=routes.default.price,
            on_event=on_event,
            meter=meter,
            limiter=limiter,
            order=options.order,
            reference=prepared.reference,
            routes=routes,
        )
    except asyncio.CancelledError as exc:  # Ctrl-C: the run so far rides on the cancellation
        so_far = getattr(exc, "run", None)
        if isinstance(so_far, RunOutcome):
            wall = time.perf_counter() - started
            partial = _result(graph, so_far, the_task, problem, lm, routes, wall)
            partial.completion_cap, partial.completion_cap_sent = wrapped.cap, wrapped.sent_cap
            partial.cached_answers = wrapped.cached_answers
            exc.result = partial  # type: ignore[attr-defined]
        raise
    finally:
        wrapped.close()
    result = _result(graph, outcome, the_task, problem, lm, routes, time.perf_counter() - started)
    result.completion_cap, result.completion_cap_sent = wrapped.cap, wrapped.sent_cap
    result.cached_answers = wrapped.cached_answers
    logger.info(
        "%d model calls (%s); %s tokens paid%s; status %s",
        result.calls,
        ", ".join(f"{k} {v}" for k, v in result.calls_by_kind.items()),
        f"{result.tokens:,}",
        f", {dollars(result.cost)}" if result.priced else "",
        result.status,
    )
    if routes.by_kind:
        for label, spent in result.spend_by_model.items():
            logger.info("model %s: %d calls, %s tokens", label, spent.calls, f"{spent.tokens:,}")
    if outcome.stop_reason == StopReason.FATAL:
        error = FatalModelError(outcome.stop_detail or "the model failed")
        error.result = result
        raise error
    return result


def _check_simulated(model: LanguageModel, task: BaseTask[Any, Any], problem: object) -> None:
    """The simulated model plays only the built-in tasks: on a user's own task it would answer
    as if asked to sort. A user's task is refused unless its description reads as one of them
    (a from-scratch task that sorts is played)."""
    from thoughtgraph.sim.jobs import known_task
    from thoughtgraph.tasks import TASKS

    if not getattr(model, "simulated", False) or type(task) in TASKS.values():
        return  # a built-in task's class (a user's task named "sorting" is not one)
    if known_task(task.describe(problem)) is None:
        raise InputError(
            f"the simulated model only plays the built-in tasks ({', '.join(sorted(TASKS))}), "
            f"not {task.name!r}: give a real model (openai:MODEL) or a function prompt -> str"
        )


def _result(
    graph: Graph,
    outcome: RunOutcome,
    task: BaseTask[Any, Any],
    problem: object,
    model: LanguageModel,
    routes: Routes,
    wall: float,
) -> Result:
    state = outcome.state
    final = _final_thought(graph, state, task, problem)
    score = _whole_score(task, problem, final)
    output = final.content
    if score is None:
        reason = (
            "no model answer arrived before the run stopped"
            if final.id == "input"
            else "the final answer could not be parsed"
        )
        score = task.score_unparsed(problem, reason)
        output = None  # the input of most tasks is not an answer
    metrics = state.metrics_of(final.id)
    scale = rating_scale(graph, task)
    rating = model_rating(final)
    errors = list(score.errors)
    unread = scale is not None and rating is None
    if unread and output is not None:
        errors.append(UNRATED)
    return Result(
        output=output,
        text="" if output is None and final.id == "input" else final.text,
        error_count=score.value,
        errors=errors,
        # the spec: a run stopped by its budget (or a fatal error) is "not clean", whatever it
        # holds; so is an answer the graph meant the model to rate and no rating was read
        status=ResultStatus.CLEAN
        if score.perfect and outcome.stop is None and not unread
        else ResultStatus.NOT_CLEAN,
        calls=len(state.calls),
        completions=sum(len(c.texts) for c in state.calls.values()),
        calls_by_kind=count_calls(state),
        volume=metrics.volume,
        latency=metrics.latency,
        depth=_depth(state),
        wall_seconds=wall,
        graph=graph,
        state=state,
        model=display_name(model),
        simulated=bool(getattr(model, "simulated", False)),
        task=task.name,
        final=final,
        stop_reason=outcome.stop_reason,
        stop_detail=outcome.stop_detail,
        tokens=outcome.spend.tokens,
        spend=outcome.spend,
        spend_by_kind=outcome.tables.by_kind,
        spend_by_model=outcome.tables.by_model,
        prices=routes.prices,
        model_for=routes.routed,
        budget=outcome.budget,
        price=routes.default.price,
        rating=rating,
        rating_scale=scale,
    )


UNRATED = "the model was asked to rate the final answer and no rating could be read"


def rating_scale(graph: Graph, task: BaseTask[Any, Any]) -> int | None:
    """The scale of the model's ratings when the graph rates answers with the model (a score
    op with `scorer="model"`); None when only code scores them."""
    return task.rating_scale if graph.rates_with_model else None


def model_rating(final: Thought) -> float | None:
    """The model's rating of the final answer; None when the model did not rate it or no rating
    could be read from its replies (never the placeholder 0 of an unread rating)."""
    score = final.score
    if score is None or not score.rated_by_model or score.unrated or final.content is None:
        return None
    return score.value


def prepare(
    task: str | Task[Any, Any],
    input: object,
    graph: Graph | None = None,
    *,
    scheme: str | None = None,
    parts: int | None = None,
    max_regenerations: int = 2,
    max_extra_merges: int = 1,
    max_refines: int = 2,
    reference: object = None,
) -> PreparedRun:
    """Check the input and the graph's options and build the graph: everything that happens
    before a call, once (the CLI prepares, shows the graph, then runs it with `run_prepared`).

    `reference` is the problem's expected answer (a data row's): a task that reads references
    gets it in its problem, any other task's run carries it beside the problem
    (`PreparedRun.reference`) for its `ground_truth` op to compare with (`tasks.reference`)."""
    retries = (max_regenerations, max_extra_merges, max_refines)
    _check_options(graph, scheme, parts, retries)  # before the task: its errors come first
    return prepare_resolved(
        get_task(task),
        input,
        graph,
        scheme=scheme,
        parts=parts,
        retries=retries,
        reference=reference,
    )


def _check_options(
    graph: Graph | None, scheme: str | None, parts: int | None, retries: tuple[int, int, int]
) -> None:
    check_whole("parts", parts, 1)
    names = ("max_regenerations", "max_extra_merges", "max_refines")
    for name, value in zip(names, retries, strict=True):
        check_whole(name, value, 0, most=MOST_RETRIES, required=True)
    if graph is not None and not isinstance(graph, Graph):
        raise InputError(
            f"graph must be a thoughtgraph.Graph (use Graph.load(path) for a file), "
            f"got {type(graph).__name__}"
        )
    if graph is not None and scheme is not None:
        raise InputError("give either a scheme or a graph, not both")
    if graph is not None and parts is not None:
        raise InputError("parts applies to a built-in scheme; a graph sets its own parts")


def prepare_resolved(
    the_task: BaseTask[Any, Any],
    input: object,
    graph: Graph | None = None,
    *,
    scheme: str | None = None,
    parts: int | None = None,
    retries: tuple[int, int, int] = (2, 1, 2),
    reference: object = None,
) -> PreparedRun:
    """`prepare` for a task already resolved (`get_task`'s): an evaluation resolves its task
    once and prepares every pair with the object, which is not resolved again."""
    _check_options(graph, scheme, parts, retries)
    scheme = "got" if scheme is None else scheme  # '' is an unknown scheme, not the default
    try:
        problem = the_task.parse_input(input)
        if reference is not None:  # a data row's: carried in the problem or beside it
            problem = attach_reference(the_task, problem, reference)
        check_items(len(problem))  # before a graph is built for it
        the_task.render(problem)  # a prompt must be able to show it (a 10^5000 int cannot)
    except ThoughtgraphError:
        raise
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise InputError(f"the input could not be read: {_first_line(exc)}") from None
    given = None if reference is None else given_reference(the_task, reference)
    if graph is not None:
        check_graph_task(graph, the_task.name)
    if graph is None:
        graph = _scheme_graph(the_task, problem, scheme, parts, retries)
        if not can_check(the_task, given):
            graph = _without_ground_truth(graph)
    check_graph(graph, the_task, problem, given)
    return PreparedRun(the_task, problem, graph, given)


def _scheme_graph(
    task: BaseTask[Any, Any],
    problem: Any,
    scheme: str,
    parts: int | None,
    retries: tuple[int, int, int],
) -> Graph:
    """The graph of the scheme named, for this problem: a built-in one (`got` and
    `got_adaptive` with the run's retry options and the task's parts), or a variant that
    carries its settings in its name (`top:b=2,d=3`, `got_paper:parts=8`, the paper's `got8`),
    built as eval builds its rows."""
    max_regenerations, max_extra_merges, max_refines = retries
    got_options: dict[str, object] = {
        "max_regenerations": max_regenerations,
        "max_extra_merges": max_extra_merges,
        "max_refines": max_refines,
    }
    if scheme not in schemes.SCHEMES:  # a variant (its parse says so, or what it is not)
        variant = variants.parse(scheme, task.name)
        if parts is not None:
            raise InputError(
                f"parts applies to a plain got or got_paper; {shown(scheme)} sets its own"
            )
        if variant.scheme in schemes.SPEC_PATTERNS:  # the run's options and the task's parts
            given = {"parts": task.default_parts(problem), **got_options}
            variant = replace(variant, settings=tuple((given | dict(variant.settings)).items()))
        built: Graph = variant.build(task, len(problem))
        return built
    options = {}
    if scheme in schemes.SPEC_PATTERNS:
        parts = task.default_parts(problem) if parts is None else parts
        options = got_options
    if parts is not None and scheme not in (*schemes.SPEC_PATTERNS, "got_paper"):
        raise InputError(
            f"parts applies to the got, got_adaptive and got_paper schemes, not {shown(scheme)}"
        )
    if parts is not None:
        check_parts(parts, len(problem))
    return schemes.build(scheme, task, len(problem), parts=parts, **options)


def _without_ground_truth(graph: Graph) -> Graph:
    """A scheme's graph without the `ground_truth` op it ends with, for a task that has neither
    a reference solver nor a given reference: its answer is scored in code as always and its
    `solved` is unknown, where a ground_truth op would have nothing to compare it with."""
    kept = tuple(op for op in graph.ops if op.kind != "ground_truth")
    return graph if len(kept) == len(graph.ops) else Graph(ops=kept, prompts=graph.prompts)


def _first_line(exc: BaseException) -> str:
    """The exception's message cut to one short line (Python's own advice left out)."""
    return str(exc).split(";")[0].splitlines()[0][:200] if str(exc) else type(exc).__name__


def check_graph_task(graph: Graph, task: str, what: str = "the graph") -> None:
    """Refuse a graph file built for another task (its `task:` line, which `tune` writes): its
    prompts and settings were chosen on other problems. A graph that names no task runs on any."""
    if graph.task is not None and graph.task != task:
        raise GraphError(
            f"{what} was built for task {shown(graph.task)}, not {shown(task)}: tune one for "
            f"{shown(task)}, or drop its task: line to run it anyway"
        )


def check_graph(
    graph: Graph, task: BaseTask[Any, Any], problem: object, reference: object = None
) -> None:
    """Refuse, before any call, a graph this task cannot run (unknown prompt, a capability the
    task lacks, too many parts). A given `reference` stands in for a reference solver.

    What does not depend on the problem (capabilities, prompts) is checked once per graph and
    task: an evaluation's samples share a graph (`schemes.build`), and the next sample checks
    only its problem against the ops (the errors and their order are the full check's, since
    the part checked once found none)."""
    seen = _checked_for(graph)
    key = _task_key(task, can_check(task, reference))
    if key in seen:
        for op in graph.ops:
            try:
                _check_problem(op, task, problem)
            except ThoughtgraphError as exc:
                raise GraphError(f"op {shown(op.id)}: {exc}") from None
        return
    _check_ops(graph, task, problem, reference)
    seen[key] = task  # held: an id stays the task's while the graph lives


def _check_ops(
    graph: Graph, task: BaseTask[Any, Any], problem: object, reference: object = None
) -> None:
    """Every check of `check_graph`, op by op."""
    filled: set[tuple[str, str]] = set()  # (kind, prompt) pairs already checked: a big graph
    for op in graph.ops:  # repeats a few
        kind = kinds.get(op.kind)
        try:
            capability = kind.capability(op.params)
            if capability is HasReference and can_check(task, reference):
                capability = None
            missing = lacks(task, capability) if capability is not None else None
            if missing:
                raise GraphError(
                    f"a {op.kind} op here needs {missing}, which task {task.name!r} lacks"
                )
            sent = [(op.kind, op.prompt), *op.params.grown_prompts()]  # and what it may grow
            for kind_name, prompt in sent:
                if prompt is None or (kind_name, prompt) in filled:
                    continue
                fills = kinds.get(kind_name).fills
                needed = template_for(task, prompt, graph.templates).variables - fills
                if needed:
                    raise GraphError(
                        f"prompt {shown(prompt)} needs {', '.join(sorted(needed))}, which a "
                        f"{kind_name} op does not fill (it fills: {', '.join(sorted(fills))})"
                    )
                filled.add((kind_name, prompt))
            _check_problem(op, task, problem)
        except ThoughtgraphError as exc:
            raise GraphError(f"op {shown(op.id)}: {exc}") from None


def _check_problem(op: Op, task: BaseTask[Any, Any], problem: object) -> None:
    """The checks of one op that depend on the problem: its kind's (parts against items), and
    for the first split in code, the task's split itself."""
    kinds.get(op.kind).check_problem(op.params, problem)
    params = op.params
    if isinstance(params, SplitParams) and not op.inputs and params.by == "code":
        _check_code_split(task, problem, params.parts)


# id(graph) -> (the graph, weakly; the tasks its problem-free checks passed for, `_task_key`):
# an entry goes with its graph (a frozen Graph holds a dict, so it cannot be a dict key itself)
_CHECKED: dict[int, tuple[weakref.ref[Graph], dict[tuple[object, ...], object]]] = {}


def _checked_for(graph: Graph) -> dict[tuple[object, ...], object]:
    """The tasks `graph` passed its problem-free checks for (filled in by `check_graph`)."""
    entry = _CHECKED.get(id(graph))
    if entry is not None and entry[0]() is graph:
        return entry[1]
    key = id(graph)
    seen: dict[tuple[object, ...], object] = {}
    _CHECKED[key] = (weakref.ref(graph, lambda _ref: _CHECKED.pop(key, None)), seen)
    return seen


def _task_key(task: BaseTask[Any, Any], checks: bool) -> tuple[object, ...]:
    """Which task a graph was checked for: a built-in task's class when the object holds nothing
    of its own (every `get_task("sorting")` is a new object of the same behaviour), else the
    object itself; and whether it can check an answer against a reference."""
    if type(task) in TASKS.values() and not getattr(task, "__dict__", None):
        return (type(task), checks)
    return (id(task), checks)


def _check_code_split(task: BaseTask[Any, Any], problem: object, parts: int) -> None:
    """Split the problem in code as the graph's first split will (code, no model): a task that
    cannot (its `split` raises, a problem the default cannot slice) is refused before any call,
    in one line, where the run would have stopped with a traceback."""
    try:
        task.split(problem, parts)
    except ThoughtgraphError:
        raise
    except Exception as exc:  # the user's split: whatever it raises, one line
        raise GraphError(
            f"task {task.name!r} cannot split this problem into {parts} parts "
            f"({type(exc).__name__}: {_first_line(exc)}): use a scheme without parts (io, cot, "
            "tot), or give the task a split"
        ) from None


def solve(
    task: str | Task[Any, Any],
    input: object,
    model: ModelLike | None = "sim",
    **options: Unpack[SolveKeywords],
) -> Result:
    """Synchronous `asolve`. Inside a running event loop (Jupyter) it runs in a helper thread.

    Ctrl-C raises `RunInterrupted` (a `KeyboardInterrupt`) whose `result` is the run so far.
    """
    if not loop.in_running_loop():  # the usual case: on the loop the last call left clean
        result = loop.run(keep_partial(asolve(task, input, model, **options)))
    else:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            coro = keep_partial(asolve(task, input, model, **options))
            result = pool.submit(asyncio.run, coro).result()
    if result.stop_reason == StopReason.INTERRUPTED:
        raise RunInterrupted(result)
    return result


async def keep_partial(run: Coroutine[Any, Any, Result]) -> Result:
    """The run's result, or on Ctrl-C the run so far (stop reason "interrupted") instead of a
    bare cancellation: the caller reports what was kept, then stops."""
    try:
        return await run
    except asyncio.CancelledError as exc:
        partial = getattr(exc, "result", None)
        if not isinstance(partial, Result):
            raise
        return partial


def _final_thought(
    graph: Graph, state: RunState, task: BaseTask[Any, Any], problem: object
) -> Thought:
    """The output op's best thought; if the run stopped early, the best thought so far.

    "Best so far" is judged against the whole problem, so a complete merge beats a lone part.
    With no usable answer at all the input thought comes back, unscorable as an answer for most
    tasks (output None), always "not clean".
    """
    done = state.ops[graph.output.id].status == OpStatus.DONE
    outputs = state.outputs(graph.output.id) if done else []
    if outputs:
        return min(outputs, key=lambda t: _rank(task, problem, t))
    not_answers = {op.id for op in graph.ops if not kinds.get(op.kind).makes_answers}
    answers = [
        t
        for t in state.thoughts.values()
        if t.call_id and t.content is not None and t.op_id not in not_answers
    ]
    # model work first: with no answer at all the input itself comes back (not clean)
    return min(answers or [state.thoughts["input"]], key=lambda t: _rank(task, problem, t))


def _rank(task: BaseTask[Any, Any], problem: object, thought: Thought) -> tuple[float, int, str]:
    score = _whole_score(task, problem, thought)
    return (math.inf if score is None else score.value, -thought.round, thought.id)


def _whole_score(task: BaseTask[Any, Any], problem: object, thought: Thought) -> Score | None:
    """The thought's score as an answer to the whole problem; None if it cannot be one."""
    if thought.content is None:
        return None
    try:
        return task.score(problem, thought.content)
    except (TypeError, ValueError, AttributeError, KeyError):  # not shaped like an answer
        return None


def _depth(state: RunState) -> int:
    """Model rounds on the critical path: the latest round any op finished at."""
    return max((op.end_round for op in state.ops.values()), default=0)
