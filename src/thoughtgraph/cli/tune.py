"""`thoughtgraph tune`: search a scheme's settings with Optuna for the best error-vs-cost graphs.

Only the options live here: they become the Python API's `TuneConfig` (`api/tuning.py`
`tune_config`) and `--ray` what runs the jobs, and the tune runs them (`tuning/run.py`), all
loaded when the command runs (so `thoughtgraph --help` stays light); Optuna (and Ray, for
`--ray`) are extras imported there.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from thoughtgraph.cli import options as opt


@opt.with_openai_flags
def tune_command(
    task: opt.Task,
    dataset: Annotated[
        str | None, typer.Option(help="Dataset (default: the task's at --size).")
    ] = None,
    size: Annotated[
        int | None, typer.Option(help="Problem size (picks the dataset; default 32).")
    ] = None,
    data: opt.Data = None,
    input_column: opt.InputColumn = "input",
    model: opt.Model = "sim",
    model_for: opt.ModelFor = None,
    models: Annotated[
        list[str] | None,
        typer.Option(
            "--models",
            metavar="NAME=SPEC,...",
            help="Candidate models: each trial chooses, for each kind of call its graph makes "
            "(part, merge, refine, ...), which of them answers it, so the front holds the "
            "cheapest mix at each error (with prices and --cost usd), e.g. "
            "small=openai:a@http://127.0.0.1:8001/v1,big=openai:b@http://127.0.0.1:8002/v1.",
        ),
    ] = None,
    trials: Annotated[int, typer.Option(help="Complete trials wanted (earlier runs count).")] = 30,
    schemes: Annotated[
        str, typer.Option(help="Schemes to search, comma-separated: got, got_paper, tot, top.")
    ] = "got,got_paper",
    cost: Annotated[
        str, typer.Option(help="Cost objective per sample: completions, tokens or usd.")
    ] = "completions",
    pilot: Annotated[int, typer.Option(help="Samples of the tuning split (the first N).")] = 10,
    holdout: Annotated[
        int, typer.Option(help="Samples of the held-out split (the next M) for the report.")
    ] = 20,
    target: Annotated[
        float | None,
        typer.Option(
            help="Error the pick must meet; on a model-scored task, the model rating it must "
            "reach (default: the default got's on the tuning split)."
        ),
    ] = None,
    parallel: Annotated[int, typer.Option(help="Trials run at once (one batch).")] = 4,
    concurrency: Annotated[int, typer.Option(help="Model calls in flight per pair.")] = 16,
    report_max: Annotated[
        int, typer.Option(help="Most front graphs run on the held-out split and written.")
    ] = 6,
    seed: Annotated[int, typer.Option(help="Seed of Optuna's sampler.")] = 0,
    out: Annotated[
        Path | None, typer.Option(help="Output folder (default runs/tune-TASK-SIZE).")
    ] = None,
    cache_dir: Annotated[
        Path | None,
        typer.Option(
            help="Answer caches, one SQLite file per graph (default OUT/cache for a real model; "
            "none for sim)."
        ),
    ] = None,
    max_requests: Annotated[
        int | None,
        typer.Option(
            "--max-requests",
            "--max-calls",
            help="HTTP requests for the whole tune (trials and report; retries and parallel "
            "singles count). --max-calls is its older name.",
        ),
    ] = None,
    max_tokens: Annotated[int | None, typer.Option(help="Paid tokens for the whole tune.")] = None,
    max_cost: Annotated[
        float | None, typer.Option(help="USD for the whole tune (needs a price).")
    ] = None,
    price_in: opt.PriceIn = None,
    price_out: opt.PriceOut = None,
    rpm: Annotated[float | None, typer.Option(help="Requests per minute (per process).")] = None,
    tpm: Annotated[float | None, typer.Option(help="Tokens per minute (per process).")] = None,
    openai: opt.OpenAIFlags = opt.NO_OPENAI_FLAGS,  # --base-url ... --max-response-bytes
    prompts: Annotated[
        Path | None,
        typer.Option(
            help="YAML/JSON file of prompt variants per slot (part, merge, ...): one more choice "
            "per slot (docs/tuning.md)."
        ),
    ] = None,
    propose: Annotated[
        int,
        typer.Option(
            help="The model writes N rewrites of each prompt slot's template (before the first "
            "trial, and again with the best and worst so far at half the trials), searched with "
            "the others, within the tune's budget (docs/tuning.md; 0: none)."
        ),
    ] = 0,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            help="Run trials as Ray tasks: 'local' starts a cluster here, else auto or HOST:PORT.",
        ),
    ] = None,
) -> None:
    """Search graph settings on a tuning split; report the Pareto front on a held-out split."""
    from thoughtgraph.api.tuning import TuneOptions, tune_config
    from thoughtgraph.modelspec import parse_model_for
    from thoughtgraph.scale.ray_backend import job_backend
    from thoughtgraph.tuning.config import parse_candidates
    from thoughtgraph.tuning.run import run_tune

    data_given, config = tune_config(
        data,
        TuneOptions(
            schemes=schemes,
            model=model,
            trials=trials,
            pilot=pilot,
            holdout=holdout,
            cost=cost,
            size=size,
            dataset=dataset,
            input_column=input_column,
            target=target,
            parallel=parallel,
            concurrency=concurrency,
            report_max=report_max,
            seed=seed,
            out=out,
            cache_dir=cache_dir,
            max_requests=max_requests,
            max_tokens=max_tokens,
            max_cost=max_cost,
            price_in=price_in,
            price_out=price_out,
            rpm=rpm,
            tpm=tpm,
            prompts=prompts,
            propose=propose,
            quiet=False,
            model_options=asdict(openai),
            models=parse_model_for(tuple(model_for or ())),
            candidates=parse_candidates(tuple(models or ())),
        ),
    )
    outcome = run_tune(task, data_given, config, job_backend(ray))
    typer.echo(outcome.text)
    typer.echo("wrote " + ", ".join(str(p) for p in outcome.files))
    if not outcome.plotted:
        typer.echo(
            "no plot: pip install 'thoughtgraph[plot]' for pareto.png (from a clone: "
            "pip install -e '.[plot]')",
            err=True,
        )
    if outcome.stop:
        typer.echo(f"stopped after {outcome.trials} trials: {outcome.stop}", err=True)
        raise typer.Exit(1)
