"""The evaluation harness: every (scheme, sample) pair of a dataset, concurrently, resumably.

Each finished pair is appended to `results.jsonl` at once (flushed), so an interrupted evaluation
loses nothing: run it again with the same `--out` and the finished pairs are skipped. `eval.json`
(the manifest) names the task, dataset, size and model of the folder's evaluation, so a rerun
with another of them is refused instead of mixing its results with the old ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import math
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from pydantic import ConfigDict, TypeAdapter, ValidationError

from thoughtgraph.engine import kinds
from thoughtgraph.engine.graph import Graph, Op
from thoughtgraph.engine.ops import BranchParams, ScoreParams
from thoughtgraph.engine.options import RunOptions
from thoughtgraph.engine.result import Result, ResultStatus
from thoughtgraph.engine.trace import trace_dict
from thoughtgraph.engine.worstcase import WorstCase
from thoughtgraph.errors import (
    BudgetExhausted,
    GraphError,
    InputError,
    ThoughtgraphError,
    UnknownNameError,
    shown,
)
from thoughtgraph.evaluation import fingerprint, record
from thoughtgraph.evaluation.datasets import DATASETS, Data, Sample, dataset_task, load_dataset
from thoughtgraph.evaluation.record import Built
from thoughtgraph.events import StopReason
from thoughtgraph.io.bounds import MAX_RUN_FILE_BYTES, read_file
from thoughtgraph.io.strictload import read_json
from thoughtgraph.models.base import (
    AnswerSink,
    Completion,
    LanguageModel,
    WrapperModel,
    complete_delivering,
    complete_with,
    model_settings,
)
from thoughtgraph.models.limits import ConcurrencyLimiter
from thoughtgraph.models.samples import repeat_numbering
from thoughtgraph.modelspec import ModelLike, as_model, models_for
from thoughtgraph.schemes import SPEC_PATTERNS, paper_options, variants
from thoughtgraph.sim.model import SimulatedModel
from thoughtgraph.solving.solve import check_graph_task, prepare, prepare_resolved, run_prepared
from thoughtgraph.spend.accounting import consumed
from thoughtgraph.spend.budget import Meter
from thoughtgraph.spend.ledger import RequestRecorder
from thoughtgraph.spend.pricing import Price
from thoughtgraph.tasks import BaseTask, Task, get_task
from thoughtgraph.tasks.reference import answer_matches
from thoughtgraph.tasks.scorer import ScorerFailed

RESULTS = "results.jsonl"
# Runs one pair elsewhere (e.g. on a Ray cluster): (scheme, sample, repeat, the evaluation's
# ledger) -> its result. It must keep to the ledger's caps and record there what the pair paid,
# and write the pair's trace into the folder when the evaluation writes traces.
PairRunner = Callable[[str, Sample, int, Meter], Awaitable["PairResult"]]
DEFAULT_OPTIONS = RunOptions()
MANIFEST = "eval.json"
# What runs of this evaluation paid for that no line of results.jsonl holds: the requests of
# pairs cut short by Ctrl-C or a fatal model error. Carried into the budget of every rerun.
UNRECORDED = "unrecorded-spend.json"
TRACES = "traces"
JUDGE_OP = "judge"


@dataclass(frozen=True)
class PairResult:
    """One line of results.jsonl: how one scheme did on one sample."""

    scheme: str  # the row: a scheme, a variant (got_paper:parts=8) or a graph file's name
    sample: int | str
    error: float
    clipped_error: float  # min(error, size), as the paper plots it (a --data row: the error)
    solved: bool | None  # output matches the reference (matches_reference); None: it has none
    status: ResultStatus
    requests: int  # HTTP requests sent (retries and parallel singles included)
    completions: int  # answers the pair got (from the model or the answer cache)
    tokens: int
    cost: float
    wall_seconds: float
    depth: int
    volume: int
    model: str
    simulated: bool
    stop_reason: StopReason | None = None  # None: the run went to its end
    final_score: float | None = None  # the final thought's own score; on a model-scored task
    # the model's rating of the final answer (doc-merge: the harmonic mean of redundancy and
    # retention, 0-10; a task file: its rubric's 0-scale), None when no rating could be read
    calls: int | None = None  # model calls (None in results from before they were counted)
    trace: str | None = None  # the pair's trace, relative to the folder (`eval --traces`)
    # What the scheme consumed, answers from the wire and from the cache alike (`requests`,
    # `tokens` and `cost` above are what this run paid): the same on a cold and a warm cache.
    # None in results from before they were recorded (read as the paid figures).
    intrinsic_requests: int | None = None  # the graph's model calls
    intrinsic_tokens: int | None = None
    intrinsic_cost: float | None = None  # at the run's price (list price or --price-in/out)
    repeat: int = 0  # which of `eval --repeats R` runs of this (scheme, sample) it is (0..R-1)
    prompts: str | None = None  # hash of the prompt texts it ran with (`eval --prompts`); None:
    # the built-in prompts
    unrated: bool = False  # the graph asked the model to rate the final answer and no rating
    # was read: no measurement, counted apart (never as a 0) in summaries and figures
    fingerprint: dict[str, str] | None = None  # what decided its answer, hashed part by part
    # (`fingerprint.py`): a resumed eval reuses it only when it matches; None in results from
    # before fingerprints
    model_for: dict[str, str] | None = None  # kinds of call routed to other models: kind ->
    # the model's label (`--model-for`); None: every call went to `model`
    spend_by_model: dict[str, dict[str, Any]] | None = None  # with routed kinds: each model's
    # calls, requests, tokens, cost and the kinds it answered (label -> figures)
    prices: dict[str, list[float] | None] | None = None  # each model's price the pair ran at
    # (label -> [input, output] USD per million tokens; None: no price); None in results from
    # before they were recorded

    # how `from_line` reads a line back: every field of its declared type, no other key
    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(strict=True, extra="forbid")

    @classmethod
    def from_line(cls, line: str) -> PairResult:
        """One line of results.jsonl, read through the bounded loader and then field by field
        as declared: a damaged or hand-edited line (`"requests": "x"`, a list for a sample, an
        unknown word or key) is a ValueError here, not a traceback in a sum, a sort or a
        comparison later. Its words come back as the enums they name."""
        read_json(line)  # depth and integer bounds before pydantic's parser sees the text
        return _result_reader().validate_json(line)


@functools.cache
def _result_reader() -> TypeAdapter[PairResult]:
    """Built once, when a results file is first read back."""
    return TypeAdapter(PairResult)


@dataclass(frozen=True)
class EvalPlan:
    """What an evaluation runs: every row (`schemes`: built-in schemes, variants such as
    `got_paper:parts=8`, and the names of `graphs`, graph files) on every sample."""

    task: str
    size: int
    schemes: tuple[str, ...]
    dataset: str
    samples: tuple[Sample, ...]
    graphs: tuple[tuple[str, Graph], ...] = ()  # (row name, graph): `eval --graph FILE`
    data_sha256: str | None = None  # `--data FILE`: a rerun refuses the folder if it changed
    spec: str | Task[Any, Any] | None = None  # the task as given when not a built-in name (an
    # import string, a task file, a Task object): how a Ray worker loads it again
    repeats: int = 1  # runs of every (scheme, sample), each with its own seed (`for_repeat`)
    prompts: tuple[tuple[str, str], ...] = ()  # (slot, template) sent instead of the built-in
    resolved: BaseTask[Any, Any] | None = field(default=None, compare=False, repr=False)  # the
    # task object, resolved once by `plan`; None only in a Ray shipment's payload, until a worker
    # loads it

    @property
    def task_spec(self) -> str | Task[Any, Any]:
        """The task as given (its name for a built-in one)."""
        return self.task if self.spec is None else self.spec

    @property
    def the_task(self) -> BaseTask[Any, Any]:
        """The task object every pair runs: resolved once (a task file is read once)."""
        if self.resolved is None:
            raise RuntimeError(f"the plan of {self.task} holds no task object (a shipment's?)")
        return self.resolved

    @property
    def from_data(self) -> bool:
        """Are the samples a user's data rows (`--data`), whose errors are not clipped?"""
        return any(sample.row is not None for sample in self.samples)

    def graph_for(self, row: str, size: int, parts: int | None = None) -> Graph:
        """The graph of a row for a problem of `size` items (`parts`: the task's own default
        parts for the problem, `own_parts`, where the row takes them)."""
        for name, graph in self.graphs:
            if name == row:
                return graph
        task = self.task if self.resolved is None else self.resolved  # the object: its own
        variant = variants.parse(row, self.task)
        if parts is not None:
            variant = replace(variant, settings=(("parts", parts), *variant.settings))
        built: Graph = variant.build(task, size)  # split and parts
        return built

    def sample_graph(self, row: str, sample: Sample) -> Graph:
        """The graph a row runs on one sample: a scheme is built for the sample's own size (its
        count of items) and the task's own parts for it (`own_parts`), a graph file is the same
        on every sample. `tune` builds its baselines and its default candidate with this too,
        so one name is one graph in both."""
        return self.graph_for(row, len(sample.input), self.own_parts(row, sample))

    def own_parts(self, row: str, sample: Sample) -> int | None:
        """The parts the task's `default_parts` gives the sample, for a `got` or `got_adaptive`
        row that sets none, as `solve` takes them: a user's task may count them its own way (a
        duck-typed task must define it), which no part size says. None: the row's own."""
        if self.resolved is None or any(name == row for name, _ in self.graphs):
            return None
        variant = variants.parse(row, self.task)
        if variant.scheme not in SPEC_PATTERNS or "parts" in dict(variant.settings):
            return None
        parts: int = self.resolved.default_parts(sample.input)
        return parts

    def worst_case(self, row: str) -> WorstCase | None:
        """The most one pair of a row can ask of the model, known before any call: the worst
        case of the graph it runs on its largest sample (a scheme's graph grows with the
        size), as the pair runs it (the model's rating added where eval adds one); None when
        some op's kind does not bound itself."""
        largest = max(self.samples, key=lambda s: len(s.input), default=None)
        if largest is None:
            return None
        return judged(self.sample_graph(row, largest), self.task).worst_case()

    @property
    def prompts_hash(self) -> str | None:
        """What identifies the prompt texts of this evaluation (None: the built-in ones)."""
        if not self.prompts:
            return None
        canonical = json.dumps(sorted(self.prompts), ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def dataset_for(task: str, size: int) -> str:
    """The built-in dataset of a task at a size (e.g. sorting, 64 -> sorting_064)."""
    candidates = [name for name, t in DATASETS.items() if t == task]
    if not candidates:
        raise UnknownNameError(f"no built-in dataset for task {shown(task)}")
    sized = [name for name in candidates if name.endswith(f"_{size:03d}")]
    if sized:
        return sized[0]
    if len(candidates) == 1:
        return candidates[0]
    sizes = ", ".join(name.rsplit("_", 1)[-1].lstrip("0") for name in candidates)
    raise InputError(f"no {task} dataset of size {size} (sizes: {sizes})")


def plan(
    task: str | Task[Any, Any],
    size: int,
    schemes: Sequence[str],
    samples: int,
    dataset: str | None = None,
    *,
    data: Data | None = None,
    graphs: Sequence[tuple[str, Graph]] = (),
    check: bool = True,
    repeats: int = 1,
    prompts: dict[str, str] | None = None,
    given: str | Task[Any, Any] | None = None,
) -> EvalPlan:
    """Check every name, and (with `check`) build every row's graph for every problem size, before
    anything runs: a scheme, variant or graph file that cannot run on a sample is one line now.

    `data` (a data file, `datasets.load_data`) stands in place of a built-in dataset; `graphs`
    are (row name, graph) pairs run beside the schemes. `task` is resolved here, once, and the
    plan carries the object; `given` is the task as the user gave it when `task` is already the
    object (kept for Ray's workers, which load it the way it was given)."""
    the_task = get_task(task)
    rows = list(dict.fromkeys(variants.parse(s, the_task.name).name for s in schemes))
    names = [n for n, _g in graphs]
    taken = set(rows)
    for name in names:
        if name in taken:
            raise InputError(
                f"two rows are named {name!r}: give each --graph file its own name: (or rename "
                "the file)"
            )
        taken.add(name)
    if not rows and not graphs:
        raise InputError("give at least one scheme or --graph")
    if samples < 1:
        raise InputError(f"--samples must be at least 1, got {samples}")
    if data is not None and dataset is not None:
        raise InputError("give either --dataset or --data, not both")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise InputError(f"--repeats must be a whole number, at least 1, got {repeats!r}")
    if dataset is not None and dataset_task(dataset) != the_task.name:
        raise InputError(
            f"dataset {dataset} is for task {shown(dataset_task(dataset))}, "
            f"not {shown(the_task.name)}"
        )
    as_given = task if given is None else given
    builtin = isinstance(as_given, str) and as_given.strip().lower() == the_task.name
    spec = None if builtin else as_given
    if data is not None:
        chosen = data.samples[:samples]
        name, problem_size, sha256 = data.name, max(len(s.input) for s in chosen), data.sha256
    else:
        name = dataset or dataset_for(the_task.name, size)
        chosen, problem_size, sha256 = load_dataset(name)[:samples], dataset_size(name, size), None
    the_plan = EvalPlan(
        the_task.name,
        problem_size,
        tuple([*rows, *names]),
        name,
        chosen,
        tuple(graphs),
        sha256,
        spec,
        repeats,
        tuple(sorted((prompts or {}).items())),
        resolved=the_task,
    )
    if check:
        check_rows(the_plan)
    return the_plan


def check_rows(the_plan: EvalPlan) -> None:
    """Build every row's graph for each problem size of the plan's samples and check it against
    a sample of that size (prompts, capabilities, parts): one line for the first that cannot run.
    A graph file that says its `size` is refused on a dataset of another size."""
    by_size: dict[int, Sample] = {}
    for sample in the_plan.samples:
        by_size.setdefault(len(sample.input), sample)
    files = dict(the_plan.graphs)
    for row in the_plan.schemes:
        graph = files.get(row)
        if graph is not None:
            check_graph_task(graph, the_plan.task, f"graph {row}")
        if (
            graph is not None
            and graph.size is not None
            and sized(the_plan.dataset)
            and graph.size != the_plan.size
        ):
            raise GraphError(
                f"graph {row} was built for size {graph.size}, but {the_plan.dataset} has "
                f"size {the_plan.size}: tune at size {the_plan.size}, or drop its size: line "
                "to run it anyway"
            )
        for size, sample in by_size.items():
            where = sample_where(the_plan, sample)
            try:
                built = the_plan.sample_graph(row, sample)
                prepare(
                    the_plan.the_task,
                    sample.given,
                    judged(built, the_plan.task),
                    reference=sample.reference if sample.row is not None else None,
                )
            except ThoughtgraphError as exc:
                what = f"graph {row}" if graph is not None else f"scheme {row}"
                message = str(exc).removeprefix(f"scheme {row}: ")
                raise GraphError(
                    f"{what} cannot run on {where} ({size} items): {message}"
                ) from None


def sampled_rows(the_plan: EvalPlan) -> list[str]:
    """The rows whose graph asks one prompt for several answers (tot's k, cot_sc's and
    got_paper's samples, a rating asked several times): a model that answers a prompt alike
    whatever the sample gives them one answer, repeated."""
    size = len(the_plan.samples[0].input) if the_plan.samples else the_plan.size
    return [
        row
        for row in the_plan.schemes
        if any(
            _answers_per_prompt(op) > 1
            for op in judged(the_plan.graph_for(row, size), the_plan.task).ops
        )
    ]


def _answers_per_prompt(op: Op) -> int:
    """How many answers the op asks of each prompt it sends."""
    if isinstance(op.params, BranchParams):
        return op.params.n * op.params.repeat
    if isinstance(op.params, ScoreParams):
        return op.params.samples
    return 1


def dataset_size(name: str, size: int) -> int:
    """The size a dataset is built for (sorting_064 -> 64); `size` for one without a size."""
    suffix = name.rsplit("_", 1)[-1]
    return int(suffix) if "_" in name and suffix.isdigit() else size


def sized(name: str) -> bool:
    """Does the dataset's name carry its problem size (sorting_032), or is it its task's only
    one (countries, documents)?"""
    return dataset_size(name, -1) != -1


def manifest(the_plan: EvalPlan, model_name: str) -> dict[str, Any]:
    """What a folder's evaluation is of: a rerun with another of these is refused. The data
    file's hash and each graph file's digest are there when the plan has them."""
    found: dict[str, Any] = {
        "task": the_plan.task,
        "dataset": the_plan.dataset,
        "size": the_plan.size,
        "model": model_name,
    }
    if the_plan.data_sha256 is not None:
        found["data_sha256"] = the_plan.data_sha256
    if the_plan.prompts:
        found |= {"prompts_hash": the_plan.prompts_hash, "prompts": dict(the_plan.prompts)}
    return found


def graph_digests(the_plan: EvalPlan) -> dict[str, str]:
    """Each graph file's row name -> the sha256 of its graph (its name left out)."""
    return {name: fingerprint.of_graph(graph) for name, graph in the_plan.graphs}


PairKey = tuple[str, int | str, int]
"""What a line of results.jsonl is the result of: (scheme, sample, repeat)."""


def pair_fingerprints(
    the_plan: EvalPlan, model: LanguageModel, routed: Mapping[str, LanguageModel] | None = None
) -> dict[tuple[str, int | str], fingerprint.Fingerprint]:
    """Each (row, sample) of the plan -> what decides its answer (`fingerprint.py`): the same
    for every repeat, whose seed is its key's. `routed`: the kinds sent to other models."""
    common = {**fingerprint.of_model(model), "task": fingerprint.of_task(the_plan.the_task)}
    graphs: dict[tuple[str, int, int | None], fingerprint.Fingerprint] = {}
    found = {}
    for sample in the_plan.samples:
        row = fingerprint.of_row(sample)
        for scheme in the_plan.schemes:
            at = (len(sample.input), the_plan.own_parts(scheme, sample))
            if (scheme, *at) not in graphs:
                graphs[scheme, *at] = _graph_parts(the_plan, scheme, *at, routed or {})
            found[scheme, sample.id] = {**common, "row": row, **graphs[scheme, *at]}
    return found


def _graph_parts(
    the_plan: EvalPlan,
    scheme: str,
    size: int,
    parts: int | None,
    routed: Mapping[str, LanguageModel],
) -> fingerprint.Fingerprint:
    """A row's graph at a size (and the task's own parts) as its pairs run it, the prompt
    texts it sends in place of the task's, and the models of the routed kinds it calls (a row
    that calls none of them, `io` beside `--model-for merge`, is the row it was without them)."""
    graph = judged(the_plan.graph_for(scheme, size, parts), the_plan.task)
    mine = {op.prompt for op in graph.ops if op.prompt is not None}
    sent = fingerprint.of_prompts({slot: text for slot, text in the_plan.prompts if slot in mine})
    calls = graph.call_kinds
    routes = fingerprint.of_routes({k: lm for k, lm in routed.items() if k in calls})
    found = {"graph": fingerprint.of_graph(graph), **routes}
    return found if sent is None else {**found, "prompts": sent}


@dataclass(frozen=True)
class Resumed:
    """What a folder's results are to this evaluation (`check_folder`): the finished pairs it
    reuses, and those whose latest line is of another pair (`stale`: what decides its answer
    changed since, `fingerprint.changes`), run again and never reported as this one's."""

    prints: Mapping[tuple[str, int | str], fingerprint.Fingerprint]  # the plan's, per pair
    reused: frozenset[PairKey] = frozenset()
    stale: frozenset[PairKey] = frozenset()
    reasons: Mapping[str, int] = field(default_factory=dict)  # reason -> stale pairs
    unchecked: int = 0  # reused pairs whose lines record no fingerprint (older results)
    # the prices the reused pairs ran at: model label -> (input, output) or None -> pairs
    priced: Mapping[str, Mapping[tuple[float, float] | None, int]] = field(default_factory=dict)

    @property
    def done(self) -> int:
        return len(self.reused)

    def price_line(self, now: Mapping[str, Price | None]) -> str | None:
        """One line naming each model (label -> its price now) whose reused pairs ran at
        another price: their costs stay as paid (None: every price is as it was)."""
        said = []
        for label, price in now.items():
            current = None if price is None else (price.input, price.output)
            other = {was: n for was, n in self.priced.get(label, {}).items() if was != current}
            if other:
                was = ", ".join(_price_shown(p) for p in other)
                said.append(
                    f"{sum(other.values())} ran {label} at {was}, now {_price_shown(current)}"
                )
        if not said:
            return None
        return (
            f"the price changed since pairs already done ran ({'; '.join(said)}; USD per "
            "million tokens in/out): their costs stay as they were paid"
        )

    def notes(self, out: str = "--out") -> list[str]:
        """One line for the pairs rerun and why; one for the pairs reused unchecked (`out`:
        the option's name as the user gives it)."""
        lines = [fingerprint.rerun_line(self.reasons, len(self.stale))] if self.stale else []
        if self.unchecked:
            lines.append(
                f"{self.unchecked} pairs reused as they are: their lines are from before "
                "results recorded what decided their answers, so a change of the model's code, "
                f"the task or the graph since cannot be seen (another {out} runs them afresh)"
            )
        return lines


def resumed(
    results: Sequence[PairResult],
    the_plan: EvalPlan,
    prints: Mapping[tuple[str, int | str], fingerprint.Fingerprint],
) -> Resumed:
    """Which of the plan's pairs the `results` of its folder hold (`prints`: the plan's
    fingerprints), which are stale and why. A pair the budget stopped, or one that got no answer
    at all, is not done: a rerun runs it again (its cached answers are free) and its new line
    supersedes it."""
    wanted = set(wanted_keys(the_plan))
    reused: set[PairKey] = set()
    stale: set[PairKey] = set()
    unchecked = 0
    reasons: Counter[str] = Counter()
    priced: dict[str, Counter[tuple[float, float] | None]] = {}
    for result in latest(results):
        if key(result) not in wanted:
            continue  # a pair of another plan in the same folder (other schemes, samples)
        why = fingerprint.changes(result.fingerprint, prints[result.scheme, result.sample])
        if why:
            stale.add(key(result))
            reasons.update(why)
        elif not is_incomplete(result) and not no_answer(result):
            reused.add(key(result))
            unchecked += result.fingerprint is None
            for label, price in (result.prices or {}).items():
                was = None if price is None else (float(price[0]), float(price[1]))
                priced.setdefault(label, Counter())[was] += 1
    return Resumed(prints, frozenset(reused), frozenset(stale), dict(reasons), unchecked, priced)


def _price_shown(price: tuple[float, float] | None) -> str:
    return "no price" if price is None else f"{price[0]:g}/{price[1]:g}"


def problem_sizes(the_plan: EvalPlan) -> list[int]:
    """The sizes of the plan's problems, each once, smallest first (a data file's rows differ)."""
    return sorted({len(sample.input) for sample in the_plan.samples})


def rows_built(the_plan: EvalPlan) -> dict[str, Built]:
    """How each row of the plan is built at its problems' sizes: what its labels say."""
    graph_rows = [name for name, _graph in the_plan.graphs]
    task = the_plan.task if the_plan.resolved is None else the_plan.resolved  # as `graph_for`
    return record.rows_built(
        the_plan.schemes, graph_rows, the_plan.task, task, problem_sizes(the_plan)
    )


def what_was_built(the_plan: EvalPlan, old: dict[str, Any]) -> dict[str, Any]:
    """The manifest's record of the rows (`evaluation/record.py`), added to what an earlier run
    into the folder recorded of its own rows, and the least and most problem size."""
    sizes = problem_sizes(the_plan)
    earlier = old.get(record.ROWS)
    rows = {
        **(earlier if isinstance(earlier, dict) else {}),
        **record.to_json(rows_built(the_plan)),
    }
    return {record.ROWS: rows, record.PROBLEM_SIZES: [sizes[0], sizes[-1]]}


def check_folder(
    out: Path,
    the_plan: EvalPlan,
    model: LanguageModel,
    routed: Mapping[str, LanguageModel] | None = None,
) -> Resumed:
    """Refuse an `--out` that cannot hold this evaluation; returns what it holds of the plan's
    pairs (`resumed`: those done, and those to rerun since what decides their answer changed).

    The folder's manifest (or, in a folder from before manifests, its results' model) must name
    the same task, dataset, size and model: results of another evaluation are never reused.
    """
    model_name = model.name
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out} is a file, not a folder")
    prints = pair_fingerprints(the_plan, model, routed)
    if not out.exists():
        return Resumed(prints)
    for name in (MANIFEST, RESULTS):
        if (out / name).exists() and not (out / name).is_file():
            raise InputError(f"{out / name} is not a file (move it away or use another --out)")
    want = manifest(the_plan, model_name)
    have = _read_manifest(out)
    done = load_results(out)
    if have is None:  # an older folder: its results still name their model
        models = {r.model for r in done}
        have = dict(want, model=models.pop()) if len(models) == 1 else None
        if len(models) > 1:
            raise InputError(f"{out} holds results of several models; use another --out")
    if have is not None and have.get("prompts_hash") != want.get("prompts_hash"):
        raise InputError(
            f"{out} holds an evaluation with "
            + (
                f"prompts {have['prompts_hash']}"
                if have.get("prompts_hash")
                else "the built-in prompts"
            )
            + ", this one has "
            + (
                f"prompts {want['prompts_hash']}"
                if want.get("prompts_hash")
                else "the built-in prompts"
            )
            + "; use another --out"
        )
    if (
        have is not None
        and have.get("data_sha256") != want.get("data_sha256")
        and all(have.get(k) == v for k, v in want.items() if k != "data_sha256")
    ):
        raise InputError(
            f"{out} holds an evaluation of another version of {the_plan.dataset} (the data "
            "file changed since); use another --out"
        )
    if have is not None and any(have.get(k) != v for k, v in want.items()):
        size = f" at size {have.get('size')}" if not sized(str(have.get("dataset"))) else ""
        raise InputError(
            f"{out} holds an evaluation of {have.get('task')} on "
            f"{have.get('dataset')}{size} with model {have.get('model')}; "
            "use another --out"
        )
    old_graphs = (have or {}).get("graphs") or {}
    for name, digest in graph_digests(the_plan).items():
        if name in old_graphs and old_graphs[name] != digest:
            raise InputError(
                f"{out} holds results of another graph named {name!r}; rename one or use "
                "another --out"
            )
    return resumed(done, the_plan, prints)


