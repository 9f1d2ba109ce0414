"""`thoughtgraph eval`: the paper's comparison on a dataset, resumable, with reports and plots."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Coroutine
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import typer

from thoughtgraph.cli import options as opt
from thoughtgraph.errors import InputError, shown
from thoughtgraph.spend.budget import Amounts, Budget, check_whole, share

TYPE_CHECKING = False
if TYPE_CHECKING:  # the rest loads when the command runs: `--help` stays fast
    from thoughtgraph.engine.options import RunOptions
    from thoughtgraph.evaluation.runner import EvalPlan, PairResult

DEFAULT_SCHEMES = "io,cot,tot,tot2,got,got_paper"


def eval_command(
    task: Annotated[str, typer.Argument(help="Task name, e.g. sorting.")],
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
    base_url: opt.BaseUrl = None,
    api_key_env: opt.ApiKeyEnv = None,
    temperature: opt.Temperature = None,
    max_completion_tokens: opt.MaxCompletionTokens = None,
    timeout: opt.Timeout = None,
    max_retries: opt.MaxRetries = None,
    max_response_bytes: opt.MaxResponseBytes = None,
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
    (errors.png/svg; scores.png/svg for doc-merge)."""
    import asyncio

    from thoughtgraph.engine.options import RunOptions
    from thoughtgraph.evaluation.api import load_graphs
    from thoughtgraph.evaluation.datasets import load_data
    from thoughtgraph.evaluation.lock import hold_folder_lock
    from thoughtgraph.evaluation.ray_backend import (  # ray itself only with --ray
        check_address,
        pairs_on,
    )
    from thoughtgraph.evaluation.report import write_reports
    from thoughtgraph.evaluation.runner import check_folder, plan, sized
    from thoughtgraph.models.base import shown_name
    from thoughtgraph.models.flags import model_flags, model_from_flags
    from thoughtgraph.schemes.variants import split_list

    names = split_list(schemes)
    sizes = parse_sizes(size)
    if len(sizes) > 1 and dataset is not None:
        raise InputError("--dataset names one size: give either --dataset or several --size")
    if data is not None and (size is not None or dataset is not None):
        raise InputError("--data holds its own problems: give --data or --dataset/--size, not both")
    if input_column != "input" and data is None:
        raise InputError("--input-column names a column of --data: give --data too")
    rows = load_graphs(graph or [])
    mine = None if data is None else load_data(data, task, input_column)
    plans = [
        plan(
            task,
            32 if s is None else s,
            names,
            samples,
            dataset,
            data=mine,
            graphs=rows,
            repeats=repeats,
        )
        for s in sizes
    ]
    if prompts is not None:
        texts = prompt_texts(prompts, plans)
        plans = [replace(p, prompts=tuple(sorted(texts.items()))) for p in plans]
    for the_plan, wanted in zip(plans, sizes, strict=True):
        if wanted is not None and the_plan.size != wanted:
            raise InputError(
                f"--size {wanted} does not match dataset {the_plan.dataset} "
                f"(size {the_plan.size}); give one of them"
            )
    if len({p.dataset for p in plans}) < len(plans):
        raise InputError(f"{task} has one dataset: give one --size at most")
    check_whole("--parallel", parallel, 1, flags=True)
    pairs = concurrency if parallel is None else parallel
    if ray is not None and repeats > 1:
        raise InputError("--repeats is not run by pairs with --ray yet; drop one of them")
    if ray is not None and traces:
        raise InputError("--traces is not written by pairs run with --ray yet; drop one of them")
    if ray is not None:
        check_address(ray)  # one line naming the extra or the bad address, before anything runs
    options = RunOptions(
        concurrency=concurrency,
        max_requests=max_requests,
        max_tokens=max_tokens,
        max_cost=max_cost,
        price_in=price_in,
        price_out=price_out,
        cache=cache,
        rpm=rpm,
        tpm=tpm,
        flags=True,
        order=order,
    )
    lm = model_from_flags(
        model,
        model_flags(
            base_url,
            api_key_env,
            temperature,
            max_completion_tokens,
            timeout,
            max_retries,
            max_response_bytes,
        ),
    )
    options.price(lm.name)  # refuse a cost cap without a price now, before the banner
    budget = options.budget
    the_task = plans[0].task
    root = out or Path("runs") / (
        f"eval-{the_task}-{data.stem}"
        if data is not None
        else f"eval-{the_task}-{plans[0].size}"
        if len(plans) == 1
        else f"eval-{the_task}"
    )
    if len(plans) > 1 and root.exists() and not root.is_dir():
        raise InputError(f"--out {root} is a file, not a folder")
    folders = [root] if len(plans) == 1 else [root / f"size-{p.size}" for p in plans]
    for folder, the_plan in zip(folders, plans, strict=True):
        check_folder(folder, the_plan, lm.name)  # refuse a wrong folder before the lock makes it
    for folder in folders:
        hold_folder_lock(folder)  # one eval per folder: a second one refuses, not interleaves
    done = [check_folder(f, p, lm.name) for f, p in zip(folders, plans, strict=True)]
    available = len(plans[0].samples)
    if samples > available and data is None:  # a data file's rows are all run by default
        sys.stderr.write(
            f"note: dataset {plans[0].dataset} has {available} samples; "
            f"--samples {samples} clipped to {available}\n"
        )
    simulated = bool(getattr(lm, "simulated", False))
    label = shown_name(lm)
    note = (
        "Figures from the simulated model: they test the engine and the schemes, not any real "
        "model."
        if simulated
        else f"Model: {lm.name}."
    )
    show = progress and sys.stderr.isatty()
    openai = {
        "base_url": base_url,
        "api_key_env": api_key_env,
        "temperature": temperature,
        "max_tokens": max_completion_tokens,
    }
    outcomes: list[tuple[EvalPlan, Path, list[PairResult]]] = []
    for the_plan, folder, done_before in zip(plans, folders, done, strict=True):
        total = len(the_plan.schemes) * len(the_plan.samples) * the_plan.repeats
        times = f" x {the_plan.repeats} repeats" if the_plan.repeats > 1 else ""
        sys.stderr.write(
            f"eval {the_plan.task} on {the_plan.dataset}: {len(the_plan.schemes)} schemes x "
            f"{len(the_plan.samples)} samples{times}, {done_before} pairs already done; "
            f"model {label}\n"
        )
        if traces and done_before:
            sys.stderr.write(
                f"note: --traces writes the traces of the pairs run now; the {done_before} pairs "
                "already done keep none (a new --out traces every pair)\n"
            )
        run = Run(pairs, replace(options, **left(budget, outcomes)), total, done_before, show)
        with pairs_on(ray, the_plan, model, openai, pairs, run.options) as runner:
            results = asyncio.run(
                _unless_interrupted(
                    _run(
                        the_plan,
                        model if simulated else lm,
                        folder,
                        replace(run, runner=runner),
                        traces,
                    )
                )
            )
        if results is None:  # Ctrl-C: say what is kept, and how to go on
            kept = check_folder(folder, the_plan, lm.name)
            sys.stderr.write(
                f"error: interrupted: {kept} of {total} pairs kept in {folder / 'results.jsonl'} "
                "(run the same command again to resume)\n"
            )
            raise typer.Exit(130)
        written = write_reports(
            results,
            the_plan.schemes,
            the_plan.size,
            _title(the_plan, lm.name, simulated),
            note,
            folder,
            task=the_plan.task,
            panel_name="" if sized(the_plan.dataset) else the_plan.dataset,
        )
        if len(plans) == 1:
            typer.echo((folder / "summary.md").read_text())
        typer.echo("wrote " + ", ".join(str(p) for p in [folder / "results.jsonl", *written]))
        outcomes.append((the_plan, folder, results))
    if len(plans) > 1:
        title = _title(plans[0], lm.name, simulated, several=True)
        written = write_combined(outcomes, title, note, root)
        typer.echo((root / "summary.md").read_text())
        typer.echo("wrote " + ", ".join(str(p) for p in written))
    _finish(outcomes, budget)


