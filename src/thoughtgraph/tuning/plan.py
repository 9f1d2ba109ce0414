"""A tune checked and resolved before its first trial: the task, the two splits of the data, the
objective, the prompt slots and variants, the model and its price, the folder, and the `Setup`
every job shares. `prepare` makes the `TunePlan`; every mistake is one `ThoughtgraphError` line
before anything runs (the folder's lock and the answer-cache folder are all it writes).

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from thoughtgraph.errors import GraphError, InputError, UnknownNameError
from thoughtgraph.evaluation.datasets import Data, Sample, load_data, load_dataset
from thoughtgraph.evaluation.lock import hold_folder_lock, make_folder
from thoughtgraph.evaluation.measures import rating_text
from thoughtgraph.evaluation.prompt_variants import Variants
from thoughtgraph.evaluation.prompt_variants import load as load_variants
from thoughtgraph.evaluation.runner import EvalPlan, check_rows, model_scored, plan
from thoughtgraph.models.base import LanguageModel
from thoughtgraph.modelspec import ModelLike
from thoughtgraph.spend.pricing import Price
from thoughtgraph.tuning import report, space
from thoughtgraph.tuning.backend import JobBackend
from thoughtgraph.tuning.config import TuneConfig
from thoughtgraph.tuning.jobs import Setup, TaskSpec
from thoughtgraph.tuning.study import import_optuna

TuneData = str | Path | Sequence[Mapping[str, object]]
"""A tune's own problems: a data file (one problem a row), or its rows held in memory."""


@dataclass(frozen=True)
class TunePlan:
    """What one tune runs, checked: `tune_split` (the first `--pilot` samples, searched on) and
    `held_split` (the next `--holdout`, for the report only), the trials' graphs built for
    `size` items, the baselines as eval builds them (`schemes`), the model (`simulated`: the
    sim, whose figures say nothing of a real model) and where the files go."""

    config: TuneConfig
    task: str  # the task's name
    dataset: str  # the built-in dataset's name, or the data file's
    data: Data | None  # the user's data file, read
    tune_split: tuple[Sample, ...]
    held_split: tuple[Sample, ...]
    size: int
    objective: report.Objective
    slots: dict[str, frozenset[str]]  # every prompt the searched graphs can send (`--prompts`)
    variants: Variants | None  # the prompts file's (empty with only `--propose`)
    model: LanguageModel
    price: Price | None
    simulated: bool
    folder: Path
    cache: Path | None  # the answer caches' folder (None: none, the sim's default)
    setup: Setup
    schemes: EvalPlan  # eval's plan of the baselines and the searched schemes on both splits:
    # `schemes.sample_graph(row, sample)` is the graph eval runs for that row on that sample
    baselines: tuple[str, ...]  # the baselines' report names (`report.BASELINES`) that can run
    left_out: str  # why a baseline is left out ("" when none is)

    @property
    def label(self) -> str:
        """The title of the report: `tune sorting on sorting_032: model NAME (simulated)`."""
        return f"tune {self.task} on {self.dataset}: model {self.model.name}" + (
            " (simulated)" if self.simulated else ""
        )

    @property
    def manifest(self) -> dict[str, object]:
        """What the study in the folder tunes: a rerun of another setup is refused there."""
        found: dict[str, object] = {
            "task": self.task,
            "dataset": self.dataset,
            "size": self.size,
            "model": self.model.name,
            "schemes": list(self.config.schemes),
            "cost": self.config.cost,
            "tune_samples": [s.id for s in self.tune_split],
            "holdout_samples": [s.id for s in self.held_split],
            "seed": self.config.seed,
        }
        if self.objective.rated:  # absent for an error count, so older studies resume; a study
            # of a model-scored task made before tunes rated it (its values are code errors) is
            # refused
            found["objective"] = self.objective.name
        if self.data is not None:  # absent for a built-in dataset, so older studies resume
            found["data_sha256"] = self.data.sha256
        if self.config.prompts is not None:  # absent without a file, so studies made before
            # --prompts resume
            found["prompts"] = self.variants.digest if self.variants else None
        if self.config.propose:
            found["propose"] = self.config.propose
        return found