def _read_manifest(out: Path) -> dict[str, Any] | None:
    path = out / MANIFEST
    if not path.exists():
        return None
    try:
        data = read_json(read_file(path, MAX_RUN_FILE_BYTES, "the eval manifest"))
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise InputError(
            f"{path} is not an evaluation manifest (move it away or use another --out)"
        )
    return data


def load_results(out: Path) -> list[PairResult]:
    path = out / RESULTS
    if not path.exists():
        return []
    # bounded: a FIFO, a device or a huge file is one line (compare read /dev/zero to 3.4 GB)
    lines = read_file(path, MAX_RUN_FILE_BYTES, "the eval results").splitlines()
    results = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            results.append(PairResult.from_line(line))
        except ValueError as exc:  # not JSON, or not a result's fields, types and words
            if number == len(lines):
                continue  # a line cut short by an interruption: that pair runs again
            detail = _field_problem(exc) if isinstance(exc, ValidationError) else ""
            raise InputError(f"{path}: line {number} is not a result line{detail}") from None
    return results


def _field_problem(exc: ValidationError) -> str:
    """The first field pydantic refused, for the one error line: which field, and why."""
    first = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"]) or "the line"
    return f" ({where}: {first['msg'][0].lower()}{first['msg'][1:]})"


async def run_pairs(
    the_plan: EvalPlan,
    model: ModelLike,
    out: Path,
    options: RunOptions = DEFAULT_OPTIONS,
    *,
    parallel: int | None = None,
    traces: bool = False,
    pair_runner: PairRunner | None = None,
    on_result: Callable[[PairResult], None] | None = None,
    models: Mapping[str, ModelLike] | None = None,
) -> list[PairResult]:
    """Run every pair not yet in `out/results.jsonl`; returns the plan's results (old and new).
    `models` are the kinds of call routed to other models (a simulated one as its spec: fresh
    per pair, as `model`).

    A simulated model gets a fresh instance per pair, so its seeded answers do not depend on
    which pairs happen to run first. The budget is one ledger shared by every pair, counting the
    pairs already in `out` too: `options.max_requests` caps the HTTP requests of the whole
    evaluation, `max_tokens` its tokens and `max_cost` its USD (at the options' price or the
    built-in table's). Each request of each pair is reserved against it before it is sent, so
    pairs running side by side can never go past a cap together; once it is reached, the pairs
    running stop with their best thought so far (stop_reason "budget exhausted") and no further
    pair starts. `options.concurrency` is the cap on calls in flight, shared by all pairs (not
    per pair), and it is what decides: `parallel`, the most pairs running at once, defaults to
    it, so the calls in flight reach `concurrency` whatever each pair's own parallelism (a pair
    waiting for a call slot holds only its small graph state). `out` must be new or hold an
    evaluation of the same task, dataset, size and model (`check_folder`); its manifest is
    written before the first pair runs. `pair_runner` runs each pair somewhere else (scale/'s
    Ray backend) under the same ledger; results are written here all the same.
    """
    shared = None if isinstance(model, str) and model.startswith("sim") else as_model(model)
    model_name = (shared or as_model(model)).name
    meter = shared_meter(shared or as_model(model), options)
    routed = models_for(  # the kinds checked by the session against the rows' graphs
        models, shared or as_model(model), default_spec=_spec(model), own=None
    )
    for lm in routed.values():  # a cost cap needs every model priced: one line, before any pair
        options.price_of(lm)
    held = check_folder(out, the_plan, shared or as_model(model), routed)
    try:
        out.mkdir(parents=True, exist_ok=True)
        data = manifest(the_plan, model_name)
        if routed:  # what compare names beside the model (resume reruns by fingerprint)
            data["model_for"] = {kind: lm.name for kind, lm in routed.items()}
        graphs = {**((_read_manifest(out) or {}).get("graphs") or {}), **graph_digests(the_plan)}
        if graphs:
            data["graphs"] = graphs
        data |= what_was_built(the_plan, _read_manifest(out) or {})
        (out / MANIFEST).write_text(json.dumps(data, indent=1) + "\n")
    except OSError as exc:
        raise InputError(f"cannot write to {out}: {exc.strerror or exc}") from None
    rows = load_results(out)
    _rewrite(out / RESULTS, rows)
    finished = held.reused
    todo = [
        (s, x, rep)
        for rep in range(the_plan.repeats)
        for x in the_plan.samples
        for s in the_plan.schemes
        if (s, x.id, rep) not in finished
    ]
    gate = asyncio.Semaphore(options.concurrency if parallel is None else parallel)
    limiter = ConcurrencyLimiter(options.concurrency)  # one cap on calls in flight, all pairs
    for old in rows:  # the budget is the whole evaluation's: every earlier run was paid
        meter.carry(old.requests, old.tokens, old.cost)
    meter.carry(*_unrecorded(out))  # and so were the pairs that earlier runs cut short
    start = (meter.requests, meter.tokens, meter.cost)
    by_pair = {key(r): r for r in latest(rows) if key(r) not in held.stale}  # never another's
    written: list[PairResult] = []
    with _keep_unrecorded(out, meter, start, written), (out / RESULTS).open("a") as sink:

        async def run_pair(scheme: str, sample: Sample, repeat: int) -> None:
            async with gate:
                if exhausted(meter):
                    return
                pair = await (
                    pair_runner(scheme, sample, repeat, meter)
                    if pair_runner is not None
                    else solve_pair(
                        the_plan,
                        scheme,
                        sample,
                        *_pair_models(shared or as_model(model), model, models, routed, repeat),
                        meter,
                        options,
                        out if traces else None,
                        limiter,
                        repeat,
                    )
                )
                pair = replace(pair, fingerprint=held.prints[scheme, sample.id])
                sink.write(json.dumps(asdict(pair)) + "\n")
                sink.flush()
                written.append(pair)
                by_pair[key(pair)] = pair
                if on_result:
                    on_result(pair)

        await asyncio.gather(*(run_pair(s, x, rep) for s, x, rep in todo))
    order = {s: i for i, s in enumerate(the_plan.schemes)}
    ids = {x.id: i for i, x in enumerate(the_plan.samples)}  # in the dataset's order
    wanted = set(wanted_keys(the_plan))
    mine = [r for r in by_pair.values() if key(r) in wanted]  # not others
    return sorted(mine, key=lambda r: (order[r.scheme], ids[r.sample], r.repeat))


