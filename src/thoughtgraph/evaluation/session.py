"""One evaluation from start to end, at one size or several: what `thoughtgraph.evaluate()`
runs and `thoughtgraph eval` prints.

Everything a user can get wrong is checked before the first request, each as one line: the
task, data, schemes and graph files (one plan per size), the prompts, the caps and the price,
the model, the folders (each one's manifest, and its lock: one evaluation per folder at a
time), and what the backend running the pairs checks (scale/'s Ray backend: the address and
what its workers must load). Then each size runs its pairs (here, or wherever the backend runs
them: Ray tasks on the one cluster joined for the whole evaluation) under what the evaluation's
caps leave after the sizes before it, and writes its folder's reports; several sizes also get
the combined reports (evaluation/combined.py).

The caller hears what happens through `on_event` (`Note`, `SizeStarting`, `SizeDone`) and
`on_result` (each pair as it finishes): the command line prints them, a notebook may ignore
them. Ctrl-C ends the run with `EvalInterrupted`, saying how many pairs are kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from thoughtgraph.engine.graph import Graph
from thoughtgraph.engine.options import RunOptions
from thoughtgraph.errors import InputError, ThoughtgraphError, shown
from thoughtgraph.evaluation.backend import LOCAL_PAIRS, PairBackend
from thoughtgraph.evaluation.combined import Outcome, model_note, title, write_combined
from thoughtgraph.evaluation.datasets import DATASETS, Data, load_data
from thoughtgraph.evaluation.results import EvalResults
from thoughtgraph.evaluation.runner import (
    EvalPlan,
    PairResult,
    PairRunner,
    Resumed,
    check_folder,
    judged,
    plan,
    rows_built,
    run_pairs,
    sampled_rows,
    sized,
)
from thoughtgraph.models.base import LanguageModel, display_name, routes_note, shown_name
from thoughtgraph.models.samples import ignores_samples
from thoughtgraph.modelspec import ModelLike, as_model, from_spec, models_for
from thoughtgraph.spend.budget import Amounts, check_whole, share
from thoughtgraph.tasks import BaseTask, Task, get_task

DEFAULT_SCHEMES = ("io", "cot", "tot", "tot2", "got", "got_paper")
DEFAULT_SIZE = 32

GraphLike = Graph | str | Path


@dataclass(frozen=True)
class Note:
    """A line the user should read (a clipped sample count, the prompt variant sent, ...)."""

    text: str


@dataclass(frozen=True)
class SizeStarting:
    """One size's pairs are about to run: `done_before` of its `total` are already in its
    folder (a resumed evaluation); `model` is the model's shown name."""

    plan: EvalPlan
    folder: Path
    done_before: int
    model: str

    @property
    def total(self) -> int:
        return len(self.plan.schemes) * len(self.plan.samples) * self.plan.repeats


@dataclass(frozen=True)
class SizeDone:
    """One size ran; `results` is what it measured (files written when there is a folder)."""

    results: EvalResults


EvalEvent = Note | SizeStarting | SizeDone


class EvalInterrupted(ThoughtgraphError):
    """Ctrl-C stopped the evaluation: `kept` of `total` pairs are in `results` (a rerun with the
    same folder resumes from them)."""

    def __init__(self, results: Path, kept: int, total: int) -> None:
        super().__init__(f"interrupted: {kept} of {total} pairs kept in {results}")
        self.results = results
        self.kept = kept
        self.total = total


