"""`thoughtgraph eval`: the paper's comparison on a dataset, resumable, with reports and plots.

A thin layer over `thoughtgraph.evaluate` (api/evaluation.py), which does all of it: this
module parses the options, calls it, and prints what it hears (the banner of each size, notes,
a progress bar on a terminal, the summaries and the files written) and how it ended (exit 1:
the budget stopped or left out pairs; 2: pairs got no answer; 130: Ctrl-C).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from thoughtgraph.cli import options as opt
from thoughtgraph.errors import InputError, shown

TYPE_CHECKING = False
if TYPE_CHECKING:  # the rest loads when the command runs: `--help` stays fast
    from thoughtgraph.evaluation.results import EvalResults
    from thoughtgraph.evaluation.runner import EvalPlan
    from thoughtgraph.evaluation.session import EvalEvent

DEFAULT_SCHEMES = "io,cot,tot,tot2,got,got_paper"


@opt.with_openai_flags
def eval_command(
    task: opt.Task,
    size: Annotated[
        str | None,
        typer.Option(
            help="Problem size(s), comma-separated (picks the dataset, e.g. 32 -> sorting_032; "
            "default 32). Several sizes give one figure with a panel per size."
        ),
    ] = None,
    schemes: Annotated[
        str,
        typer.Option(
            help="Comma-separated schemes; a scheme with settings of yours, e.g. "
            "got_paper:parts=8 (parts=size: one part per item); the paper's variants got4, got8, "
            "gotx (keyword-counting) and got2 (doc-merge). '' for none (only --graph)."
        ),
    ] = DEFAULT_SCHEMES,
    graph: Annotated[
        list[Path] | None,
        typer.Option(
            "--graph",
            help="A graph file (JSON/YAML, e.g. tune's best.yaml) run beside the schemes, as a "
            "row named after the file (or its name:). Repeatable.",
        ),
    ] = None,
    samples: Annotated[int, typer.Option(help="First N samples of the dataset.")] = 100,
    repeats: Annotated[
        int,
        typer.Option(
            help="Runs of every (scheme, sample), each with its own seed: the simulated model's "
            "seed + repeat, another model's fresh sample at its --temperature. The summary then "
            "reports the spread across repeats."
        ),
    ] = 1,
    dataset: Annotated[
        str | None, typer.Option(help="Dataset name (default: the task's at --size).")
    ] = None,
    data: opt.Data = None,
    input_column: opt.InputColumn = "input",
    model: opt.Model = "sim",
    model_for: opt.ModelFor = None,
    prompts: Annotated[
        Path | None,
        typer.Option(
            help="Prompt texts to send instead of the built-in ones: a file in tune's --prompts "
            "format (YAML or JSON; each slot's first variant is used). Their hash is in every "
            "row and the texts in eval.json."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Output folder (default runs/eval-TASK-SIZE; with several sizes runs/eval-TASK "
            "holding one folder per size)."
        ),
    ] = None,
    parallel: Annotated[
        int | None,
        typer.Option(
            help="Most (scheme, sample) pairs running at once (default: --concurrency, so that "
            "--concurrency decides the requests in flight; a pair waiting for a request slot "
            "costs nothing). Set it lower to bound memory or, with --ray, the remote tasks."
        ),
    ] = None,
    concurrency: Annotated[
        int,
        typer.Option(help="Model calls in flight at once, shared by all pairs (not per pair)."),
    ] = 16,
    order: opt.Order = "auto",
    max_requests: Annotated[
        int | None,
        typer.Option(
            "--max-requests",
            "--max-calls",
            help="HTTP requests for the whole evaluation, shared by all pairs (retries and "
            "parallel singles count; cached answers do not). --max-calls is its older name.",
        ),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(help="Paid tokens for the whole evaluation, shared by all pairs."),
    ] = None,
    max_cost: Annotated[
        float | None,
        typer.Option(help="USD for the whole evaluation, shared by all pairs (needs a price)."),
    ] = None,
    openai: opt.OpenAIFlags = opt.NO_OPENAI_FLAGS,  # --base-url ... --max-response-bytes
    cache: opt.Cache = None,
    rpm: Annotated[
        float | None, typer.Option(help="Requests per minute, shared by every pair.")
    ] = None,
    tpm: Annotated[
        float | None, typer.Option(help="Tokens per minute, shared by every pair.")
    ] = None,
    price_in: opt.PriceIn = None,
    price_out: opt.PriceOut = None,
    traces: Annotated[
        bool,
        typer.Option(
            "--traces",
            help="Write each (scheme, sample) run's trace to OUT/traces/, linked from summary.md "
            "(open one with `thoughtgraph trace view OUT --row N`).",
        ),
    ] = False,
    figure: Annotated[
        bool,
        typer.Option(
            help="Write the figure (errors.png/svg; scores.png/svg for a task the model rates; "
            "needs matplotlib). --no-figure: the summaries only, without the second or so that "
            "drawing takes; an older figure in OUT is removed (it would contradict them).",
        ),
    ] = True,
    progress: Annotated[
        bool, typer.Option(help="Progress bar on stderr (only when it is a terminal).")
    ] = True,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            help="Run pairs as Ray tasks: 'local' starts a cluster here, else auto or HOST:PORT.",
        ),
    ] = None,
) -> None:
    """Run every (scheme, sample) pair, then write results.jsonl, summary.md/csv and the figure
    (errors.png/svg; scores.png/svg for a task the model rates)."""
    from thoughtgraph.api.evaluation import evaluate
    from thoughtgraph.evaluation.results import EvalSizes
    from thoughtgraph.evaluation.session import EvalInterrupted
    from thoughtgraph.modelspec import model_options, parse_model_for

    sizes = parse_sizes(size)
    routed = parse_model_for(tuple(model_for or ()), None)  # checked once the graphs are read
    # the flags' own errors name the flags
    checked = model_options(model, openai.by_flag(), others=tuple(routed.values()))
    printer = Printer(show=progress and sys.stderr.isatty(), several=len(sizes) > 1)
    try:
        found = evaluate(
            task,
            data,
            sizes=None if len(sizes) == 1 else [s for s in sizes if s is not None],
            size=sizes[0] if len(sizes) == 1 else None,
            dataset=dataset,
            schemes=schemes,
            graphs=graph or [],
            samples=samples,
            repeats=repeats,
            prompts=prompts,
            input_column=input_column,
            model=model,
            model_options=checked,
            models=routed or None,
            out=out or default_out(task, sizes, dataset, data),
            parallel=parallel,
            concurrency=concurrency,
            order=order,
            max_requests=max_requests,
            max_tokens=max_tokens,
            max_cost=max_cost,
            price_in=price_in,
            price_out=price_out,
            cache=cache,
            rpm=rpm,
            tpm=tpm,
            traces=traces,
            figure=figure,
            ray=ray,
            on_result=printer.advance,
            on_event=printer.hear,
            flags=True,
        )
    except EvalInterrupted as stopped:  # Ctrl-C: say what is kept, and how to go on
        sys.stderr.write(f"error: {stopped} (run the same command again to resume)\n")
        raise typer.Exit(130) from None
    finally:
        printer.stop()
    if isinstance(found, EvalSizes):
        assert found.folder is not None
        typer.echo((found.folder / "summary.md").read_text())
        typer.echo("wrote " + ", ".join(str(p) for p in found.files))
        parts = found.parts
    else:
        parts = [found]
    caps = {"max_requests": max_requests, "max_tokens": max_tokens, "max_cost": max_cost}
    _finish(parts, caps, figure)


def default_out(task: str, sizes: list[int | None], dataset: str | None, data: Path | None) -> Path:
    """runs/eval-TASK-SIZE (one size), runs/eval-TASK-DATA (a data file), runs/eval-TASK
    (several sizes: a folder per size inside)."""
    from thoughtgraph.evaluation.runner import dataset_size
    from thoughtgraph.tasks import get_task

    name = get_task(task).name
    if data is not None:
        return Path("runs") / f"eval-{name}-{data.stem}"
    if len(sizes) > 1:
        return Path("runs") / f"eval-{name}"
    wanted = sizes[0] or 32
    return Path("runs") / f"eval-{name}-{dataset_size(dataset or '', wanted)}"


class Printer:
    """What `eval` prints as the evaluation tells it: each size's banner, notes, a progress bar
    (on a terminal), and for one size its summary and the files written."""

    def __init__(self, show: bool, several: bool) -> None:
        self.show = show
        self.several = several
        self.bar: Any = None
        self.job: Any = None

    def hear(self, event: EvalEvent) -> None:
        from thoughtgraph.evaluation.session import Note, SizeDone, SizeStarting

        if isinstance(event, Note):
            sys.stderr.write(f"note: {event.text}\n")
        elif isinstance(event, SizeStarting):
            the_plan = event.plan
            times = f" x {the_plan.repeats} repeats" if the_plan.repeats > 1 else ""
            sys.stderr.write(
                f"eval {the_plan.task} on {the_plan.dataset}: {len(the_plan.schemes)} schemes x "
                f"{len(the_plan.samples)} samples{times}, {event.done_before} pairs already "
                f"done; model {event.model}\n"
            )
            sys.stderr.write(f"worst case a sample: {worst_cases(the_plan)}\n")
            self.start(f"pairs ({shown_size(the_plan)})", event.total, event.done_before)
        elif isinstance(event, SizeDone):
            self.stop()
            self.done(event.results)

    def done(self, results: EvalResults) -> None:
        assert results.folder is not None  # the command always gives a folder
        if not self.several:
            typer.echo((results.folder / "summary.md").read_text())
        typer.echo("wrote " + ", ".join(str(p) for p in results.files))

    def start(self, label: str, total: int, done: int) -> None:
        if not self.show:
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        self.bar = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
        )
        self.bar.start()
        self.job = self.bar.add_task(label, total=total, completed=done)

    def advance(self, _pair: Any) -> None:
        if self.bar is not None:
            self.bar.advance(self.job)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def shown_size(the_plan: EvalPlan) -> str:
    """The plan's problem size as the reports show it (a data file's rows: least-most)."""
    from thoughtgraph.evaluation.measures import size_shown
    from thoughtgraph.evaluation.runner import problem_sizes

    sizes = problem_sizes(the_plan)
    return size_shown(the_plan.size, (sizes[0], sizes[-1]), the_plan.from_data)


def parse_sizes(text: str | None) -> list[int | None]:
    """`--size 32,64,128` -> [32, 64, 128]; no --size -> [None] (the task's default)."""
    if text is None:
        return [None]
    sizes: list[int | None] = []
    for part in text.split(","):
        try:
            value = int(part.strip())
        except ValueError:
            raise InputError(
                f"--size must be whole numbers separated by commas, got {shown(text)}"
            ) from None
        if value < 1:
            raise InputError(f"--size must be at least 1, got {value}")
        if value not in sizes:
            sizes.append(value)
    return sizes


def _finish(parts: list[EvalResults], caps: dict[str, Any], figure: bool) -> None:
    """The figure note (when one was wanted), the pairs the budget stopped or left out (exit 1),
    and the pairs that got no answer at all (exit 2)."""
    from thoughtgraph.evaluation import figures, statistics
    from thoughtgraph.evaluation.figures import INSTALL_HINT

    if figure and not figures.available() and any(p.results for p in parts):
        typer.echo(
            f"note: no figure written: matplotlib is not installed ({INSTALL_HINT})", err=True
        )
    if not statistics.available() and any(p.results for p in parts):
        typer.echo(
            "note: no confidence intervals or paired tests: scipy is not installed "
            f"({statistics.INSTALL_HINT})",
            err=True,
        )
    given = ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in caps.items() if v is not None)
    results = [r for p in parts for r in p.results]
    total = sum(p.planned for p in parts)
    if not results:
        typer.echo(f"nothing ran: no pair fitted in {given} (no plot written)", err=True)
        raise typer.Exit(1)

    def which(found: list[tuple[EvalResults, Any]]) -> str:
        return ", ".join(
            f"{r.scheme}#{r.sample}" + (f"@{p.size}" if len(parts) > 1 else "") for p, r in found
        )

    stopped = [(p, r) for p in parts for r in p.incomplete]  # the budget stopped them mid-run
    if stopped:
        typer.echo(
            f"{len(stopped)} pairs incomplete (stopped by the budget, {given}): {which(stopped)}",
            err=True,
        )
    if len(results) < total:
        typer.echo(f"{total - len(results)} pairs not run (the budget ran out: {given})", err=True)
    unrated = [(p, r) for p in parts for r in p.results if r.unrated]
    if unrated:
        typer.echo(
            f"note: {len(unrated)} of {len(results)} pairs unrated: the model was asked to rate "
            "their final answer and no rating could be read from its replies (left out of the "
            f"medians and the figure, never counted as 0; --traces shows the replies): "
            f"{which(unrated)}",
            err=True,
        )
    unanswered = [(p, r) for p in parts for r in p.unanswered]
    if unanswered:
        typer.echo(
            f"error: {len(unanswered)} of {len(results)} pairs got no answer from the model "
            "(every request failed or raised), so they are counted apart (no_answer), left out "
            "of the medians, intervals, pairs and the figure, and not solved: "
            f"{which(unanswered)} (run the same command again to retry them)",
            err=True,
        )
        raise typer.Exit(2)
    if stopped or len(results) < total:
        raise typer.Exit(1)


def worst_cases(the_plan: Any) -> str:
    """Each row's worst case a sample, before any call: `got 40 · got_adaptive 232 requests`."""
    shown = []
    for row in the_plan.schemes:
        bound = the_plan.worst_case(row)
        shown.append(f"{row} {'unknown' if bound is None else f'{bound.requests:,}'}")
    return " · ".join(shown) + " requests (retries aside)"