def _spec(model: ModelLike) -> str | None:
    return model if isinstance(model, str) else None


def _pair_models(
    pair_model: LanguageModel,
    model: ModelLike,
    models: Mapping[str, ModelLike] | None,
    routed: dict[str, LanguageModel],
    repeat: int,
) -> tuple[LanguageModel, dict[str, LanguageModel] | None]:
    """One pair's model and routed models (kind -> model): a simulated one fresh (from its
    spec), the others as built once; each as the `repeat`-th run asks it (`for_repeat`), a
    routed kind given the default's spec the default itself."""
    repeated = for_repeat(pair_model, repeat)
    if not models:
        return repeated, None
    fresh = any(isinstance(m, str) for m in models.values())
    mine = models_for(models, pair_model, default_spec=_spec(model), own=None) if fresh else routed
    return repeated, {
        kind: repeated if lm is pair_model else for_repeat(lm, repeat) for kind, lm in mine.items()
    }


def key(result: PairResult) -> PairKey:
    """What a line of results.jsonl is the result of: (scheme, sample, repeat)."""
    return result.scheme, result.sample, result.repeat


def wanted_keys(the_plan: EvalPlan) -> list[PairKey]:
    return [
        (s, x.id, rep)
        for s in the_plan.schemes
        for x in the_plan.samples
        for rep in range(the_plan.repeats)
    ]


