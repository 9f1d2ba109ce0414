"""The work of `thoughtgraph tune` (options in `cli/tune.py`): check, search, report, write.

Optuna (and Ray, for `--ray`) are extras, imported only inside these functions.
"""

from __future__ import annotations

import math
import sqlite3
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thoughtgraph.errors import InputError, shown
from thoughtgraph.evaluation.datasets import load_data, load_dataset
from thoughtgraph.evaluation.lock import hold_folder_lock, make_folder
from thoughtgraph.evaluation.measures import rating_text
from thoughtgraph.evaluation.prompt_variants import Variants
from thoughtgraph.evaluation.prompt_variants import load as load_variants
from thoughtgraph.evaluation.runner import EvalPlan, model_scored, plan
from thoughtgraph.spend.budget import Budget, check_priced
from thoughtgraph.tasks import get_task
from thoughtgraph.tuning import report, space
from thoughtgraph.tuning.backend import LOCAL_JOBS, JobBackend
from thoughtgraph.tuning.jobs import COST_METRICS, Job, Outcome, Setup, job_graph
from thoughtgraph.tuning.propose import Proposer, check_count
from thoughtgraph.tuning.study import (
    Backend,
    Ledger,
    completed,
    import_optuna,
    open_study,
    paid,
    record_report_run,
    recover,
    run_unique,
    tune_loop,
)


@dataclass
class TuneOutcome:
    """What a tune wrote and found: the report table's rows (front, pick, baselines), front.md's
    text, the files written, and why it stopped early (None: it ran every trial)."""

    folder: Path
    rows: list[report.Row]
    text: str
    files: list[Path]
    plotted: bool
    stop: str | None = None
    trials: int = 0
    notes: list[str] = field(default_factory=list)
    rating_scale: int | None = None  # a model-scored task: its rows' errors are rating
    # shortfalls (`report.Objective`)


def run_tune(*args: Any, **kwargs: Any) -> TuneOutcome:
    """`thoughtgraph tune` with its options as given (see `_run_tune`)."""
    try:
        return _run_tune(*args, **kwargs)
    except Exception as exc:
        reason = _database_error(exc)
        if reason is None:
            raise
        raise InputError(f"cannot write the tune's study (study.db in --out): {reason}") from None


def _database_error(exc: BaseException) -> str | None:
    """The SQLite error under an Optuna/SQLAlchemy one (a full disk, a read-only file), as one
    line; SQLAlchemy's own message adds the SQL statement and its parameters (13 lines)."""
    seen: BaseException | None = exc
    for _ in range(10):  # the chain is short; the bound only guards against cycles
        if seen is None:
            return None
        if isinstance(seen, sqlite3.Error):
            return " ".join(str(seen).split()) or type(seen).__name__
        seen = seen.__cause__ or seen.__context__ or getattr(seen, "orig", None)
    return None


