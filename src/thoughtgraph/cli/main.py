"""The `thoughtgraph` command line: solve, eval, graph, schema, trace view.

Every user mistake ends as one `error: ...` line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.exceptions import Abort, Exit, TyperException

from thoughtgraph import schemes
from thoughtgraph.cli import options as opt
from thoughtgraph.cli.compare import compare_command
from thoughtgraph.cli.eval import eval_command
from thoughtgraph.cli.trace import trace_app
from thoughtgraph.cli.tune import tune_command
from thoughtgraph.errors import (
    FatalModelError,
    GraphError,
    InputError,
    ThoughtgraphError,
    shown,
)
from thoughtgraph.evaluation.datasets import dataset_task, load_sample
from thoughtgraph.events import EventHandler
from thoughtgraph.io.bounds import MAX_INPUT_BYTES, check_length, read_bounded, read_file
from thoughtgraph.io.eventlog import EventLog, combine
from thoughtgraph.models import secrets
from thoughtgraph.schemes import SCHEMES, variants
from thoughtgraph.spend.accounting import CALL_KINDS
from thoughtgraph.spend.budget import dollars

SCHEME_HELP = (
    "Built-in scheme: " + ", ".join(SCHEMES) + "; settings after a colon, as eval's --schemes "
    "takes them (top:b=2,d=3, got_paper:parts=8)."
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # the engine loads when a command runs, so `--help` stays fast
    from thoughtgraph.engine.options import PreparedRun
    from thoughtgraph.engine.result import Result

app = typer.Typer(
    name="thoughtgraph",
    help="Graph of Thoughts: solve long, exact tasks with a graph of scored model calls.",
    **opt.APP_SETTINGS,
)

app.add_typer(trace_app, name="trace")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"thoughtgraph {package_version()}")
        raise typer.Exit()


def package_version() -> str:
    """The installed distribution's version (the source's `__version__` when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("thoughtgraph")
    except PackageNotFoundError:
        from thoughtgraph import __version__

        return __version__


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Graph of Thoughts: solve long, exact tasks with a graph of scored model calls."""


app.command("eval")(eval_command)
app.command("compare")(compare_command)
app.command("tune")(tune_command)


def _read_input(
    text: str | None, file: str | None, dataset: str | None, sample: int
) -> tuple[Any, Any]:
    """Returns (raw input, dataset reference or None) from exactly one source."""
    given = [
        name
        for name, value in (("--input", text), ("--input-file", file), ("--dataset", dataset))
        if value is not None
    ]
    if len(given) != 1:
        raise InputError(
            "give exactly one of --input, --input-file, --dataset or --data"
            + (f" (got {', '.join(given)})" if given else "")
        )
    if text is not None:
        check_length(text, MAX_INPUT_BYTES, "--input")
        return text, None
    if file is not None:
        if file == "-":
            text = read_bounded(sys.stdin, MAX_INPUT_BYTES, "standard input")
            try:
                text.encode("utf-8")  # undecodable bytes arrive as lone surrogates
            except UnicodeEncodeError:
                raise InputError("standard input is not UTF-8 text") from None
            return text, None
        # any readable file, pipes too (`--input-file <(...)`), read in bounded chunks
        return read_file(file, MAX_INPUT_BYTES, "input file", regular_only=False), None
    assert dataset is not None
    item = load_sample(dataset, sample)
    return item.input, item.reference


def _read_row(
    task: str, path: Path, input_column: str, number: int | None, row_id: str | None
) -> tuple[Any, Any]:
    """One problem of a data file (every row checked first): row `number`, or the one whose id
    is `row_id`, or the first."""
    from thoughtgraph.evaluation.datasets import load_data

    if number is not None and row_id is not None:
        raise InputError("give either --sample N or --id ID, not both")
    data = load_data(path, task, input_column)
    if row_id is not None:
        found = [s for s in data.samples if str(s.id) == row_id.strip()]
        if not found:
            raise InputError(f"{data.name} has no row with id {row_id!r}")
        return found[0].given, found[0].reference
    if number is None:
        return data.samples[0].given, data.samples[0].reference
    if not 1 <= number <= len(data.samples):
        raise InputError(f"--sample must be a row of {data.name}: 1 to {len(data.samples)}")
    chosen = data.samples[number - 1]
    return chosen.given, chosen.reference


@app.command()
@opt.with_openai_flags
def solve(
    task: opt.Task,
    input: Annotated[
        str | None, typer.Option("--input", "-i", help="The problem, e.g. '[3, 1, 2]'.")
    ] = None,
    input_file: Annotated[
        str | None,
        typer.Option("--input-file", help="Read the problem from a file ('-' for stdin)."),
    ] = None,
    dataset: Annotated[
        str | None, typer.Option(help="A built-in dataset, e.g. sorting_032.")
    ] = None,
    sample: Annotated[
        int | None,
        typer.Option(
            help="Sample id within --dataset (default 0); with --data, the row number (default 1)."
        ),
    ] = None,
    data: opt.Data = None,
    row_id: Annotated[
        str | None, typer.Option("--id", help="With --data: the problem whose id this is.")
    ] = None,
    input_column: opt.InputColumn = "input",
    parts: Annotated[
        int | None, typer.Option(help="Number of parts (default: chunks of 8).")
    ] = None,
    model: opt.Model = "sim",
    model_for: opt.ModelFor = None,
    openai: opt.OpenAIFlags = opt.NO_OPENAI_FLAGS,  # --base-url ... --max-response-bytes
    rpm: Annotated[
        float | None,
        typer.Option(help="Most requests per minute to the model (to each model on its own)."),
    ] = None,
    tpm: Annotated[
        float | None,
        typer.Option(
            help="Most tokens per minute to the model (to each on its own; estimated before "
            "each request)."
        ),
    ] = None,
    cache: opt.Cache = None,
    no_cache: Annotated[
        bool,
        typer.Option(
            "--no-cache", help="Use no answer cache (overrides --cache and THOUGHTGRAPH_CACHE)."
        ),
    ] = False,
    scheme: Annotated[str, typer.Option(help=SCHEME_HELP)] = "got",
    graph_file: Annotated[
        Path | None,
        typer.Option("--graph", help="Run your own graph file (JSON or YAML) instead of a scheme."),
    ] = None,
    show_prompts: Annotated[
        bool,
        typer.Option(
            "--show-prompts",
            help="Print the prompts the graph sends for this problem (each model-calling op's "
            "first request; what the model's answers fill at run time as placeholders) and "
            "stop: no model is called.",
        ),
    ] = False,
    concurrency: Annotated[int, typer.Option(help="Most model calls in flight at once.")] = 16,
    order: opt.Order = "auto",
    max_regenerations: Annotated[int, typer.Option(help="Extra Part attempts per part.")] = 2,
    max_extra_merges: Annotated[int, typer.Option(help="Extra Merge attempts per pair.")] = 1,
    max_refines: Annotated[int, typer.Option(help="Refine passes on the final thought.")] = 2,
    max_requests: Annotated[
        int | None,
        typer.Option(
            "--max-requests",
            "--max-calls",
            help="Budget: HTTP requests (retries and parallel singles count; cached answers "
            "do not); none is sent past it and the best thought so far is returned. "
            "--max-calls is its older name.",
        ),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            help="Budget: no request once this many tokens are paid (prompt + completion)."
        ),
    ] = None,
    max_cost: Annotated[
        float | None,
        typer.Option(help="Budget in USD: no request once this much is paid (needs a price)."),
    ] = None,
    price_in: opt.PriceIn = None,
    price_out: opt.PriceOut = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as one JSON object.")
    ] = False,
    trace: Annotated[
        Path | None, typer.Option(help="Write the full run state as JSON to this path.")
    ] = None,
    events: Annotated[
        str | None,
        typer.Option(
            "--events",
            help=(
                "Write each run event as one JSON line to this file ('-' for stderr),"
                " flushed as it happens: follow it with tail -f."
            ),
        ),
    ] = None,
    otel: Annotated[
        bool,
        typer.Option(
            "--otel",
            help=(
                "Send OpenTelemetry spans (needs thoughtgraph[otel];"
                " OTEL_* variables choose the exporter)."
            ),
        ),
    ] = False,
    progress: Annotated[
        bool, typer.Option(help="Live view on stderr (only when it is a terminal).")
    ] = True,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log the graph and call totals to stderr.")
    ] = False,
) -> None:
    """Solve one problem with the Graph-of-Thoughts pattern and print the result."""
    if verbose:
        _show_notes(False)  # the log lines below show them
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", stream=sys.stderr)
        secrets.install_log_masking()  # httpx logs each request's URL, credentials and all
    if dataset is not None and dataset_task(dataset) != task.strip().lower():
        raise InputError(
            f"dataset {dataset} is for task {shown(dataset_task(dataset))}, not {shown(task)}"
        )
    if sample is not None and dataset is None and data is None:
        raise InputError("--sample picks a sample of --dataset or a row of --data: give one")
    if (row_id is not None or input_column != "input") and data is None:
        raise InputError("--id and --input-column pick from --data: give --data too")
    if data is not None:
        if input is not None or input_file is not None or dataset is not None:
            raise InputError("give exactly one of --input, --input-file, --dataset or --data")
        raw, reference = _read_row(task, data, input_column, sample, row_id)
    else:
        raw, reference = _read_input(input, input_file, dataset, sample or 0)
    if graph_file is not None and scheme != "got":
        raise InputError("give either --scheme or --graph, not both")
    from thoughtgraph.engine.graph import Graph
    from thoughtgraph.engine.options import RunOptions
    from thoughtgraph.events import StopReason
    from thoughtgraph.modelspec import models_from_flags
    from thoughtgraph.solving.solve import keep_partial, prepare, run_prepared

    user_graph = Graph.load(graph_file) if graph_file is not None else None
    try:
        prepared = prepare(
            task,
            raw,
            user_graph,
            scheme=None if user_graph else scheme,
            parts=parts,
            max_regenerations=max_regenerations,
            max_extra_merges=max_extra_merges,
            max_refines=max_refines,
            reference=reference if data is not None else None,
        )
    except GraphError as exc:
        if graph_file is None:
            raise
        raise GraphError(f"{graph_file}: {exc}") from None
    from thoughtgraph.evaluation.runner import judged, model_scored

    if user_graph is None and model_scored(prepared.task.name):  # doc-merge: end with the
        # model's score of the merge, as eval does (the `rating:` line shows it)
        prepared = prepared._replace(graph=judged(prepared.graph, prepared.task.name))
    if verbose:  # before the first call: what the caps allow at most
        bound = prepared.graph.worst_case()
        line = bound.line() if bound is not None else "unknown (an op's kind states no bound)"
        typer.echo(f"thoughtgraph: worst case: {line}", err=True)
    if show_prompts:  # the routed kinds checked and named, their models not built: none is called
        from thoughtgraph.modelspec import normalize_spec, parse_model_for

        given = parse_model_for(tuple(model_for or ()), prepared.graph.call_kinds)
        routes = {  # a kind given --model's own spec is no route
            kind: secrets.mask_urls(spec)
            for kind, spec in given.items()
            if normalize_spec(spec) != normalize_spec(model.strip())
        }
        what = f"graph {graph_file}" if graph_file else f"scheme {scheme}"
        _show_prompts(prepared, what, as_json, routes)
        return
    lm, routed = models_from_flags(
        model, openai.by_flag(), tuple(model_for or ()), own=prepared.graph.call_kinds
    )
    for kind in routed:  # a kind this graph never calls: its model would answer nothing
        if kind not in prepared.graph.call_kinds:
            calls = ", ".join(prepared.graph.call_kinds) or "none"
            typer.echo(
                f"note: --model-for {kind}: this graph makes no {kind} call (it calls: {calls})",
                err=True,
            )
    run_options = RunOptions(
        concurrency=concurrency,
        max_requests=max_requests,
        max_tokens=max_tokens,
        max_cost=max_cost,
        price_in=price_in,
        price_out=price_out,
        cache=None if no_cache else cache,
        rpm=rpm,
        tpm=tpm,
        flags=True,
        order=order,
    )
    if trace is not None:
        _check_writable(trace, "trace")
    if cache is not None and not no_cache:
        _check_writable(cache, "cache")
    from thoughtgraph.models.base import SIMULATED_NOTE, routes_note, shown_name

    note = prepared.task.unchecked(prepared.problem)
    if note:
        typer.echo(f"note: {note}", err=True)
    label = shown_name(lm) + routes_note(routed)
    if not lm.simulated and any(m.simulated for m in routed.values()):
        label += f" · {SIMULATED_NOTE}"  # a routed kind's answers are the stand-in's
    units = prepared.task.unit_names  # a task file's paragraphs, lines
    title = f"thoughtgraph · {prepared.task.name} · {len(prepared.problem)} {units} · {label}"
    live = progress and sys.stderr.isatty() and not verbose and events != "-"
    fatal: FatalModelError | None = None
    logs: list[EventLog] = []
    try:
        with ExitStack() as stack:
            handlers: list[EventHandler] = []
            if events is not None:
                logs.append(stack.enter_context(EventLog.open(events)))
                handlers.append(logs[-1])
            if otel:
                from thoughtgraph.io.otel import from_env

                spans = from_env()
                stack.callback(spans.shutdown)
                handlers.append(spans)
            if live:
                from thoughtgraph.cli.progress import LiveView

                handlers.append(stack.enter_context(LiveView(prepared.graph, title)))
            import asyncio

            run = run_prepared(
                prepared, lm, run_options, on_event=combine(*handlers), models=routed
            )
            result = asyncio.run(keep_partial(run))
    except FatalModelError as exc:
        if exc.result is None:  # failed before the run started: nothing to keep
            raise
        fatal, result = exc, exc.result
    if fatal is not None and not result.completions:
        _report_outputs(trace, result, logs)
        raise fatal  # no answer came back: the error line says it all
    # The result first: a trace or event log that cannot be written must not hide it.
    if as_json:
        as_dict = result.to_dict()
        if reference is not None:
            as_dict["matches_reference"] = _matches(prepared, result, reference)
        typer.echo(json.dumps(as_dict))
    else:
        matched = None if reference is None else _matches(prepared, result, reference)
        typer.echo(_summary(result, title, matched, prepared.task.score_name))
    failed_outputs = _report_outputs(trace, result, logs)
    if result.stop_reason == StopReason.INTERRUPTED:
        _fail(_kept(result, cache if not no_cache else None, trace, failed_outputs), 130)
    if fatal is not None:
        raise fatal  # one `error:` line on stderr, exit 2, after the work was kept
    if failed_outputs:
        raise Exit(2)  # each failed file has had its one `error:` line
    if not result.clean and result.stop_reason:
        raise Exit(1)
    if result.output is None:  # every answer failed or could not be parsed: exit 2
        raise InputError(f"no usable answer: {_unusable(result)}")


def _report_outputs(trace: Path | None, result: Result, logs: list[EventLog]) -> list[str]:
    """Write the trace and report every output file that failed, one `error:` line each.

    Returns the files that failed. Never raises: the result (already printed) and the cache
    (written answer by answer) are what matter, an output file is only a copy of them.
    """
    failed = []
    for log in logs:
        if log.error is not None:
            sys.stderr.write(f"error: {log.error}\n")
            failed.append(log.name)
    if trace is not None:
        try:
            _write_trace(trace, result)
        except InputError as exc:
            sys.stderr.write(f"error: {exc}\n")
            failed.append(str(trace))
    return failed


def _kept(result: Result, cache: Path | None, trace: Path | None, failed: list[str]) -> str:
    """The one line after Ctrl-C: what the run had done and where it is kept. With a cache, the
    answers it holds (a call cut short may have stored some: its result counts none)."""
    count = result.completions
    where = []
    if cache is not None:
        count = max(count, result.cached_answers or 0)
        where.append(f"in the cache {cache} (rerun with it to resume)")
    answers = f"{count} answer{'s' if count != 1 else ''}"
    if trace is not None and str(trace) not in failed:
        where.append(f"in the trace {trace}")
    kept = " and ".join(where) if where else "in no file (give --cache to resume a run)"
    return f"interrupted after {result.calls} model calls: {answers} kept {kept}"


def _check_writable(path: Path, what: str) -> None:
    """Refuse, before any call, an output path that cannot be written (so no paid work is lost)."""
    if not str(path) or path.is_dir():
        raise InputError(f"cannot write {what} {shown(str(path))}: it is a folder")
    if not path.parent.exists():
        raise InputError(f"cannot write {what}: folder {path.parent} does not exist")
    # an existing file is overwritten in place (only it must be writable); a new one is created
    writable = os.access(path, os.W_OK) if path.exists() else os.access(path.parent, os.W_OK)
    if not writable:
        raise InputError(f"cannot write {what} {path}: permission denied")


def _write_trace(path: Path, result: Result) -> None:
    from thoughtgraph.engine.trace import write_trace

    write_trace(path, result.state, result)


def _model_rating(result: Result) -> str | None:
    """The model's rating of the final answer, when the graph rates with the model (document
    merging, a task file scored `by: model`): the error count above is only the code's check.
    An answer it meant to rate and could not is said to be unrated, never shown as a 0."""
    if result.rating_scale is None or result.final.content is None:
        return None
    if result.rating is None:
        return "none: the model's replies held no readable rating (the run is not clean)"
    score = result.final.score
    note = f" ({score.errors[0]})" if score is not None and score.errors else ""
    return (
        f"{result.rating:g} of {result.rating_scale}, the model's rating of the final answer "
        f"(higher is better){note}"
    )


def _matches(prepared: Any, result: Result, reference: Any) -> bool:
    from thoughtgraph.tasks.reference import answer_matches

    return answer_matches(
        prepared.task, prepared.problem, result.output, result.final.solved, reference
    )


def _summary(result: Result, title: str, matched: bool | None, score_name: str = "errors") -> str:
    spec = any(result.calls_by_kind.get(k) for k in CALL_KINDS)  # the spec's kinds, even at 0
    shown = {k: n for k, n in result.calls_by_kind.items() if n or (spec and k in CALL_KINDS)}
    by_kind = ", ".join(f"{kind} {n}" for kind, n in shown.items())
    stop = ": ".join(filter(None, (result.stop_reason, result.stop_detail)))
    status = result.status + (f" ({stop})" if stop else "")
    lines = [
        title,
        f"graph:   {result.graph.summary()} ({len(result.graph.ops)} ops)",
        f"status:  {status} · {score_name} {result.error_count:g}",
        f"output:  {_shown_output(result)}",
    ]
    if result.errors:
        lines.append(f"errors:  {'; '.join(result.errors[:8])}")
    if matched is not None:
        lines.append(f"dataset: output {'matches' if matched else 'differs from'} the reference")
    answers = f", {result.completions} answers" if result.completions != result.calls else ""
    failed = result.spend.failed_calls
    answers += f", {failed} failed" if failed else ""
    unknown = result.spend.unknown_token_requests
    estimated = result.spend.estimated_token_requests
    tokens = f"{'~' if estimated else ''}{result.tokens:,} tokens" + (
        f" (+ {unknown} request{'s' if unknown != 1 else ''} of unknown tokens)" if unknown else ""
    )
    if estimated:
        tokens += f" (estimated for {_plural(estimated, 'request')} that reported no usage)"
    if result.spend.reasoning_tokens:
        tokens += f" ({result.spend.reasoning_tokens:,} of them the model's reasoning)"
    lines.append(
        f"calls:   {result.calls} ({by_kind}{answers}) · {_plural(result.requests, 'request')} · "
        f"depth {result.depth} round{'' if result.depth == 1 else 's'} · "
        f"{result.wall_seconds:.2f} s · {tokens}{_money(result)}"
    )
    if result.cached_calls:
        calls = f"{result.cached_calls} call{'s' if result.cached_calls != 1 else ''}"
        lines.append(
            f"cache:   {calls} answered from the cache "
            f"({result.spend.saved_tokens:,} tokens not paid again"
            + (f", {dollars(result.spend.saved_cost)}" if result.priced else "")
            + ")"
        )
    lines.extend(_by_model(result))
    if result.completion_cap is not None:
        budgeted = result.budget.max_tokens is not None or (
            result.budget.max_cost is not None and result.priced
        )
        lines.append(_cap_line(result.completion_cap, result.completion_cap_sent, budgeted))
    hops = f"{result.latency} hop{'s' if result.latency != 1 else ''} from the input"
    lines.append(f"final:   {result.final.id} · volume {result.volume} · {hops}")
    rating = _model_rating(result)
    if rating:
        lines.append(f"rating:  {rating}")
    retries = _retries(result)
    if retries:
        lines.append(f"retries: {retries}")
    grown = _grown(result)
    if grown:
        lines.append(f"grown:   {grown}")
    return "\n".join(lines)


def _cap_line(cap: int, sent: int | None, budgeted: bool = False) -> str:
    """The summary's `answers:` line: the default cap, and what the requests went with when
    that differs (room for a model that reasons to think, or, where the server refused that
    room, no cap, or what the budget left when one limits tokens)."""
    if sent is None:
        went = "with what the budget left" if budgeted else "without a cap"
        thinking = (
            "; the server refused room to think beyond it (its context is smaller), so requests "
            f"went {went}"
        )
    elif sent > cap:
        thinking = f", + {sent - cap:,} for a model that reasons"
    else:
        thinking = ""
    return (
        f"answers: capped at {cap:,} tokens each by default (4 x the expected answer + 256"
        f"{thinking}; --max-completion-tokens N to change, 0 for no cap)"
    )


def _by_model(result: Result) -> list[str]:
    """One line per model when kinds were routed to others: its calls, tokens and cost."""
    if not result.model_for:
        return []
    lines = []
    for label, spent in result.spend_by_model.items():
        kinds = sorted({c.kind for c in result.state.calls.values() if c.model == label})
        price = result.prices.get(label)
        cost = f" · {dollars(spent.cost)}" if price is not None else " · no price"
        tokens = f"{'~' if spent.tokens_estimated else ''}{spent.tokens:,} tokens"
        lines.append(
            f"model:   {label}: {_plural(spent.calls, 'call')} "
            f"({', '.join(kinds) or 'none'}) · {_plural(spent.requests, 'request')} · "
            f"{tokens}{cost}"
        )
    return lines


def _unusable(result: Result) -> str:
    """Why a run that asked the model ended with no answer it could use."""
    calls = list(result.state.calls.values())
    failed = [c.error for c in calls if c.error]
    if failed:
        asked = f"{result.calls} model call{'s' if result.calls != 1 else ''}"
        return f"{len(failed)} of {asked} failed (last: {failed[-1]})"
    unparsed = [
        t.score.errors[0]
        for t in result.state.thoughts.values()
        if t.call_id and t.content is None and t.score and t.score.errors
    ]
    last = f" (last: {unparsed[-1]})" if unparsed else ""
    return f"none of the {result.completions} answers could be used{last}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _money(result: Result) -> str:
    """The cost when a price is known (never shown as $0 for a model we cannot price)."""
    if not result.priced:
        return ""
    return f" · {'~' if result.spend.tokens_estimated else ''}{dollars(result.cost)}"


def _retries(result: Result) -> str:
    """Each op kind says how its retries read (`OpKind.retries`)."""
    notes = []
    from thoughtgraph.engine import kinds
    from thoughtgraph.engine.result import calls_by_op

    graph_ops = {op.id for op in result.graph.ops}
    for op_id, n in calls_by_op(result.state).items():
        if op_id not in graph_ops:  # grown at run time: `_grown` says what it did
            continue
        op = result.graph.op(op_id)
        thoughts = [t for t in result.state.thoughts.values() if t.op_id == op_id]
        note = kinds.get(op.kind).retry_note(op, n, thoughts)
        if note:
            notes.append(note)
    return " · ".join(notes)


def _grown(result: Result) -> str:
    """What each part that failed its regenerations grew (`engine/growth.py`)."""
    from thoughtgraph.engine.growth import growths

    words = {True: "kept", False: "not better, not kept", None: "stopped"}
    return " · ".join(
        f"{g.id}: {g.pieces} pieces, {_plural(g.calls, 'call')}, {words[g.kept]}"
        for g in growths(result.state)
    )


def _shown_output(result: Result) -> str:
    if result.output is not None:
        return _short(result.output)
    return result.text or "(none: no usable model answer)"


def _show_prompts(prepared: PreparedRun, graph: str, as_json: bool, routes: dict[str, str]) -> None:
    """`solve --show-prompts`: the prompts of the prepared graph, rendered with no model."""
    import asyncio

    from thoughtgraph.solving import preview

    found = asyncio.run(preview.prompts_of(prepared))
    units = prepared.task.unit_names
    what = f"{graph} on this {prepared.task.name} problem ({len(prepared.problem)} {units})"
    if as_json:
        shown = {"task": prepared.task.name, **preview.as_json(found, routes)}
        typer.echo(json.dumps(shown, indent=1))
    else:
        typer.echo(preview.as_text(found, what, routes), nl=False)


def _short(items: Any, limit: int = 40) -> str:
    if isinstance(items, list) and len(items) > limit:
        return "[" + ", ".join(map(str, items[:limit])) + f", ... ({len(items)} items)]"
    return json.dumps(items) if not isinstance(items, str) else items


@app.command()
def graph(
    scheme: Annotated[str, typer.Argument(help=SCHEME_HELP)] = "got",
    task: Annotated[
        str,
        typer.Option(
            help="Task the graph is for: a name, package.module:Class, a plugin or a task file."
        ),
    ] = "sorting",
    size: Annotated[int, typer.Option(help="Input size the graph is built for.")] = 32,
    parts: Annotated[int | None, typer.Option(help="Number of parts (got, got_paper).")] = None,
    fmt: Annotated[str, typer.Option("--format", help="json, yaml, mermaid or dot.")] = "json",
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="One JSON object: the graph (its file form) and its worst case (the most "
            "requests, calls and answers its caps allow), instead of --format.",
        ),
    ] = False,
) -> None:
    """Print the graph of operations a scheme builds for a task and size, before any call."""
    from thoughtgraph.tasks import get_task
    from thoughtgraph.viewer import drawing

    the_task = get_task(task)
    if fmt not in ("json", "yaml", "mermaid", "dot"):
        raise InputError(f"unknown --format {shown(fmt)} (json, yaml, mermaid, dot)")
    if scheme not in SCHEMES:  # a variant (its parse says so, or what it is not)
        variant = variants.parse(scheme, the_task.name)
        if parts is not None:
            raise InputError(
                f"--parts applies to a plain got or got_paper; {shown(scheme)} sets its own"
            )
        built = variant.build(the_task, size)
    elif parts is not None and scheme not in (*schemes.SPEC_PATTERNS, "got_paper"):
        raise InputError(
            f"--parts applies to the got, got_adaptive and got_paper schemes, not {shown(scheme)}"
        )
    else:
        built = schemes.build(scheme, the_task.name, size, parts=parts)
    if as_json:
        bound = built.worst_case()
        report = {
            "scheme": scheme,
            "task": the_task.name,
            "size": size,
            "worst_case": None if bound is None else bound.to_dict(),
            "graph": built.to_dict(),
        }
        typer.echo(json.dumps(report, indent=2))
        return
    drawn = {"mermaid": drawing.mermaid, "dot": drawing.dot}
    text = (
        drawn[fmt](built) if fmt in drawn else built.to_yaml() if fmt == "yaml" else built.to_json()
    )
    typer.echo(text, nl=not text.endswith("\n"))


@app.command()
def schema(
    what: Annotated[
        str, typer.Argument(help="graph (graph files) or task (task files).")
    ] = "graph",
) -> None:
    """Print the JSON Schema of graph files (`schema`) or of task files (`schema task`)."""
    if what == "graph":
        from thoughtgraph.engine.graph import json_schema

        typer.echo(json.dumps(json_schema(), indent=2))
    elif what == "task":
        from thoughtgraph.tasks.taskfile import task_file_schema

        typer.echo(json.dumps(task_file_schema(), indent=2))
    else:
        raise InputError(f"unknown schema {shown(what)} (graph, task)")


class _Notes(logging.Handler):
    """The library's warnings (an endpoint that seems to queue requests, ...) as `note:` lines
    on stderr, without `-v` (eval and tune have none); `-v` shows every log line instead.
    The stream is looked up at each line: a live view (or a test) may have replaced it."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(f"note: {secrets.clean_line(record.getMessage())}\n")
        except Exception:  # a malformed log call, a closed stream: logging's own way
            self.handleError(record)