def for_repeat(model: LanguageModel, repeat: int) -> LanguageModel:
    """The model of the `repeat`-th run of every pair: repeat 0 is the model as given. The
    simulated model draws from another seed (seed + repeat); another model is asked the same
    prompts again under a `repeat` setting, which keeps repeats apart in the answer cache, so
    each is a fresh sample at the model's temperature; a model that takes samples (a user's
    function with a keyword `sample`) is asked for the repeat's own samples
    (`models.samples.repeat_numbering`)."""
    if repeat == 0:
        return model
    if isinstance(model, SimulatedModel):
        return model.with_seed(model.seed + repeat)
    return Repeated(model, repeat)


class Repeated(WrapperModel):
    """`model` asked again: the same requests, with `repeat` among its answer-relevant settings
    (so the answer cache holds each repeat's answers apart), for the repeat's own samples."""

    def __init__(self, inner: LanguageModel, repeat: int) -> None:
        super().__init__(inner)
        self.repeat = repeat

    @property
    def settings(self) -> dict[str, Any]:
        return {**model_settings(self.inner), "repeat": self.repeat}

    def with_default_max_tokens(self, cap: int) -> LanguageModel:
        """The repeat of the model with the default answer cap (`engine.answer_cap`), as the
        pair's first run has it: the same requests again, not uncapped ones (itself when the
        model takes no default)."""
        method = getattr(type(self.inner), "with_default_max_tokens", None)
        if method is None:
            return self
        capped: LanguageModel = method(self.inner, cap)
        return self if capped is self.inner else Repeated(capped, self.repeat)

    async def complete(
        self, prompt: str, n: int = 1, *, recorder: RequestRecorder | None = None
    ) -> list[Completion]:
        with repeat_numbering(self.repeat, n):
            return await complete_with(self.inner, prompt, n, recorder)

    async def complete_delivering(
        self,
        prompt: str,
        n: int,
        deliver: AnswerSink,
        *,
        recorder: RequestRecorder | None = None,
    ) -> list[Completion]:
        with repeat_numbering(self.repeat, n):
            return await complete_delivering(self.inner, prompt, n, deliver, recorder)


