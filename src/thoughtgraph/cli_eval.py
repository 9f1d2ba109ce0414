"""`thoughtgraph eval`: the paper's comparison on a dataset, resumable, with reports and plots."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Annotated, Any

import typer

from .errors import InputError
from .evaluate.lock import hold_folder_lock
from .evaluate.report import write_reports
from .evaluate.runner import (
    PairResult,
    check_folder,
    evaluate,
    incomplete,
    plan,
    sized,
)
from .models.flags import model_from_flags
from .options import RunOptions, check_whole

DEFAULT_SCHEMES = "io,cot,tot,tot2,got,got_paper"


def eval_command(
    task: Annotated[str, typer.Argument(help="Task name, e.g. sorting.")],
    size: Annotated[
        int | None,
        typer.Option(help="Problem size (picks the dataset, e.g. 32 -> sorting_032; default 32)."),
    ] = None,
    schemes: Annotated[str, typer.Option(help="Comma-separated schemes.")] = DEFAULT_SCHEMES,
    samples: Annotated[int, typer.Option(help="First N samples of the dataset.")] = 100,
    dataset: Annotated[
        str | None, typer.Option(help="Dataset name (default: the task's at --size).")
    ] = None,
    model: Annotated[
        str, typer.Option("--model", "-m", help="Model spec (default: the simulated model).")
    ] = "sim",
    out: Annotated[
        Path | None, typer.Option(help="Output folder (default runs/eval-TASK-SIZE).")
    ] = None,
    parallel: Annotated[int, typer.Option(help="(scheme, sample) pairs running at once.")] = 8,
    concurrency: Annotated[
        int,
        typer.Option(help="Model calls in flight at once, shared by all pairs (not per pair)."),
    ] = 16,
    max_calls: Annotated[
        int | None,
        typer.Option(
            help="HTTP requests for the whole evaluation, shared by all pairs (retries and "
            "parallel singles count; cached answers do not)."
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
    base_url: Annotated[
        str | None, typer.Option(help="openai: endpoint (default $OPENAI_BASE_URL).")
    ] = None,
    api_key_env: Annotated[
        str | None, typer.Option(help="openai: variable holding the key (default OPENAI_API_KEY).")
    ] = None,
    temperature: Annotated[float | None, typer.Option(help="openai: sampling temperature.")] = None,
    max_completion_tokens: Annotated[
        int | None, typer.Option(help="openai: most tokens per answer.")
    ] = None,
    cache: Annotated[
        Path | None,
        typer.Option(help="Answer cache (SQLite): nothing is paid twice across reruns."),
    ] = None,
    rpm: Annotated[
        float | None, typer.Option(help="Requests per minute, shared by every pair.")
    ] = None,
    tpm: Annotated[
        float | None, typer.Option(help="Tokens per minute, shared by every pair.")
    ] = None,
    price_in: Annotated[float | None, typer.Option(help="USD per million prompt tokens.")] = None,
    price_out: Annotated[
        float | None, typer.Option(help="USD per million completion tokens.")
    ] = None,
    progress: Annotated[
        bool, typer.Option(help="Progress bar on stderr (only when it is a terminal).")
    ] = True,
) -> None:
    """Run every (scheme, sample) pair, then write results.jsonl, summary.md/csv and the plots."""
    names = list(dict.fromkeys(s.strip() for s in schemes.split(",") if s.strip()))
    the_plan = plan(task, 32 if size is None else size, names, samples, dataset)
    if size is not None and the_plan.size != size:
        raise InputError(
            f"--size {size} does not match dataset {the_plan.dataset} "
            f"(size {the_plan.size}); give one of them"
        )
    check_whole("--parallel", parallel, 1, required=True, flags=True)
    options = RunOptions(
        concurrency, max_calls, max_tokens, max_cost, price_in, price_out, cache, rpm, tpm, True
    )
    lm = model_from_flags(
        model,
        {
            "--base-url": base_url,
            "--api-key-env": api_key_env,
            "--temperature": temperature,
            "--max-completion-tokens": max_completion_tokens,
        },
    )
    options.price(lm.name)  # refuse a cost cap without a price now, before the banner
    budget = {"max_calls": max_calls, "max_tokens": max_tokens, "max_cost": max_cost}
    folder = out or Path("runs") / f"eval-{the_plan.task}-{the_plan.size}"
    check_folder(folder, the_plan, lm.name)  # refuse a wrong folder before the lock creates it
    hold_folder_lock(folder)  # one eval per folder: a second one refuses instead of interleaving
    done_before = check_folder(folder, the_plan, lm.name)  # every option is valid past here
    total = len(the_plan.schemes) * len(the_plan.samples)
    available = len(the_plan.samples)
    if samples > available:
        sys.stderr.write(
            f"note: dataset {the_plan.dataset} has {available} samples; "
            f"--samples {samples} clipped to {available}\n"
        )
    simulated = bool(getattr(lm, "simulated", False))
    label = (
        f"{lm.name} (SIMULATED: the built-in offline stand-in, not a real LLM)"
        if simulated
        else lm.name
    )
    sys.stderr.write(
        f"eval {the_plan.task} on {the_plan.dataset}: {len(the_plan.schemes)} schemes x "
        f"{available} samples, {done_before} pairs already done; model {label}\n"
    )
    show = progress and sys.stderr.isatty()
    results = asyncio.run(
        _unless_interrupted(
            _run(
                the_plan,
                model if simulated else lm,
                folder,
                parallel,
                total,
                done_before,
                show,
                options,
            )
        )
    )
    if results is None:  # Ctrl-C: say what is kept, and how to go on
        done = check_folder(folder, the_plan, lm.name)
        sys.stderr.write(
            f"error: interrupted: {done} of {total} pairs kept in {folder / 'results.jsonl'} "
            "(run the same command again to resume)\n"
        )
        raise typer.Exit(130)
    what = (
        f"{the_plan.task} {the_plan.size}"
        if sized(the_plan.dataset)
        else f"{the_plan.task} on {the_plan.dataset}"
    )  # one dataset, no size to claim
    title = f"{what}: {available} samples, model {lm.name}" + (" (simulated)" if simulated else "")
    note = (
        "Figures from the simulated model: they test the engine and the schemes, not any real "
        "model."
        if simulated
        else f"Model: {lm.name}."
    )
    written = write_reports(results, the_plan.schemes, the_plan.size, title, note, folder)
    typer.echo((folder / "summary.md").read_text())
    typer.echo("wrote " + ", ".join(str(p) for p in [folder / "results.jsonl", *written]))
    caps = ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in budget.items() if v is not None)
    if not results:
        typer.echo(f"nothing ran: no pair fitted in {caps} (no plot written)", err=True)
        raise typer.Exit(1)
    stopped = incomplete(results)
    if stopped:
        which = ", ".join(f"{r.scheme}#{r.sample}" for r in stopped)
        typer.echo(
            f"{len(stopped)} pairs incomplete (stopped by the budget, {caps}): {which}", err=True
        )
    if len(results) < total:
        typer.echo(f"{total - len(results)} pairs not run (the budget ran out: {caps})", err=True)
    if stopped or len(results) < total:
        raise typer.Exit(1)


async def _unless_interrupted(
    run: Coroutine[Any, Any, list[PairResult]],
) -> list[PairResult] | None:
    """The pairs' results, or None after Ctrl-C (the finished pairs are already on disk)."""
    try:
        return await run
    except asyncio.CancelledError:
        return None


async def _run(
    the_plan, model, folder, parallel, total, done_before, show, options
) -> list[PairResult]:
    if not show:
        return await evaluate(
            the_plan,
            model,
            folder,
            parallel=parallel,
            options=options,
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
        job = bar.add_task("pairs", total=total, completed=done_before)
        return await evaluate(
            the_plan,
            model,
            folder,
            parallel=parallel,
            options=options,
            on_result=lambda _r: bar.advance(job),
        )