_NOTES = _Notes()


def _show_notes(shown: bool) -> None:
    """Show the library's warnings as notes (`main`), or leave them to `-v`'s log lines."""
    library = logging.getLogger("thoughtgraph")
    if shown:
        library.addHandler(_NOTES)  # once: a handler already there is not added again
    else:
        library.removeHandler(_NOTES)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app and turn every user error into one line and exit code 2."""
    for stream in (sys.stdout, sys.stderr):  # a console that cannot show "→" gets "?", not a crash
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    _show_notes(True)
    command = typer.main.get_command(app)
    try:
        code = command.main(args=argv, prog_name="thoughtgraph", standalone_mode=False)
    except ThoughtgraphError as exc:
        _fail(str(exc))
    except (Exit, SystemExit) as exc:
        raise SystemExit(getattr(exc, "exit_code", getattr(exc, "code", 0)) or 0) from None
    except Abort:
        _fail("aborted", 130)
    except KeyboardInterrupt:
        _fail("interrupted", 130)
    except OSError as exc:  # the machine, not the input: a full disk, a read-only folder
        _fail(_os_error(exc))
    except TyperException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `thoughtgraph`: show the help
            sys.stdout.write(exc.format_message() + "\n")
            raise SystemExit(0) from None
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        _fail(" ".join(message.split()), getattr(exc, "exit_code", 2))
    raise SystemExit(code if isinstance(code, int) else 0)


def _os_error(exc: OSError) -> str:
    """One line for a file the system would not let us read or write (no traceback: nothing
    the user typed is wrong, and what they need is the file and the reason)."""
    reason = exc.strerror or type(exc).__name__
    where = f" {shown(str(exc.filename))}" if exc.filename is not None else ""
    return f"cannot use{where}: {reason}"


def _fail(message: str, code: int = 2) -> None:
    sys.stderr.write(f"error: {secrets.clean_line(message)}\n")
    raise SystemExit(code)


if __name__ == "__main__":
    main()
