"""`thoughtgraph.tune(...)` and `atune(...)`: the graph search from Python (notebooks), and
what `thoughtgraph tune` calls.

The keywords become one `TuneConfig` here (`tune_config`, which the command calls with its
flags), `ray=` becomes what runs the jobs (scale/'s Ray backend, else this process), and the
tune runs them (`tuning.run.run_tune`), returning a `TuneResults`: the report's rows (the
front, the pick, the baselines) with `to_pandas()`, the picked graph as a `Graph` (`best`, ready
for `solve(..., graph=...)` or `evaluate(..., graphs=[...])`), and the folder holding the files
the CLI writes (study.db, front.md/csv, best.yaml, front-NN.yaml, pareto.png). Without `out`
the study lives in a temporary folder that is removed at the end.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from typing_extensions import Unpack

from thoughtgraph.api.sync import run_sync
from thoughtgraph.engine.options import RunLimits, limited_run
from thoughtgraph.errors import InputError
from thoughtgraph.evaluation.datasets import DATASETS
from thoughtgraph.modelspec import ModelLike
from thoughtgraph.scale.ray_backend import job_backend
from thoughtgraph.tuning.backend import JobBackend
from thoughtgraph.tuning.config import MODEL_OPTIONS, ModelOption, TuneConfig
from thoughtgraph.tuning.jobs import TaskSpec
from thoughtgraph.tuning.plan import TuneData
from thoughtgraph.tuning.results import TuneResults
from thoughtgraph.tuning.run import run_tune


class TuneOptions(RunLimits, total=False):
    """The keyword options of `tune` / `atune` (each documented at `atune`): the run's limits
    (`RunLimits`) and the tune's own."""

    schemes: str
    model: ModelLike
    trials: int
    pilot: int
    holdout: int
    cost: str
    size: int | None
    dataset: str | None
    input_column: str
    target: float | None
    parallel: int
    report_max: int
    seed: int
    out: str | Path | None
    cache_dir: str | Path | None
    prompts: str | Path | None
    propose: int
    ray: str | None
    quiet: bool
    model_options: Mapping[str, ModelOption] | None
    models: Mapping[str, str] | None
    candidates: Mapping[str, str] | None
    base_url: str | None
    api_key_env: str | None
    temperature: float | None
    max_completion_tokens: int | None
    timeout: float | None
    max_retries: int | None
    max_response_bytes: int | None
    reasoning: bool | None
    reasoning_effort: str | None


def tune(
    task: TaskSpec, data: TuneData | None = None, **options: Unpack[TuneOptions]
) -> TuneResults:
    """Search graph settings of `task` on `data`; the keywords are `atune`'s."""
    return run_sync(atune(task, data, **options))


async def atune(
    task: TaskSpec, data: TuneData | None = None, **options: Unpack[TuneOptions]
) -> TuneResults:
    """`thoughtgraph tune` from Python: the same options (keywords for the flags). `data` is
    None (the built-in dataset at `size`), a built-in dataset name, or a data file (one problem
    a row). `model`, as `evaluate()` takes it: a spec string (`sim`, `openai:MODEL`,
    `py:pkg.mod:fn`), a `LanguageModel`, or a function `prompt -> text` (sync or async). A spec
    builds one model per process (a fresh simulated model per run); an object is shared by every
    run in this process (a `SimulatedModel` is copied fresh per run, so its seeded answers do not
    depend on the order runs happen in). With `ray` (`"local"`, `"auto"`, `"HOST:PORT"`: trials
    as Ray tasks) an object is sent to the workers pickled: one that cannot be is one
    `InputError` before anything runs. `model_options` (a mapping, as `evaluate()` takes it,
    or as keywords) are the openai flags (`base_url`, `temperature`, `max_completion_tokens`,
    `timeout`, `max_retries`, `api_key_env`, `max_response_bytes`), with a spec string only.
    `models` routes kinds of call to other models in every run (kind -> spec, as `evaluate()`
    takes it, specs only); `candidates` (name -> spec, `--models`) makes each trial choose,
    for each kind of call its graph makes, which candidate answers it: the front then holds
    the cheapest mix of models at each error (give prices and `cost="usd"` for that front).
    `quiet=False` prints each trial's line to stderr as the CLI does. The search runs in a
    worker thread, so awaiting it leaves the event loop free."""
    data, config = tune_config(data, options)
    backend = job_backend(options.get("ray"))
    return await asyncio.to_thread(_kept_or_scratch, task, data, config, backend)


def tune_config(data: TuneData | None, options: TuneOptions) -> tuple[TuneData | None, TuneConfig]:
    """The keywords as one checked `TuneConfig` (the one place they are read; `ray` is read by
    `tune`/`atune`, as the jobs' backend), and the data: a built-in dataset's name given as
    `data` is the `dataset`."""
    known = set(TuneOptions.__annotations__)
    unknown = sorted(set(options) - known)
    if unknown:
        raise InputError(f"tune() got an unknown option {unknown[0]!r}")
    keywords: dict[str, ModelOption] = {
        "base_url": options.get("base_url"),
        "api_key_env": options.get("api_key_env"),
        "temperature": options.get("temperature"),
        "max_completion_tokens": options.get("max_completion_tokens"),
        "timeout": options.get("timeout"),
        "max_retries": options.get("max_retries"),
        "max_response_bytes": options.get("max_response_bytes"),
        "reasoning": options.get("reasoning"),
        "reasoning_effort": options.get("reasoning_effort"),
    }
    model_options = dict(options.get("model_options") or {})
    model_options |= {name: keywords[name] for name in MODEL_OPTIONS if name in options}
    dataset = options.get("dataset")
    if isinstance(data, str) and data in DATASETS:
        dataset, data = data, None
    default = TuneConfig()  # the defaults, declared once (by the config)
    run = limited_run(options, flags=True)
    config = TuneConfig(
        run=run,
        model=options.get("model", default.model),
        model_options=model_options,
        models=dict(options.get("models") or {}),
        candidates=dict(options.get("candidates") or {}),
        schemes=tuple(options["schemes"].split(",")) if "schemes" in options else default.schemes,
        dataset=dataset,
        size=options.get("size"),
        input_column=options.get("input_column", default.input_column),
        trials=options.get("trials", default.trials),
        pilot=options.get("pilot", default.pilot),
        holdout=options.get("holdout", default.holdout),
        cost=options.get("cost", default.cost),
        target=options.get("target"),
        parallel=options.get("parallel", default.parallel),
        report_max=options.get("report_max", default.report_max),
        seed=options.get("seed", default.seed),
        out=_path(options.get("out")),
        cache_dir=_path(options.get("cache_dir")),
        prompts=_path(options.get("prompts")),
        propose=options.get("propose", default.propose),
        note=None if not options.get("quiet", True) else _quiet,
    )
    return data, config


def _kept_or_scratch(
    task: TaskSpec, data: TuneData | None, config: TuneConfig, backend: JobBackend
) -> TuneResults:
    """The tune in `config.out`, or without one in a scratch folder removed at the end (the
    results then name no folder and no files)."""
    if config.out is not None:
        return run_tune(task, data, config, backend)
    with tempfile.TemporaryDirectory(prefix="thoughtgraph-tune-") as folder:
        found = run_tune(task, data, replace(config, out=Path(folder)), backend)
    return replace(found, folder=None, files=[])


def _path(value: str | Path | None) -> Path | None:
    return None if value is None else Path(value)


def _quiet(_line: str) -> None:
    """`quiet=True`: progress lines go nowhere."""