def prepare(
    task: TaskSpec, data: TuneData | None, config: TuneConfig, backend: JobBackend
) -> TunePlan:
    """Check and resolve everything of a tune before any call (see the module docstring);
    `backend` (what will run the jobs) refuses what cannot run there."""
    c = config
    if data is not None and (c.size is not None or c.dataset is not None):
        raise InputError("--data holds its own problems: give --data or --dataset/--size, not both")
    if c.input_column != "input" and data is None:
        raise InputError("--input-column names a column of --data: give --data too")
    mine = None if data is None else load_data(data, task, c.input_column)
    rows_of_eval = tuple(dict.fromkeys([*report.BASELINES.values(), *c.schemes]))
    the_plan = plan(task, 32 if c.size is None else c.size, rows_of_eval, c.pilot + c.holdout,
                    c.dataset, data=mine, check=False)  # fmt: skip
    if c.size is not None and the_plan.size != c.size:
        raise InputError(f"--size {c.size} does not match dataset {the_plan.dataset}")
    rows = load_dataset(the_plan.dataset) if mine is None else mine.samples
    if c.pilot + c.holdout > len(rows):
        raise InputError(
            f"--pilot {c.pilot} + --holdout {c.holdout} exceeds the {len(rows)} samples of "
            f"{the_plan.dataset}"
        )
    size = _items(the_plan, rows[: c.pilot + c.holdout])
    paper_note = _check_candidates(the_plan, c.schemes, size)
    objective = report.Objective(
        rating_text(the_plan.task).scale if model_scored(the_plan.task) else None
    )
    if objective.scale is not None and c.target is not None and c.target > objective.scale:
        raise InputError(
            f"--target is the model rating the pick must reach on {the_plan.task} "
            f"(0-{objective.scale}), got {c.target}"
        )
    slots = space.prompt_slots(c.schemes, the_plan.task, size)
    variants = None if c.prompts is None else load_variants(c.prompts, slots)
    if c.propose and variants is None:
        variants = Variants({}, "")
    import_optuna()  # one line naming the extra, before anything is written
    backend.check()
    flags = c.model_flags
    others = (*c.models.values(), *c.candidates.values())
    lm, given = _model(c.model, flags, backend, others)
    price = c.run.price_of(lm)
    for each in (lm, *_other_models(c, lm, flags)):  # every model a run may call, priced
        priced = c.run.price_of(each)
        if c.cost == "usd" and priced is None:
            raise InputError(
                f"--cost usd needs a price: {each.name} is not in the built-in table; "
                "give --price-in and --price-out (USD per million tokens), or its spec's "
                "price_in= and price_out="
            )
    simulated = bool(getattr(lm, "simulated", False))
    folder = _folder(c.out, the_plan, data)
    cache = _cache(c.cache_dir, folder, simulated)
    setup = _setup(the_plan, size, lm, given, flags, config, cache, objective)
    return TunePlan(
        config=config,
        task=the_plan.task,
        dataset=the_plan.dataset,
        data=mine,
        tune_split=rows[: c.pilot],
        held_split=rows[c.pilot : c.pilot + c.holdout],
        size=size,
        objective=objective,
        slots=slots,
        variants=variants,
        model=lm,
        price=price,
        simulated=simulated,
        folder=folder,
        cache=cache,
        setup=setup,
        schemes=the_plan,
        baselines=tuple(
            name for name, row in report.BASELINES.items() if row != "got_paper" or not paper_note
        ),
        left_out=paper_note,
    )


def _check_candidates(the_plan: EvalPlan, searched: Sequence[str], size: int) -> str:
    """Refuse, before any trial, what eval refuses: the default `got` and each searched scheme
    as eval builds them for each row's size, then the searched space's largest graphs (every
    prompt choice, the most parts) as trials build them, each checked on a row of each size
    (`evaluation.runner.check_rows`: one line naming the scheme and the row). The paper's
    `got_paper`, when not searched, is only a baseline: one that cannot run is left out of the
    report, and the returned note says why ("" when it can run)."""
    candidates = tuple(dict.fromkeys([report.BASELINES[report.DEFAULT], *searched]))
    check_rows(replace(the_plan, schemes=candidates))
    graphs = tuple(space.space_graphs(searched, the_plan.task, size))
    check_rows(replace(the_plan, schemes=tuple(name for name, _g in graphs), graphs=graphs))
    if "got_paper" in candidates:
        return ""
    try:
        check_rows(replace(the_plan, schemes=("got_paper",)))
    except GraphError as exc:
        return f"the paper's got_paper is left out: {exc}"
    return ""


