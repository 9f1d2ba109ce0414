"""One tune from start to end: the plan, the study, the phases, the files, the results.

`run_tune(task, data, config)` is what `thoughtgraph tune` and `thoughtgraph.tune()` run: it
prepares the plan (`tuning.plan`: every check before anything runs), opens the study, runs the
phases (`tuning.phases`: search, front, held-out report), picks, writes the folder's files from
what the phases returned and builds the `TuneResults` from the same objects.

Optuna is an extra, imported only inside these functions; what runs the jobs (here, or Ray
tasks) is handed over as a `JobBackend` (`tuning/backend.py`).
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable, Sequence

from thoughtgraph.errors import InputError
from thoughtgraph.evaluation.datasets import Sample
from thoughtgraph.evaluation.measures import rating_text
from thoughtgraph.evaluation.prompt_variants import Variants
from thoughtgraph.tuning import report
from thoughtgraph.tuning.backend import LOCAL_JOBS, JobBackend
from thoughtgraph.tuning.config import TuneConfig
from thoughtgraph.tuning.jobs import TaskSpec
from thoughtgraph.tuning.phases import TuneRun, front_of, held_out, search
from thoughtgraph.tuning.plan import TuneData, TunePlan, prepare
from thoughtgraph.tuning.results import TuneResults
from thoughtgraph.tuning.study import Ledger, Study, completed, open_study, recover


def run_tune(
    task: TaskSpec,
    data: TuneData | None,
    config: TuneConfig,
    backend: JobBackend = LOCAL_JOBS,
) -> TuneResults:
    """The tune of `task` on `data` (None: the built-in dataset) as `config` says, its jobs run
    by `backend`: searches, writes the folder's files and returns what it found. Every mistake
    is one `ThoughtgraphError` line before any trial runs; a study that cannot be written (a
    full disk) is one line too."""
    try:
        return _run(task, data, config, backend)
    except Exception as exc:
        reason = _database_error(exc)
        if reason is None:
            raise
        raise InputError(f"cannot write the tune's study (study.db in --out): {reason}") from None


def _run(
    task: TaskSpec, data: TuneData | None, config: TuneConfig, backend: JobBackend
) -> TuneResults:
    plan = prepare(task, data, config, backend)
    say = config.note or _note
    study = open_study(
        plan.folder, plan.manifest, config.seed, startup=max(4, min(10, config.trials // 3))
    )
    _announce(plan, study, recover(study), say)
    with backend.joined() as batches:
        run = TuneRun(plan, study, Ledger(study, config.run.budget), batches, say)
        searched = search(run)
        front = front_of(plan, searched)
        measured = held_out(run, front)
    chosen = report.choose(measured.rows, config.target, plan.objective)
    about = report.About(
        plan.label,
        config.cost,
        plan.size,
        plan.simulated,
        plan.objective,
        plan.task,
        plan.setup.candidates,
    )
    note = "; ".join(n for n in (searched.note, measured.note) if n)
    written = report.write(plan.folder, about, chosen, front.points, note)
    return TuneResults(
        rows=list(chosen.rows),
        best=chosen.row.graph.model_copy(update={"size": plan.size, "task": plan.task}),
        text=written.text,
        folder=plan.folder,
        files=written.files,
        stop=searched.end.why,
        trials=len(searched.trials),
        rating_scale=plan.objective.scale,
        plotted=written.plotted,
    )


def _announce(plan: TunePlan, study: Study, rerun: list[int], say: Callable[[str], None]) -> None:
    """What the tune is of, before its first trial: the splits, the objective, the prompt
    variants, the study's trials so far and where the answer caches are."""
    from thoughtgraph.models.base import shown_name

    config = plan.config
    say(
        f"tune {plan.task} on {plan.dataset}: {', '.join(config.schemes)}; {config.trials} "
        f"trials on samples {_ids(plan.tune_split)}, held-out {_ids(plan.held_split)}; "
        f"cost = {config.cost}; model {shown_name(plan.model)}"
    )
    if plan.objective.rated:
        say(
            f"objective: the model rating shortfall, {plan.objective.scale} - the model's rating "
            f"of the final answer (higher rating is better; an answer with no readable rating "
            f"counts as 0), judged as eval judges it: {rating_text(plan.task).note}"
        )
    if config.prompts is not None and plan.variants is not None:
        say(f"prompt variants from {config.prompts}: {_slots_line(plan.variants)}")
    if config.candidates and config.cost != "usd":
        say(
            f"note: --models: cost = {config.cost} counts the same whichever candidate answers, "
            "so the front cannot tell a cheap model from a dear one; give each a price and "
            "--cost usd (docs/tuning.md)"
        )
    say(
        f"study {plan.folder / 'study.db'}: {len(completed(study))} trials already complete"
        + (f"; rerunning killed trial(s) {', '.join(map(str, rerun))}" if rerun else "")
        + (f"; answer caches in {plan.cache}" if plan.cache else "")
    )


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


def _slots_line(variants: Variants) -> str:
    """`part: default, careful, terse; merge: default, m2`."""
    return "; ".join(f"{slot}: {', '.join(variants.choices(slot))}" for slot in variants.slots)


def _note(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _ids(samples: Sequence[Sample]) -> str:
    if not samples:
        return "none"
    return f"{samples[0].id}-{samples[-1].id}" if len(samples) > 1 else str(samples[0].id)