def _run_tune(
    task: Any,
    dataset: Any,
    size: Any,
    model: Any,
    trials: Any,
    schemes: Any,
    cost: Any,
    pilot: Any,
    holdout: Any,
    target: Any,
    parallel: Any,
    concurrency: Any,
    report_max: Any,
    seed: Any,
    out: Any,
    cache_dir: Any,
    max_requests: Any,
    max_tokens: Any,
    max_cost: Any,
    price_in: Any,
    price_out: Any,
    rpm: Any,
    tpm: Any,
    base_url: Any,
    api_key_env: Any,
    temperature: Any,
    max_completion_tokens: Any,
    timeout: Any,
    max_retries: Any,
    backend: JobBackend = LOCAL_JOBS,
    prompts: Any = None,
    data: Any = None,
    input_column: str = "input",
    note: Callable[[str], None] | None = None,
    max_response_bytes: Any = None,
    propose: Any = 0,
) -> TuneOutcome:
    """`thoughtgraph tune` with its options as given: searches, writes the folder's files and
    returns what it found (the CLI prints it; `thoughtgraph.tune` returns it). `note` gets each
    progress line (default: stderr). Every mistake is one `ThoughtgraphError` line before any
    trial runs."""
    say = note or _note
    _check_counts(trials=trials, pilot=pilot, parallel=parallel, concurrency=concurrency)
    _check_counts(report_max=report_max)
    check_count(propose)
    if holdout < 0:
        raise InputError(f"--holdout must be 0 or more, got {holdout}")
    if cost not in COST_METRICS:
        raise InputError(f"--cost must be one of {', '.join(COST_METRICS)}, got {shown(cost)}")
    caps = Budget(max_requests, max_tokens, max_cost, flags=True)
    if not 0 <= seed < 2**32:  # Optuna's samplers (numpy) take 0 .. 2**32 - 1
        raise InputError(f"--seed must be between 0 and {2**32 - 1}, got {seed}")
    if target is not None and not (math.isfinite(target) and target >= 0):
        raise InputError(f"--target must be 0 or more, got {target}")
    names = space.check_schemes(schemes.split(","))
    if data is not None and (size is not None or dataset is not None):
        raise InputError("--data holds its own problems: give --data or --dataset/--size, not both")
    if input_column != "input" and data is None:
        raise InputError("--input-column names a column of --data: give --data too")
    mine = None if data is None else load_data(data, task, input_column)
    the_plan = plan(task, 32 if size is None else size, ["got"], 1, dataset, data=mine, check=False)
    if size is not None and the_plan.size != size:
        raise InputError(f"--size {size} does not match dataset {the_plan.dataset}")
    rows = load_dataset(the_plan.dataset) if mine is None else mine.samples
    if pilot + holdout > len(rows):
        raise InputError(
            f"--pilot {pilot} + --holdout {holdout} exceeds the {len(rows)} samples of "
            f"{the_plan.dataset}"
        )
    size_of, smallest = _items(the_plan, rows[: pilot + holdout])
    objective = report.Objective(
        rating_text(the_plan.task).scale if model_scored(the_plan.task) else None
    )
    if objective.scale is not None and target is not None and target > objective.scale:
        raise InputError(
            f"--target is the model rating the pick must reach on {the_plan.task} "
            f"(0-{objective.scale}), got {target}"
        )
    slots = space.prompt_slots(names, the_plan.task, size_of)
    variants = None if prompts is None else load_variants(prompts, slots)
    if propose and variants is None:
        variants = Variants({}, "")
    import_optuna()  # one line naming the extra, before anything is written
    backend.check()
    from thoughtgraph.models.base import shown_name
    from thoughtgraph.models.flags import OPENAI_FLAGS, model_flags
    from thoughtgraph.spend.pricing import price_for

    flags = model_flags(
        base_url,
        api_key_env,
        temperature,
        max_completion_tokens,
        timeout,
        max_retries,
        max_response_bytes,
    )
    lm, given = _model(model, flags, backend)
    price = price_for(lm.name, price_in, price_out)
    check_priced(caps, price, lm.name)
    if cost == "usd" and price is None:
        raise InputError(
            f"--cost usd needs a price: {lm.name} is not in the built-in table; "
            "give --price-in and --price-out (USD per million tokens)"
        )
    simulated = bool(getattr(lm, "simulated", False))
    folder = out or Path("runs") / (
        f"tune-{the_plan.task}-{Path(data).stem}"
        if data is not None
        else f"tune-{the_plan.task}-{the_plan.size}"
    )
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--out {folder} is a file, not a folder")
    # One tune per folder: a second one refuses at once instead of failing the first's trials.
    hold_folder_lock(folder, "tune")
    cache_path = cache_dir if cache_dir is not None else (None if simulated else folder / "cache")
    if cache_path is not None:
        if cache_path.exists() and not cache_path.is_dir():
            raise InputError(f"--cache-dir {cache_path} is a file, not a folder")
        make_folder(cache_path, "--cache-dir")
    setup = Setup(
        task=the_plan.task,
        size=size_of,
        model_spec=model if isinstance(model, str) else lm.name,
        model=given,
        model_options=tuple(
            sorted((OPENAI_FLAGS[f], v) for f, v in flags.items() if v is not None)
        ),
        concurrency=concurrency,
        cost_metric=cost,
        cache_dir=None if cache_path is None else str(cache_path),
        price_in=price_in,
        price_out=price_out,
        rpm=rpm,
        tpm=tpm,
        task_spec=the_plan.spec,
        rating_scale=objective.scale,
        from_data=data is not None,
    )
    tune_split, held_split = rows[:pilot], rows[pilot : pilot + holdout]
    manifest = {
        "task": the_plan.task,
        "dataset": the_plan.dataset,
        "size": size_of,
        "model": lm.name,
        "schemes": list(names),
        "cost": cost,
        "tune_samples": [s.id for s in tune_split],
        "holdout_samples": [s.id for s in held_split],
        "seed": seed,
    }
    if objective.rated:  # absent for an error count, so older studies resume; a study of a
        # model-scored task made before tunes rated it (its values are code errors) is refused
        manifest["objective"] = objective.name
    if mine is not None:  # absent for a built-in dataset, so older studies resume
        manifest["data_sha256"] = mine.sha256
    if prompts is not None:  # absent without a file, so studies made before --prompts resume
        manifest["prompts"] = variants.digest if variants else None
    if propose:
        manifest["propose"] = propose
    study = open_study(folder, manifest, seed, startup=max(4, min(10, trials // 3)))
    rerun = recover(study)
    label = shown_name(lm)
    say(
        f"tune {the_plan.task} on {the_plan.dataset}: {', '.join(names)}; {trials} trials on "
        f"samples {_ids(tune_split)}, held-out {_ids(held_split)}; cost = {cost}; model {label}"
    )
    if objective.rated:
        say(
            f"objective: the model rating shortfall, {objective.scale} - the model's rating of "
            f"the final answer (higher rating is better; an answer with no readable rating "
            f"counts as 0), judged as eval judges it: {rating_text(the_plan.task).note}"
        )
    if prompts is not None and variants is not None:
        say(f"prompt variants from {prompts}: {_slots_line(variants)}")
    say(
        f"study {folder / 'study.db'}: {len(completed(study))} trials already complete"
        + (f"; rerunning killed trial(s) {', '.join(map(str, rerun))}" if rerun else "")
        + (f"; answer caches in {cache_path}" if cache_path else "")
    )
    ledger = Ledger(study, caps)
    with backend.joined() as batches:
        rounds = [(1, (trials + 1) // 2), (2, trials)] if propose else [(0, trials)]
        for number, wanted in rounds:
            if number:
                price = price_for(lm.name, price_in, price_out)
                proposer = Proposer(lm, the_plan.task, slots, propose, price, objective.scale)
                variants = proposer.round(study, number, variants, ledger)
            outcome = tune_loop(
                study,
                setup,
                tune_split,
                wanted,
                parallel,
                names,
                ledger,
                batches,
                on_trial=lambda t, o: say(_trial_line(t, o, cost, trials, objective)),
                variants=variants,
            )
            if outcome.stop:
                break
        rows_out = _report(
            study, setup, tune_split, held_split, ledger, batches, report_max, variants, smallest
        )
    if rows_out is None:
        raise InputError("no trial completed: nothing to report (raise the budget?)")
    table_rows, points, chosen_note = rows_out
    text, files, plotted = _write(
        folder,
        size_of,
        table_rows,
        points,
        the_plan,
        lm.name,
        simulated,
        cost,
        target,
        chosen_note,
        objective,
    )
    return TuneOutcome(
        folder,
        table_rows,
        text,
        files,
        plotted,
        outcome.stop,
        len(completed(study)),
        rating_scale=objective.scale,
    )


def _model(model: Any, flags: dict[str, Any], backend: JobBackend) -> tuple[Any, Any]:
    """(the model, the object every trial shares or None): a spec string builds its model from
    the openai flags (and each process of the tune its own); an object given from Python (a
    `LanguageModel`, a function `prompt -> text`) is used as it is, and with `--ray` is sent
    to the workers as a pickled copy made now (`backend.shared`): one that cannot be pickled is
    one line here, before any request."""
    from thoughtgraph.modelspec import as_model, model_from_flags

    if isinstance(model, str):
        return model_from_flags(model, flags), None
    given = [flag for flag, value in flags.items() if value is not None]
    if given:
        raise InputError(
            f"{', '.join(given)}: only with a model spec string ('openai:MODEL'), not with a "
            "model object (set them on the object)"
        )
    lm = as_model(model)
    return lm, backend.shared(lm)


def _items(the_plan: EvalPlan, samples: Sequence[Any]) -> tuple[int, Any]:
    """The size the graphs are built for and a sample of that size (the baselines are built
    for it): the dataset's size (sorting_064: 64), or for a dataset without one (countries,
    documents, a data file) the fewest items any sample of the splits has, so no tuned graph
    and no baseline splits a sample into more parts than it has items."""
    if the_plan.dataset.rsplit("_", 1)[-1].isdigit():
        return the_plan.size, samples[0].given
    task = get_task(the_plan.task_spec)
    sizes = [(len(task.parse_input(s.given)), index) for index, s in enumerate(samples)]
    size, index = min(sizes)
    return size, samples[index].given


def _slots_line(variants: Variants) -> str:
    """`part: default, careful, terse; merge: default, m2`."""
    return "; ".join(f"{slot}: {', '.join(variants.choices(slot))}" for slot in variants.slots)


def _check_counts(**values: int) -> None:
    for name, value in values.items():
        if value < 1:
            raise InputError(f"--{name.replace('_', '-')} must be at least 1, got {value}")


def _note(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _ids(samples: Sequence[Any]) -> str:
    if not samples:
        return "none"
    return f"{samples[0].id}-{samples[-1].id}" if len(samples) > 1 else str(samples[0].id)


def _trial_line(
    trial: Any,
    outcome: Outcome,
    metric: str,
    trials: int,
    objective: report.Objective = report.ERRORS,
) -> str:
    """One line per finished trial, with how far the tune has come (`[7/30]`)."""
    what = trial.user_attrs.get("graph", "")
    done = len(completed(trial.study)) if hasattr(trial, "study") else trial.number + 1
    where = f"[{done}/{trials}] trial {trial.number}"
    if outcome.failure or outcome.budget_stopped:
        return f"{where}: {what}: failed ({outcome.failure or 'budget exhausted'})"
    measure = f"error {outcome.error:.2f}"
    if objective.scale is not None:
        unrated = f", {outcome.unrated} unrated" if outcome.unrated else ""
        measure = f"rating {objective.scale - outcome.error:.2f}/{objective.scale}{unrated}"
    return (
        f"{where}: {what}: {measure}, {metric} "
        f"{outcome.cost:.1f}, paid {outcome.paid_requests} requests"
    )


def _report(
    study: Any,
    setup: Setup,
    tune_split: Sequence[Any],
    held_split: Sequence[Any],
    ledger: Ledger,
    backend: Backend,
    report_max: int,
    variants: Variants | None,
    smallest: Any,
) -> tuple[list[report.Row], list[tuple[float, float]], str] | None:
    """Front and baselines, each run on the held-out split (and the baselines on the tuning one).
    The default `got` is built for `smallest` (a sample of the size the graphs are built for):
    on a data file whose rows differ in size, it then runs on every row."""
    done = completed(study)
    if not done:
        return None
    points = [(t.values[0], t.values[1], t) for t in done]
    front = report.spread(report.pareto(points), report_max)
    rows = [
        report.Row(
            name=f"trial {t.number}",
            label=space.describe(t.params | _fixed(t, setup.task), setup.size),
            graph=space.graph_for(
                t.params | _fixed(t, setup.task), setup.task, setup.size, variants
            ),
            tune_error=err,
            tune_cost=c,
            mark="front",
            tune_unrated=int(t.user_attrs.get("unrated", 0)),
        )
        for err, c, t in front
    ]
    task = setup.task if setup.task_spec is None else setup.task_spec
    base = space.baselines(task, setup.size, smallest)
    base_rows = [
        report.Row(name=name, label=text, graph=g, tune_error=0, tune_cost=0)
        for name, (g, text) in base.items()
    ]

    def data(samples: Sequence[Any]) -> tuple[tuple[int, Any, Any], ...]:
        return tuple((s.id, s.given, s.reference) for s in samples)

    plan_jobs: list[tuple[report.Row, str, tuple[Any, ...]]] = [
        (r, "tune", data(tune_split)) for r in base_rows
    ]
    if held_split:
        plan_jobs += [(r, "holdout", data(held_split)) for r in [*rows, *base_rows]]
    pairs = sum(len(d) for _r, _s, d in plan_jobs)
    allowance = ledger.share(pairs)
    if allowance is None:
        note = "the budget was spent on trials: no held-out or baseline runs"
        return rows, [(e, c) for e, c, _t in points], note
    record_report_run(study, allowance, pairs, None)
    jobs = [
        Job(f"{split}:{row.name}", job_graph(setup, row.graph), d, allowance)
        for row, split, d in plan_jobs
    ]
    outcomes = run_unique(backend, setup, jobs)
    record_report_run(study, allowance, pairs, paid(outcomes))
    failed = []
    for (row, split, _d), o in zip(plan_jobs, outcomes, strict=True):
        if o.failure:
            failed.append(f"{row.name} failed on the {split} split ({o.failure[:200]})")
        if split == "tune":
            row.tune_error, row.tune_cost = o.error, o.cost
            row.tune_stopped, row.tune_unrated = o.budget_stopped, o.unrated
        else:
            row.holdout_error, row.holdout_cost, row.holdout_solved = o.error, o.cost, o.solved
            row.holdout_unrated = o.unrated
            row.stopped = o.budget_stopped
    for row in base_rows:
        row.mark = "baseline"
    return [*rows, *base_rows], [(e, c) for e, c, _t in points], "; ".join(failed)


def _fixed(trial: Any, task: str) -> dict[str, Any]:
    """What a trial's params leave out: the scheme of a single-scheme study (from the recorded
    label), and the knobs the space holds for this task (`space.fixed`)."""
    scheme = trial.params.get("scheme") or str(trial.user_attrs.get("graph", "got")).split()[0]
    return {"scheme": scheme, **space.fixed(scheme, task)}


def _write(
    folder: Path,
    size: int,
    rows: list[report.Row],
    points: list[tuple[float, float]],
    the_plan: Any,
    model_name: str,
    simulated: bool,
    metric: str,
    target: float | None,
    note: str,
    objective: report.Objective = report.ERRORS,
) -> tuple[str, list[Path], bool]:
    """front.md, front.csv, the graph files and the plot; returns (front.md's text, the files,
    whether a plot was drawn)."""
    front = [r for r in rows if r.mark == "front"]
    default = next((r for r in rows if r.name == "got (default)" and r.tune_cost), None)
    if default is not None and default.tune_stopped:
        default = None  # cut short by the budget: its error is of a partial run, not a target
    given = objective.goal(target)
    goal = given if given is not None else (default.tune_error if default else 0.0)
    chosen = report.pick(front, goal)
    chosen.mark = "pick"
    written = report.write_graphs(rows, folder, chosen, size, objective)
    title = f"tune {the_plan.task} on {the_plan.dataset}: model {model_name}" + (
        " (simulated)" if simulated else ""
    )
    source = (
        "--target"
        if target is not None
        else "the default got on the tuning split"
        if default is not None
        else "no measured default got: its tuning run did not finish"
    )
    how = f"Pick: the cheapest front graph with tuning error at most {goal:g} ({source})."
    if objective.scale is not None:
        how = (
            f"Objective: the model's rating of the final answer (0-{objective.scale}, higher "
            f"is better), judged as eval judges it; the tune minimises the rating shortfall "
            f"{objective.scale} - rating, and an answer whose rating could not be read counts "
            f"as 0 and as unrated. Pick: the cheapest front graph with a tuning rating of at "
            f"least {report.fmt(objective.scale - goal)} ({source})."
        )
    if any(r.tune_stopped or r.stopped for r in rows):
        how += (
            " Runs marked (budget cut) were stopped by the budget: their figures are of partial "
            "runs, left out of the plot and of the pick."
        )
    sim = (
        " Figures from the simulated model: they show how the search behaves on the sim's "
        "error laws, not how any real model does (docs/tuning.md)."
        if simulated
        else ""
    )
    text = report.table_markdown(
        rows, metric, title, how + sim + (f" Note: {note}." if note else ""), objective
    )
    (folder / "front.md").write_text(text)
    (folder / "front.csv").write_text(report.table_csv(rows, objective))
    plots = report.plot(rows, points, metric, title, folder, objective)
    return text, [folder / "front.md", folder / "front.csv", *written, *plots], bool(plots)