def _model(
    model: ModelLike, flags: dict[str, object], backend: JobBackend, others: tuple[str, ...] = ()
) -> tuple[LanguageModel, LanguageModel | None]:
    """(the model, the object every trial shares or None): a spec string builds its model from
    the openai flags (and each process of the tune its own); an object given from Python (a
    `LanguageModel`, a function `prompt -> text`) is used as it is, and with `--ray` is sent
    to the workers as a pickled copy made now (`backend.shared`): one that cannot be pickled is
    one line here, before any request."""
    from thoughtgraph.modelspec import as_model, from_spec, model_options, normalize_spec

    if isinstance(model, str):
        options = model_options(model, flags, others)  # the flags checked, by their names
        openai = normalize_spec(model).partition(":")[0].strip().lower() == "openai"
        return from_spec(model, **(options if openai else {})), None
    given = [flag for flag, value in flags.items() if value is not None]
    if given:
        raise InputError(
            f"{', '.join(given)}: only with a model spec string ('openai:MODEL'), not with a "
            "model object (set them on the object)"
        )
    lm = as_model(model)
    return lm, backend.shared(lm)


def _other_models(
    c: TuneConfig, lm: LanguageModel, flags: dict[str, object]
) -> list[LanguageModel]:
    """The models of `--model-for` and `--models`, each built once now (a bad spec is one line
    before anything runs), the openai flags filling in what their specs leave out."""
    from thoughtgraph.modelspec import OPENAI_FLAGS, filled_in, from_spec, models_for

    overrides = {OPENAI_FLAGS[f]: v for f, v in flags.items() if v is not None}
    routed = models_for(dict(c.models), lm, overrides=overrides, label="--model-for")
    chosen = []
    for name, spec in c.candidates.items():
        try:
            chosen.append(from_spec(spec, **filled_in(spec, overrides)))
        except (InputError, UnknownNameError) as exc:
            raise type(exc)(f"--models {name}: {exc}") from None
    return [*routed.values(), *chosen]


def _items(the_plan: EvalPlan, samples: Sequence[Sample]) -> int:
    """The size the trials' graphs are built for: the dataset's size (sorting_064: 64), or for
    a dataset without one (countries, documents, a data file) the fewest items any sample of
    the splits has, so no tuned graph splits a sample into more parts than it has items. (The
    baselines are built as eval builds them, for each row's own size.)"""
    if the_plan.dataset.rsplit("_", 1)[-1].isdigit():
        return the_plan.size
    return min(len(the_plan.the_task.parse_input(s.given)) for s in samples)


def _folder(out: Path | None, the_plan: EvalPlan, data: TuneData | None) -> Path:
    """The tune's folder (default `runs/tune-TASK-SIZE`, or `runs/tune-TASK-FILESTEM` for a
    data file), held by this tune (one tune per folder: a second one refuses at once instead
    of failing the first's trials)."""
    if isinstance(data, str | Path):
        named = f"tune-{the_plan.task}-{Path(data).stem}"
    else:  # a built-in dataset (rows held in memory come from Python, which gives a folder)
        named = f"tune-{the_plan.task}-{the_plan.dataset if data else the_plan.size}"
    folder = out or Path("runs") / named
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--out {folder} is a file, not a folder")
    hold_folder_lock(folder, "tune")
    return folder


def _cache(cache_dir: Path | None, folder: Path, simulated: bool) -> Path | None:
    """The answer caches' folder, made: `--cache-dir`, else `OUT/cache` for a real model (the
    sim's answers cost nothing: no cache)."""
    cache = cache_dir if cache_dir is not None else (None if simulated else folder / "cache")
    if cache is not None:
        if cache.exists() and not cache.is_dir():
            raise InputError(f"--cache-dir {cache} is a file, not a folder")
        make_folder(cache, "--cache-dir")
    return cache


def _setup(
    the_plan: EvalPlan,
    size: int,
    lm: LanguageModel,
    given: LanguageModel | None,
    flags: dict[str, object],
    config: TuneConfig,
    cache: Path | None,
    objective: report.Objective,
) -> Setup:
    """What every job shares (and a Ray worker gets): the task as given, the model's recipe,
    the pairs' run options (their caps are each job's allowance, not these)."""
    from thoughtgraph.modelspec import OPENAI_FLAGS

    return Setup(
        task=the_plan.task,
        size=size,
        model_spec=config.model if isinstance(config.model, str) else lm.name,
        model=given,
        model_options=tuple(
            sorted((OPENAI_FLAGS[f], v) for f, v in flags.items() if v is not None)
        ),
        run=replace(config.run, max_requests=None, max_tokens=None, max_cost=None),
        cost_metric=config.cost,
        cache_dir=None if cache is None else str(cache),
        task_spec=the_plan.spec,
        rating_scale=objective.scale,
        from_data=the_plan.data_sha256 is not None,
        models=tuple(sorted(config.models.items())),
        candidates=tuple(config.candidates.items()),
    )