def prompt_texts(path: Path, plans: list[EvalPlan]) -> dict[str, str]:
    """The texts of a prompts file (tune's format), checked against every prompt the plans'
    graphs send; a slot with several variants sends its first (a note says so)."""
    from thoughtgraph.evaluation.runner import prompt_slots
    from thoughtgraph.tuning.variants import load

    slots: dict[str, frozenset[str]] = {}
    for the_plan in plans:
        for slot, fills in prompt_slots(the_plan).items():
            slots[slot] = slots.get(slot, fills) & fills
    variants = load(path, slots)
    several = [slot for slot, named in variants.slots.items() if len(named) > 1]
    if several:
        sys.stderr.write(
            f"note: --prompts {path}: eval sends each slot's first variant "
            f"({', '.join(f'{s}: {next(iter(variants.slots[s]))}' for s in several)})\n"
        )
    return {slot: next(iter(named.values())) for slot, named in variants.slots.items()}


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


def left(budget: Budget, outcomes: list[tuple[EvalPlan, Path, list[PairResult]]]) -> dict[str, Any]:
    """What the whole evaluation's caps leave for the next size (the sizes run so far spent the
    rest; each size's own folder is counted by `evaluate`): `spend.budget.share` with one slot."""
    ran = [r for _p, _f, rs in outcomes for r in rs]
    spent = Amounts(
        sum(r.requests for r in ran), sum(r.tokens for r in ran), sum(r.cost for r in ran)
    )
    return share(budget, spent).to_dict()