def _unrecorded(out: Path) -> tuple[int, int, float]:
    """The spend of earlier runs' unfinished pairs (0s when there is none)."""
    path = out / UNRECORDED
    if not path.exists():
        return 0, 0, 0.0
    try:
        data = read_json(read_file(path, MAX_RUN_FILE_BYTES, "the unrecorded spend"))
        return int(data["requests"]), int(data["tokens"]), float(data["cost"])
    except (ValueError, TypeError, KeyError, OverflowError) as exc:
        raise InputError(f"{path} is damaged ({exc}); move it away") from None


@contextlib.contextmanager
def _keep_unrecorded(
    out: Path, meter: Meter, start: tuple[int, int, float], written: list[PairResult]
) -> Iterator[None]:
    """However the run ends (Ctrl-C, a fatal error), add what the meter counted beyond the lines
    written to UNRECORDED, so that a rerun's budget still counts it."""
    try:
        yield
    finally:
        requests = meter.requests - start[0] - sum(r.requests for r in written)
        tokens = meter.tokens - start[1] - sum(r.tokens for r in written)
        cost = meter.cost - start[2] - sum(r.cost for r in written)
        if requests > 0:
            old = _unrecorded(out)
            total = {
                "requests": old[0] + requests,
                "tokens": old[1] + max(0, tokens),
                "cost": old[2] + max(0.0, cost),
            }
            with contextlib.suppress(OSError):  # the run's own error is the one to report
                (out / UNRECORDED).write_text(json.dumps(total) + "\n")