@dataclass(frozen=True, kw_only=True)
class EvalConfig:
    """One evaluation's options, checked once: the `RunOptions` every pair runs under (its caps
    the whole evaluation's) and the evaluation's own settings (`thoughtgraph.evaluate`
    documents each). `sizes` (several, each into its own folder) or `size` (one) pick the
    built-in datasets; neither: one, at the default size."""

    run: RunOptions
    schemes: str | Sequence[str] = DEFAULT_SCHEMES
    graphs: Sequence[GraphLike] | Mapping[str, GraphLike] = ()
    model: ModelLike = "sim"
    model_options: Mapping[str, object] | None = None
    models: Mapping[str, ModelLike] | None = None  # kinds of call routed to other models
    size: int | None = None
    sizes: Sequence[int] | None = None
    dataset: str | None = None
    samples: int = 100
    repeats: int = 1
    prompts: str | Path | Mapping[str, str] | None = None
    input_column: str = "input"
    out: str | Path | None = None
    parallel: int | None = None
    traces: bool = False
    figure: bool = True
    on_result: Callable[[PairResult], None] | None = None
    on_event: Callable[[EvalEvent], None] | None = None
    flags: bool = False  # name the command line's flags in errors (`thoughtgraph eval`)

    def __post_init__(self) -> None:
        self.wanted  # noqa: B018 (the sizes checked now, each mistake one line)
        check_whole(self.word("parallel"), self.parallel, 1, flags=self.flags)

    @property
    def wanted(self) -> list[int | None]:
        """The sizes to run, each once, in the order given (None: the default size)."""
        if self.sizes is None:
            return [self.size]
        if self.size is not None:
            raise InputError("give size or sizes, not both")
        if isinstance(self.sizes, str | int) or not self.sizes:
            raise InputError(f"sizes must be a list of whole numbers, got {shown(self.sizes)}")
        for size in self.sizes:
            if isinstance(size, bool) or not isinstance(size, int):
                raise InputError(f"sizes must be whole numbers, got {shown(size)}")
            if size < 1:
                raise InputError(f"{self.word('size')} must be at least 1, got {size}")
        return list(dict.fromkeys(self.sizes))

    @property
    def pairs(self) -> int:
        """The most pairs running at once: `parallel`, else the calls in flight."""
        return self.run.concurrency if self.parallel is None else self.parallel

    def say(self, event: EvalEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def word(self, option: str, flag: str | None = None) -> str:
        """How an error names an option: `--flag` on the command line, the keyword in Python."""
        return (flag or f"--{option.replace('_', '-')}") if self.flags else option


@dataclass(frozen=True)
class Ran:
    """What `run` measured: each size's `EvalResults`, and for several sizes the folder
    holding them and the combined reports written there."""

    sizes: list[EvalResults]
    folder: Path | None
    files: list[Path]


async def run(
    task: str | Task[Any, Any],
    data: object,
    config: EvalConfig,
    backend: PairBackend = LOCAL_PAIRS,
) -> Ran:
    """The evaluation of `task` on `data` (None: the built-in datasets at `config`'s sizes), its
    pairs run by `backend` (here, by default). The task is resolved once, here: every plan,
    pair and worker uses that object (a task file is read once)."""
    the_task = get_task(task)
    dataset, rows = _data(the_task, data, config)
    plans = _plans(task, the_task, dataset, rows, config)
    lm = _model(config)
    routed = _routed(config, lm, _called(plans))
    _check_backend_routes(backend, routed, config)
    backend.check()  # one line naming the extra or the bad address, before anything runs
    for each in (lm, *routed.values()):  # a cost cap without a price: refused before anything
        config.run.price_of(each)
    _note_unsampled(plans[0], lm, config)
    _note_uncalled(plans, routed, config)
    with _root(config.out) as (root, keep):
        folders = [root] if len(plans) == 1 else [root / f"size-{p.size}" for p in plans]
        done = _claim(plans, folders, root, lm, keep, routed)
        if rows is None:  # a data file's rows all run by default
            _note_clipped(plans[0], config)
        measured: list[EvalResults] = []
        outcomes: list[Outcome] = []
        with backend.joined() as runner_for:
            for the_plan, folder, held in zip(plans, folders, done, strict=True):
                size = _Size(the_plan, folder, held, _left(config.run, outcomes))
                runner = runner_for(
                    the_plan,
                    config.model,
                    dict(config.model_options or {}),
                    config.pairs,
                    size.options,
                    folder if config.traces else None,
                    dict(config.models or {}),
                )
                one = await _run_size(size, lm, runner, keep, config, routed)
                measured.append(one)
                outcomes.append((the_plan, folder, one.results))
        several = len(plans) > 1 and keep
        files = _write_combined(outcomes, lm, root, config.figure) if several else []
        return Ran(measured, root if several else None, files)


@dataclass(frozen=True)
class _Size:
    """One size of the evaluation: its plan, its folder (what it holds of the plan's pairs:
    those `done` there, those to rerun) and the options its pairs run under (what the
    evaluation's caps leave for it)."""

    plan: EvalPlan
    folder: Path
    held: Resumed
    options: RunOptions

    @property
    def done(self) -> int:
        return self.held.done


def _note_clipped(first: EvalPlan, config: EvalConfig) -> None:
    available = len(first.samples)
    if config.samples > available:
        config.say(
            Note(
                f"dataset {first.dataset} has {available} samples; "
                f"{config.word('samples')} {config.samples} clipped to {available}"
            )
        )


def _data(task: BaseTask[Any, Any], data: object, s: EvalConfig) -> tuple[str | None, Data | None]:
    """(the built-in dataset, None) or (None, the rows of `data` read for the task)."""
    dataset, rows = resolve_data(task, data, s.input_column)
    if s.dataset is not None:
        if dataset is not None:
            raise InputError("give the dataset as data or as dataset, not both")
        dataset = s.dataset  # beside data rows: refused by `_plans`, naming both
    if s.input_column != "input" and rows is None:
        raise InputError(
            f"{s.word('input_column')} names a column of {s.word('data')}: "
            f"give {s.word('data')} too"
        )
    return dataset, rows


def resolve_data(
    task: BaseTask[Any, Any], data: object, input_column: str = "input"
) -> tuple[str | None, Data | None]:
    """`data` as (built-in dataset name, None) or (None, the rows read for the task): a data
    file, rows in memory or a pandas DataFrame."""
    if data is None:
        return None, None
    if isinstance(data, str) and data in DATASETS:
        return data, None
    to_dict = getattr(data, "to_dict", None)
    if callable(to_dict) and hasattr(data, "columns"):  # a pandas DataFrame
        data = to_dict("records")
    return None, load_data(data, task, input_column)


def _plans(
    given: str | Task[Any, Any],
    task: BaseTask[Any, Any],
    dataset: str | None,
    rows: Data | None,
    s: EvalConfig,
) -> list[EvalPlan]:
    """A checked plan per size: every row's graph built for every problem size. Each plan
    carries the resolved `task` (and the task as `given`, for Ray's workers to load)."""
    wanted = s.wanted
    several = len(wanted) > 1
    if several and dataset is not None:
        raise InputError(
            "--dataset names one size: give either --dataset or several --size"
            if s.flags
            else "a dataset names one size: give either a dataset or several sizes"
        )
    if rows is not None and (wanted != [None] or dataset is not None):
        raise InputError(
            "--data holds its own problems: give --data or --dataset/--size, not both"
            if s.flags
            else "a data file holds its own problems: give data or size, not both"
        )
    graphs = load_graphs(s.graphs)
    names = schemes_list(s.schemes)
    plans = [
        plan(
            task,
            DEFAULT_SIZE if size is None else size,
            names,
            s.samples,
            dataset,
            data=rows,
            graphs=graphs,
            repeats=s.repeats,
            given=given,
        )
        for size in wanted
    ]
    if s.prompts is not None:
        texts = _prompt_texts(s.prompts, plans, s)
        plans = [replace(p, prompts=tuple(sorted(texts.items()))) for p in plans]
    for the_plan, size in zip(plans, wanted, strict=True):
        if size is not None and the_plan.size != size:
            raise InputError(
                f"{s.word('size')} {size} does not match dataset {the_plan.dataset} "
                f"(size {the_plan.size}); give one of them"
            )
    if len({p.dataset for p in plans}) < len(plans):
        raise InputError(f"{plans[0].task} has one dataset: give one {s.word('size')} at most")
    return plans


def load_graphs(graphs: Sequence[GraphLike] | Mapping[str, GraphLike]) -> list[tuple[str, Graph]]:
    """Each graph as (row name, graph): a file's `name:`, else the file's name; a mapping's keys
    name its graphs; an unnamed `Graph` object is `graph-1`, `graph-2`, ..."""
    import re

    row_name = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
    items: list[tuple[str | None, GraphLike]] = (
        list(graphs.items()) if isinstance(graphs, Mapping) else [(None, g) for g in graphs]
    )
    found = []
    for number, (given, item) in enumerate(items, start=1):
        if isinstance(item, Graph):
            graph, fallback, where = item, f"graph-{number}", "graph"
        elif isinstance(item, str | Path):
            graph, fallback, where = Graph.load(item), Path(item).stem, f"--graph {item}"
        else:
            raise InputError(
                f"graphs must be Graph objects or graph files, got {type(item).__name__}"
            )
        name = given or graph.name or fallback
        if not row_name.match(name):
            raise InputError(
                f"{where}: {name!r} cannot name a row (letters, digits, '.', '_', '-'): "
                "give the file a name: line"
            )
        found.append((name, graph))
    return found


def schemes_list(schemes: str | Sequence[str]) -> list[str]:
    """Scheme names from one comma-separated string (`io,got_paper:parts=8,got`) or a list."""
    from thoughtgraph.schemes.variants import split_list

    if isinstance(schemes, str):
        return split_list(schemes)
    return list(dict.fromkeys(str(x).strip() for x in schemes if str(x).strip()))


def _prompt_texts(
    prompts: str | Path | Mapping[str, str], plans: list[EvalPlan], s: EvalConfig
) -> dict[str, str]:
    """The texts to send instead of the built-in prompts: a mapping slot -> text as given, or a
    prompts file (tune's format), checked against every prompt the plans' graphs send; a slot
    with several variants sends its first (a note says so)."""
    from thoughtgraph.evaluation.prompt_variants import load
    from thoughtgraph.evaluation.runner import prompt_slots

    slots: dict[str, frozenset[str]] = {}
    for the_plan in plans:
        for slot, fills in prompt_slots(the_plan).items():
            slots[slot] = slots.get(slot, fills) & fills
    if isinstance(prompts, Mapping):
        unknown = sorted(set(prompts) - set(slots))
        if unknown:
            raise InputError(
                f"prompts: no row sends a prompt {shown(unknown[0])} "
                f"(they send: {', '.join(sorted(slots))})"
            )
        return {str(slot): str(text) for slot, text in prompts.items()}
    path = Path(prompts)
    variants = load(path, slots)
    several = [slot for slot, named in variants.slots.items() if len(named) > 1]
    if several:
        s.say(
            Note(
                f"{s.word('prompts')} {path}: eval sends each slot's first variant "
                f"({', '.join(f'{x}: {next(iter(variants.slots[x]))}' for x in several)})"
            )
        )
    return {slot: next(iter(named.values())) for slot, named in variants.slots.items()}


def _routed(s: EvalConfig, lm: LanguageModel, called: set[str]) -> dict[str, LanguageModel]:
    """The models of the kinds routed away from `model` (kind -> model), each built once and
    checked before anything runs (a kind built in, or one the rows' graphs call: a graph
    file's own prompt); the openai `model_options` fill in what their specs leave out."""
    return models_for(
        s.models,
        lm,
        default_spec=s.model if isinstance(s.model, str) else None,
        overrides=dict(s.model_options or {}),
        label=s.word("models", "--model-for"),
        own=called,
    )


def _called(plans: list[EvalPlan]) -> set[str]:
    """The kinds of call the evaluation's rows make (their prompts' names)."""
    called: set[str] = set()
    for the_plan in plans:
        for row in the_plan.schemes:
            graph = judged(the_plan.graph_for(row, the_plan.size), the_plan.task)
            called |= set(graph.call_kinds)
    return called


def pair_models(s: EvalConfig, routed: Mapping[str, LanguageModel]) -> dict[str, ModelLike] | None:
    """What each pair is handed for the routed kinds: a simulated model's spec (a fresh model
    per pair, as for `model`, so its answers do not depend on the order pairs run in), else
    the model built once."""
    if not routed:
        return None
    given = dict(s.models or {})
    return {
        kind: given[kind] if isinstance(given.get(kind), str) and _simulated(lm) else lm
        for kind, lm in routed.items()
    }


def _note_uncalled(
    plans: list[EvalPlan], routed: Mapping[str, LanguageModel], s: EvalConfig
) -> None:
    """One note per routed kind that no row of the evaluation calls: its model answers
    nothing (a typo of intent, such as `--model-for merge` beside `--schemes io,cot`)."""
    if not routed:
        return
    called = _called(plans)
    for kind in routed:
        if kind not in called:
            s.say(
                Note(
                    f"{s.word('models', '--model-for')} {kind}: no row of this evaluation makes "
                    f"a {kind} call (they call: {', '.join(sorted(called)) or 'none'})"
                )
            )


def _check_backend_routes(
    backend: PairBackend, routed: Mapping[str, LanguageModel], s: EvalConfig
) -> None:
    """Ray's workers build each pair's models from their specs: routed kinds travel as specs
    (text), never as objects (one line, before anything runs)."""
    objects = [kind for kind, given in (s.models or {}).items() if not isinstance(given, str)]
    if routed and objects and backend is not LOCAL_PAIRS:
        raise InputError(
            f"{s.word('models', '--model-for')} {objects[0]}: with {s.word('ray', '--ray')} give "
            "each routed kind a model spec (text such as 'openai:NAME@URL'), not an object"
        )


def _model(s: EvalConfig) -> LanguageModel:
    options = dict(s.model_options or {})
    if not options:
        return as_model(s.model)
    if not isinstance(s.model, str):
        raise InputError("model_options are for a model spec string (openai:MODEL), not an object")
    return from_spec(s.model, **options)


def _note_unsampled(the_plan: EvalPlan, lm: LanguageModel, config: EvalConfig) -> None:
    """One note when the rows (or the repeats) ask a prompt for several answers and the model
    is a user's code that cannot tell them apart: those figures are then one answer's."""
    if not ignores_samples(lm):
        return
    repeats = [f"{config.word('repeats')} {the_plan.repeats}"] if the_plan.repeats > 1 else []
    asked = sampled_rows(the_plan) + repeats
    if not asked:
        return
    who = " and ".join([", ".join(asked[:-1]), asked[-1]] if len(asked) > 1 else asked)
    config.say(
        Note(
            f"{lm.name} takes no keyword sample, so the several answers {who} "
            f"{'asks' if len(asked) == 1 else 'ask'} of one prompt are that prompt sent again: "
            "they differ only if it draws at random itself (give it a keyword sample to vary "
            "them: docs/models.md)"
        )
    )


def _simulated(lm: LanguageModel) -> bool:
    return bool(getattr(lm, "simulated", False))


@contextlib.contextmanager
def _root(out: str | Path | None) -> Iterator[tuple[Path, bool]]:
    """The evaluation's folder and whether it is the user's (kept, with reports): without
    `out`, a scratch folder removed at the end."""
    if out is not None:
        yield Path(out), True
        return
    with tempfile.TemporaryDirectory(prefix="thoughtgraph-eval-") as scratch:
        yield Path(scratch), False


def _claim(
    plans: list[EvalPlan],
    folders: list[Path],
    root: Path,
    lm: LanguageModel,
    keep: bool,
    routed: Mapping[str, LanguageModel],
) -> list[Resumed]:
    """Refuse a folder holding another evaluation before any is made, then take each folder's
    lock (one evaluation per folder: a second one refuses, not interleaves); returns what each
    already holds of its plan's pairs."""
    from thoughtgraph.evaluation.lock import hold_folder_lock

    if len(plans) > 1 and root.exists() and not root.is_dir():
        raise InputError(f"--out {root} is a file, not a folder")
    for folder, the_plan in zip(folders, plans, strict=True):
        check_folder(folder, the_plan, lm, routed)
    if keep:
        for folder in folders:
            hold_folder_lock(folder)
    return [check_folder(f, p, lm, routed) for f, p in zip(folders, plans, strict=True)]


def _left(options: RunOptions, outcomes: list[Outcome]) -> RunOptions:
    """The options of the next size: under what the whole evaluation's caps leave it (the sizes
    run so far spent the rest; each size's own folder is counted by `runner.run_pairs`),
    `spend.budget.share` with one slot."""
    ran = [r for _p, _f, rs in outcomes for r in rs]
    spent = Amounts(
        sum(r.requests for r in ran), sum(r.tokens for r in ran), sum(r.cost for r in ran)
    )
    return options.within(share(options.budget, spent))


async def _run_size(
    size: _Size,
    lm: LanguageModel,
    runner: PairRunner | None,
    keep: bool,
    s: EvalConfig,
    routed: Mapping[str, LanguageModel],
) -> EvalResults:
    """One size's pairs, then (in the user's folder) its reports; Ctrl-C is `EvalInterrupted`
    (the finished pairs are on disk)."""
    the_plan, folder = size.plan, size.folder
    for line in size.held.notes(s.word("out")):  # the pairs rerun, and why
        s.say(Note(line))
    prices = {display_name(m): size.options.price_of(m) for m in (lm, *routed.values())}
    changed = size.held.price_line(prices)  # the reused pairs' costs are at their own price
    if changed is not None:
        s.say(Note(changed))
    s.say(SizeStarting(the_plan, folder, size.done, shown_name(lm) + routes_note(routed)))
    if s.traces and size.done:
        s.say(
            Note(
                f"{s.word('traces')} writes the traces of the pairs run now; the "
                f"{size.done} pairs already done keep none (a new "
                f"{s.word('out')} traces every pair)"
            )
        )
    simulated = _simulated(lm) and isinstance(s.model, str)
    try:
        results = await run_pairs(
            the_plan,
            s.model if simulated else lm,  # a spec: a fresh simulated model per pair
            folder,
            size.options,
            parallel=s.pairs,
            traces=s.traces,
            pair_runner=runner,
            on_result=s.on_result,
            models=pair_models(s, routed),
        )
    except asyncio.CancelledError:
        kept = check_folder(folder, the_plan, lm, routed).done
        total = len(the_plan.schemes) * len(the_plan.samples) * the_plan.repeats
        raise EvalInterrupted(folder / "results.jsonl", kept, total) from None
    files = _write_reports(the_plan, lm, results, folder, s.figure) if keep else []
    one = EvalResults.of(the_plan, lm, results, folder if keep else None, files)
    s.say(SizeDone(one))
    return one


def _write_combined(
    outcomes: list[Outcome], lm: LanguageModel, root: Path, figure: bool
) -> list[Path]:
    """The combined reports of several sizes, in the evaluation's folder."""
    simulated = _simulated(lm)
    heading = title(outcomes[0][0], lm.name, simulated, several=True)
    return write_combined(outcomes, heading, model_note(lm.name, simulated), root, figure)


def _write_reports(
    the_plan: EvalPlan, lm: LanguageModel, results: list[PairResult], folder: Path, figure: bool
) -> list[Path]:
    """results.jsonl's summaries and figure in the size's folder, as `thoughtgraph eval`
    writes them."""
    from thoughtgraph.evaluation.report import write_reports

    simulated = _simulated(lm)
    return [
        folder / "results.jsonl",
        *write_reports(
            results,
            the_plan.schemes,
            the_plan.size,
            title(the_plan, lm.name, simulated),
            model_note(lm.name, simulated),
            folder,
            task=the_plan.task,
            panel_name="" if sized(the_plan.dataset) else the_plan.dataset,
            unclipped=the_plan.from_data,
            built=rows_built(the_plan),
            figure=figure,
        ),
    ]