def _title(the_plan: EvalPlan, model: str, simulated: bool, several: bool = False) -> str:
    from thoughtgraph.evaluation.runner import sized

    if several:
        what = the_plan.task
    elif sized(the_plan.dataset):
        what = f"{the_plan.task} {the_plan.size}"
    else:  # one dataset, no size to claim
        what = f"{the_plan.task} on {the_plan.dataset}"
    samples = f"{len(the_plan.samples)} samples"
    if the_plan.repeats > 1:
        samples += f" x {the_plan.repeats} repeats"
    if the_plan.data_sha256 is not None:
        what = f"{the_plan.task} on {the_plan.dataset}"
    return f"{what}: {samples}, model {model}" + (" (simulated)" if simulated else "")


def _finish(outcomes: list[tuple[EvalPlan, Path, list[PairResult]]], budget: Budget) -> None:
    """The figure note, the pairs the budget stopped or left out (exit 1), and the pairs that got
    no answer at all (exit 2)."""
    from thoughtgraph.evaluation import figures, statistics
    from thoughtgraph.evaluation.figures import INSTALL_HINT
    from thoughtgraph.evaluation.runner import incomplete, no_answer

    if not figures.available() and any(rs for _p, _f, rs in outcomes):
        typer.echo(
            f"note: no figure written: matplotlib is not installed ({INSTALL_HINT})", err=True
        )
    if not statistics.available() and any(rs for _p, _f, rs in outcomes):
        typer.echo(
            "note: no confidence intervals or paired tests: scipy is not installed "
            f"({statistics.INSTALL_HINT})",
            err=True,
        )
    caps = ", ".join(
        f"--{k.replace('_', '-')} {v}" for k, v in budget.to_dict().items() if v is not None
    )
    results = [r for _p, _f, rs in outcomes for r in rs]
    total = sum(len(p.schemes) * len(p.samples) * p.repeats for p, _f, _rs in outcomes)
    if not results:
        typer.echo(f"nothing ran: no pair fitted in {caps} (no plot written)", err=True)
        raise typer.Exit(1)
    stopped = [
        (p, r) for p, _f, rs in outcomes for r in incomplete(rs)
    ]  # the budget stopped them mid-run
    if stopped:
        which = _named(stopped, several=len(outcomes) > 1)
        typer.echo(
            f"{len(stopped)} pairs incomplete (stopped by the budget, {caps}): {which}", err=True
        )
    if len(results) < total:
        typer.echo(f"{total - len(results)} pairs not run (the budget ran out: {caps})", err=True)
    unrated = [(p, r) for p, _f, rs in outcomes for r in rs if r.unrated]
    if unrated:
        which = _named(unrated, several=len(outcomes) > 1)
        typer.echo(
            f"note: {len(unrated)} of {len(results)} pairs unrated: the model was asked to rate "
            "their final answer and no rating could be read from its replies (left out of the "
            f"medians and the figure, never counted as 0; --traces shows the replies): {which}",
            err=True,
        )
    unanswered = [(p, r) for p, _f, rs in outcomes for r in rs if no_answer(r)]
    if unanswered:
        which = _named(unanswered, several=len(outcomes) > 1)
        typer.echo(
            f"error: {len(unanswered)} of {len(results)} pairs got no answer from the model "
            f"(every request failed), so their figures measure the endpoint, not the model: "
            f"{which} (run the same command again to retry them)",
            err=True,
        )
        raise typer.Exit(2)
    if stopped or len(results) < total:
        raise typer.Exit(1)