def shared_meter(model: LanguageModel, options: RunOptions) -> Meter:
    """The evaluation's one budget ledger, at the model's price (its spec's own, the one given,
    or the built-in table's; a cost cap without a price is refused here)."""
    return Meter(options.budget, options.price_of(model))


def exhausted(meter: Meter) -> bool:
    """True once a cap leaves no room for another request."""
    try:
        meter.check()
    except BudgetExhausted:
        return True
    return False


def is_incomplete(result: PairResult) -> bool:
    """The budget stopped this pair before it finished: its figures are of a partial run."""
    return result.stop_reason == StopReason.BUDGET


def no_answer(result: PairResult) -> bool:
    """Every model call of this pair failed (not stopped by a cap): an endpoint down or refusing
    shows up as error figures, which must not pass for a measurement of the model."""
    return bool(result.calls) and not result.completions and not is_incomplete(result)


def incomplete(results: Sequence[PairResult]) -> list[PairResult]:
    """Pairs the budget stopped before they finished (left out of summaries, rerun on resume)."""
    return [r for r in results if is_incomplete(r)]


def complete(results: Sequence[PairResult]) -> list[PairResult]:
    """Pairs that ran to their end: the only ones summaries and figures are made of."""
    return [r for r in results if not is_incomplete(r)]