def _named(pairs: list[tuple[EvalPlan, PairResult]], *, several: bool) -> str:
    """The pairs as `scheme#sample` (`@size` when the evaluation ran several sizes)."""
    return ", ".join(f"{r.scheme}#{r.sample}" + (f"@{p.size}" if several else "") for p, r in pairs)


async def _unless_interrupted(
    run: Coroutine[Any, Any, list[PairResult]],
) -> list[PairResult] | None:
    """The pairs' results, or None after Ctrl-C (the finished pairs are already on disk)."""
    import asyncio

    try:
        return await run
    except asyncio.CancelledError:
        return None


def write_combined(
    outcomes: list[tuple[EvalPlan, Path, list[PairResult]]], title: str, note: str, root: Path
) -> list[Path]:
    """The several-size evaluation's own summary.md / summary.csv (one table per size, trace
    links relative to `root`) and its figure: one panel per size, as in the paper."""
    from thoughtgraph.evaluation.figures import FigureMissing, Panel, write_figure
    from thoughtgraph.evaluation.report import (
        incomplete_section,
        pair_rows,
        pairs_csv,
        pairs_section,
        repeats_section,
        runs_section,
        summarise,
        to_csv,
        to_markdown,
        totals_section,
    )
    from thoughtgraph.evaluation.runner import complete

    sections = [f"# {title}", "", note, ""]
    csv_lines: list[str] = []
    pair_lines: list[str] = []
    panels = []
    runs = []
    for the_plan, folder, results in outcomes:
        prefix = folder.relative_to(root).as_posix()
        linked = [replace(r, trace=f"{prefix}/{r.trace}") if r.trace else r for r in results]
        rows = summarise(complete(linked), the_plan.schemes, the_plan.task)
        table = to_markdown(rows, "", "", the_plan.task, the_plan.size).split("\n", 4)[4]
        table += incomplete_section(linked) + totals_section(linked)
        where = f"size {the_plan.size}"
        pairs = pair_rows(complete(results), the_plan.schemes, the_plan.task)
        table += repeats_section(rows, where) + pairs_section(pairs, the_plan.task, where)
        pair_lines += pairs_csv(pairs, the_plan.size).splitlines()[(1 if pair_lines else 0) :]
        sections += [
            f"## {the_plan.dataset} (size {the_plan.size}: [{prefix}/summary.md]"
            f"({prefix}/summary.md))",
            "",
            table,
        ]
        body = to_csv(rows, the_plan.task, the_plan.size).splitlines()
        if not csv_lines:
            csv_lines.append("size," + body[0])
        csv_lines += [f"{the_plan.size},{line}" for line in body[1:]]
        panels.append(Panel(the_plan.size, complete(results)))
        runs.append(runs_section(linked, the_plan.schemes, the_plan.task, f"size {the_plan.size}"))
    root.mkdir(parents=True, exist_ok=True)
    (root / "summary.md").write_text("\n".join(sections) + "".join(runs))
    (root / "summary.csv").write_text("\n".join(csv_lines) + "\n")
    written = [root / "summary.md", root / "summary.csv"]
    if len(pair_lines) > 1:
        (root / "pairs.csv").write_text("\n".join(pair_lines) + "\n")
        written.append(root / "pairs.csv")
    with contextlib.suppress(FigureMissing):  # the one-line note comes from _finish
        written += write_figure(panels, outcomes[0][0].schemes, outcomes[0][0].task, title, root)
    return written


@dataclass(frozen=True)
class Run:
    """How one size's pairs run: its options carry what the budget leaves for it."""

    parallel: int
    options: RunOptions
    total: int
    done_before: int
    show: bool
    runner: Any = None  # `--ray`: runs each pair on the cluster (evaluate.ray_backend)


async def _run(
    the_plan: EvalPlan, model: Any, folder: Path, run: Run, traces: bool
) -> list[PairResult]:
    from thoughtgraph.evaluation.runner import evaluate

    if not run.show:
        return await evaluate(
            the_plan,
            model,
            folder,
            parallel=run.parallel,
            options=run.options,
            traces=traces,
            pair_runner=run.runner,
        )
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
    ) as bar:
        job = bar.add_task(f"pairs ({the_plan.size})", total=run.total, completed=run.done_before)
        return await evaluate(
            the_plan,
            model,
            folder,
            parallel=run.parallel,
            options=run.options,
            traces=traces,
            pair_runner=run.runner,
            on_result=lambda _r: bar.advance(job),
        )