def latest(results: Sequence[PairResult]) -> list[PairResult]:
    """One result per (scheme, sample, repeat): the last line written wins (a rerun of a stopped
    pair)."""
    return list({key(r): r for r in results}.values())


def _rewrite(path: Path, results: list[PairResult]) -> None:
    """Drop a line cut short by an interruption, so appended lines start on a fresh line."""
    text = path.read_text() if path.exists() else ""
    if text and not text.endswith("\n"):
        path.write_text("".join(json.dumps(asdict(r)) + "\n" for r in results))


def sample_where(the_plan: EvalPlan, sample: Sample) -> str:
    """How a line names a sample: a data file's row by its file and number, else its id."""
    return f"{the_plan.dataset} row {sample.row}" if sample.row else f"sample {sample.id}"


async def solve_pair(
    the_plan: EvalPlan,
    scheme: str,
    sample: Sample,
    model: LanguageModel,
    models: Mapping[str, LanguageModel] | None,
    meter: Meter,
    options: RunOptions,
    trace_folder: Path | None = None,
    limiter: ConcurrencyLimiter | None = None,
    repeat: int = 0,
) -> PairResult:
    built = the_plan.sample_graph(scheme, sample)
    graph = judged(with_prompts(built, dict(the_plan.prompts)), the_plan.task)
    started = time.perf_counter()
    reference = None if sample.row is None else sample.reference  # a data row's, for ground_truth
    prepared = prepare_resolved(the_plan.the_task, sample.given, graph, reference=reference)
    try:
        result = await run_prepared(
            prepared, model, options, meter=meter, limiter=limiter, models=models
        )
    except ScorerFailed as exc:  # the user's scorer: which row and scheme it was scoring
        raise ScorerFailed(f"{sample_where(the_plan, sample)}, scheme {scheme}: {exc}") from None
    solved = None
    if sample.row is None and sample.reference is not None:  # a built-in dataset's
        solved = answer_matches(
            prepared.task, prepared.problem, result.output, None, sample.reference
        )
    elif sample.row is not None and sample.reference is not None:
        solved = answer_matches(
            prepared.task, prepared.problem, result.output, result.final.solved, sample.reference
        )
    elif sample.row is not None:
        solved = result.final.solved  # no reference: the task's own solver, if the graph asks
    trace = (
        None
        if trace_folder is None
        else write_trace(trace_folder, scheme, sample.id, result, repeat)
    )
    used = consumed(result.state.calls.values(), result.prices or result.price)
    return PairResult(
        scheme=scheme,
        sample=sample.id,
        error=result.error_count,
        clipped_error=min(result.error_count, float(_clip(the_plan, sample))),
        solved=solved,
        status=result.status,
        requests=result.requests,
        completions=result.completions,
        tokens=result.tokens,
        cost=float(getattr(result, "cost", 0.0) or 0.0),
        wall_seconds=round(time.perf_counter() - started, 4),
        depth=result.depth,
        volume=result.volume,
        model=result.model,
        simulated=result.simulated,
        stop_reason=result.stop_reason,
        final_score=_final_score(result),
        calls=result.calls,
        trace=trace,
        intrinsic_requests=used.requests,
        intrinsic_tokens=used.tokens,
        intrinsic_cost=used.cost,
        repeat=repeat,
        prompts=the_plan.prompts_hash,
        unrated=result.unrated,
        model_for=result.model_for or None,
        spend_by_model=_spend_by_model(result) if result.model_for else None,
        prices={
            label: None if price is None else [price.input, price.output]
            for label, price in result.prices.items()
            if label in result.spend_by_model and result.spend_by_model[label].calls
        },  # the models it called: a routed kind it never calls leaves its cost as it is
    )


def _spend_by_model(result: Result) -> dict[str, dict[str, Any]]:
    """Each model's share of the pair, as results.jsonl keeps it."""
    keep = ("calls", "requests", "tokens", "prompt_tokens", "completion_tokens", "cost", "kinds")
    return {
        label: {key: value for key, value in figures.items() if key in keep}
        for label, figures in result.spend_by_model_dict().items()
    }


def _final_score(result: Result) -> float | None:
    """The model's rating when the graph rates with the model (None: unread), else the final
    thought's own score."""
    if result.rating_scale is not None:
        return float(result.rating) if result.rating is not None else None
    return None if result.final.score is None else float(result.final.score.value)


def _clip(the_plan: EvalPlan, sample: Sample) -> float:
    """Where a pair's error is clipped: the dataset's size, as the paper plots its errors. A data
    row's errors are not clipped: its count of units (paragraphs, lines) bounds nothing that
    its errors (names missed, items extra) count."""
    return the_plan.size if sample.row is None else math.inf


def prompt_slots(the_plan: EvalPlan) -> dict[str, frozenset[str]]:
    """Every prompt the plan's rows send at its size (slot -> the template values every op
    sending it fills): what `eval --prompts` may give a text for."""
    fills: dict[str, frozenset[str]] = {}
    for row in the_plan.schemes:
        for op in the_plan.graph_for(row, the_plan.size).ops:
            if op.prompt is not None:
                filled = kinds.get(op.kind).fills
                fills[op.prompt] = fills.get(op.prompt, filled) & filled
    return fills


def with_prompts(graph: Graph, prompts: dict[str, str]) -> Graph:
    """The graph sending the given texts for the prompts it uses (others are not its own)."""
    mine = {op.prompt for op in graph.ops if op.prompt is not None}
    chosen = {slot: text for slot, text in prompts.items() if slot in mine}
    if not chosen:
        return graph
    return Graph(ops=graph.ops, prompts={**graph.prompts, **chosen})


def model_scored(task: str) -> bool:
    """Is the task's quality the model's score (document merging: 0-10, higher is better)
    rather than an error count? The paper's configuration of the task says so."""
    return bool(paper_options("io", task, 1).get("score_samples"))


def judged(graph: Graph, task: str) -> Graph:
    """On a model-scored task, a graph that never asks the model for a score (the spec's `got`,
    driven by the code's lexical proxy) gets a last `judge` op: the same model score, with the
    same samples, that the other schemes end with, so every scheme is measured on one scale.
    Its calls are the scheme's, as the paper counts the scoring calls of its schemes."""
    if not model_scored(task) or graph.rates_with_model:
        return graph
    samples = paper_options("io", task, 1)["score_samples"]
    judge = Op(
        id=JUDGE_OP,
        kind="score",
        inputs=(graph.output.id,),
        params={"scorer": "model", "samples": samples, "force": True},
    )
    return Graph(ops=(*graph.ops, judge), prompts=graph.prompts)


def trace_name(scheme: str, sample: int | str, repeat: int = 0) -> str:
    """A pair's trace file: a variant's settings (`got_paper:parts=8`) written file-safe."""
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in scheme)
    shown = f"{sample:03d}" if isinstance(sample, int) else sample
    return f"{TRACES}/{safe}-{shown}{f'-r{repeat}' if repeat else ''}.json"


def write_trace(
    folder: Path, scheme: str, sample: int | str, result: Result, repeat: int = 0
) -> str:
    """The pair's trace (the file `solve --trace` writes); returns its path within `folder`."""
    name = trace_name(scheme, sample, repeat)
    path = folder / name
    try:
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(trace_dict(result.state, result), default=str) + "\n")
    except OSError as exc:
        raise InputError(f"cannot write trace {path}: {exc.strerror or exc}") from None
    return name
