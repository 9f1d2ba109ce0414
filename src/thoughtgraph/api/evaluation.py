"""`thoughtgraph.evaluate(...)` and `aevaluate(...)`: the paper's comparison from Python.

The evaluation `thoughtgraph eval` runs, all of it (the command is a thin layer over these
functions: it parses its options, calls `aevaluate` and prints what it hears): one size or
several (`sizes=[32, 64]`), here or on Ray (`ray="local"`), repeats, prompt texts, caps shared by
the whole evaluation, resumable folders. It returns an `EvalResults` (one size) or an
`EvalSizes` (several) that a notebook can show, summarise or turn into a DataFrame. Given
`out`, it writes the files the CLI writes and resumes from them; without it the run happens in
a temporary folder and only the object remains. The work is in evaluation/session.py; this
module picks what runs the pairs (`ray=`: scale/'s Ray backend, else this process).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, overload

from typing_extensions import Unpack

from thoughtgraph.api.sync import run_sync
from thoughtgraph.engine.options import RunKeywords, run_options
from thoughtgraph.evaluation.backend import LOCAL_PAIRS, PairBackend
from thoughtgraph.evaluation.results import EvalResults, EvalSizes
from thoughtgraph.evaluation.runner import PairResult
from thoughtgraph.evaluation.session import EvalConfig, EvalEvent, GraphLike, run
from thoughtgraph.modelspec import ModelLike
from thoughtgraph.tasks import Task


class EvalOptions(RunKeywords, total=False):
    """The keyword options of `evaluate` / `aevaluate` (each documented at `aevaluate`): the run's
    (`RunKeywords`: concurrency, order, the caps, the price, cache, rpm, tpm) and the
    evaluation's own."""

    schemes: str | Sequence[str]
    graphs: Sequence[GraphLike] | Mapping[str, GraphLike]
    model: ModelLike
    model_options: Mapping[str, object] | None
    models: Mapping[str, ModelLike] | None
    size: int | None
    dataset: str | None
    samples: int
    repeats: int
    prompts: str | Path | Mapping[str, str] | None
    input_column: str
    out: str | Path | None
    parallel: int | None
    traces: bool
    figure: bool
    on_result: Callable[[PairResult], None] | None
    on_event: Callable[[EvalEvent], None] | None
    flags: bool


def eval_config(sizes: Sequence[int] | None, options: EvalOptions) -> EvalConfig:
    """The one place `evaluate`'s keywords become its checked config (an omitted one takes
    `EvalConfig`'s default)."""
    flags = options.get("flags", EvalConfig.flags)
    return EvalConfig(
        run=run_options(options, flags=flags),
        sizes=sizes,
        size=options.get("size"),
        schemes=options.get("schemes", EvalConfig.schemes),
        graphs=options.get("graphs", EvalConfig.graphs),
        model=options.get("model", EvalConfig.model),
        model_options=options.get("model_options"),
        models=options.get("models"),
        dataset=options.get("dataset"),
        samples=options.get("samples", EvalConfig.samples),
        repeats=options.get("repeats", EvalConfig.repeats),
        prompts=options.get("prompts"),
        input_column=options.get("input_column", EvalConfig.input_column),
        out=options.get("out"),
        parallel=options.get("parallel"),
        traces=options.get("traces", EvalConfig.traces),
        figure=options.get("figure", EvalConfig.figure),
        on_result=options.get("on_result"),
        on_event=options.get("on_event"),
        flags=flags,
    )


@overload
async def aevaluate(
    task: str | Task[Any, Any],
    data: object = None,
    *,
    sizes: None = None,
    ray: str | None = None,
    **options: Unpack[EvalOptions],
) -> EvalResults: ...


@overload
async def aevaluate(
    task: str | Task[Any, Any],
    data: object = None,
    *,
    sizes: Sequence[int],
    ray: str | None = None,
    **options: Unpack[EvalOptions],
) -> EvalSizes: ...


async def aevaluate(
    task: str | Task[Any, Any],
    data: object = None,
    *,
    sizes: Sequence[int] | None = None,
    ray: str | None = None,
    **options: Unpack[EvalOptions],
) -> EvalResults | EvalSizes:
    """Run every (scheme, sample) pair of `task` on `data` and return what they measured.

    What to run:
    - `task`: a built-in name, a task file, an import string (`pkg.mod:Class`), a plugin's
      name, or a task object.
    - `data`: None (the task's built-in dataset at `size`), a built-in dataset name
      (`"sorting_064"`, or give it as `dataset=`), a data file (.jsonl/.csv/.json, one problem
      a row: `input` or `input_column`, optional `id` and `reference`), a list of such rows
      (dicts) or a pandas DataFrame. `samples` (default 100): the first N.
    - `size` (default 32) picks the built-in dataset; `sizes=[32, 64]` runs each size into its
      own folder `out/size-32/`, ... and returns an `EvalSizes` (combined reports at `out`,
      a figure with a panel per size). A data file holds its own problems: no size then.
    - `schemes`: names, variants (`"got_paper:parts=8"`, `"top:b=2,d=3"`, `"got8"`) or one
      comma-separated string (default: io, cot, tot, tot2, got, got_paper); `graphs`: graph
      files or `Graph` objects run beside them as rows (a mapping names them).
    - `repeats` (default 1): runs of every pair, each with its own seed (the simulated model's
      seed + repeat; another model's fresh sample at its temperature; a function taking
      `sample` is asked for the repeat's own samples, docs/models.md).
    - `prompts`: texts sent instead of the built-in prompts, a mapping slot -> template or a
      file in tune's `--prompts` format (each slot's first variant).

    The model: `model` is a spec (`"sim"`, `"openai:gpt-4o-mini"`, `"py:pkg.mod:fn"`), a
    `LanguageModel` or a function `prompt -> str`; `model_options` are a spec's openai
    options (`base_url`, `api_key_env`, `temperature`, `max_tokens`, `timeout`,
    `max_retries`, `max_response_bytes`), as the CLI's flags (they fill in what an openai spec
    of `models` leaves out). `models` routes kinds of call to other models, kind -> model as
    `model` is given (`{"merge": "openai:big@http://127.0.0.1:8002/v1"}`, `solve`'s
    `models`): every pair sends that kind there, under the one budget; results.jsonl records
    each pair's `spend_by_model` and the summary has a table per model (docs/models.md).

    How it runs: `concurrency` (default 16) model calls in flight, shared by all pairs;
    `parallel` pairs at once (default `concurrency`); `order` (`auto`, `eager`, `bfs`); the caps
    `max_requests` (HTTP requests; `max_calls` is its older name), `max_tokens` and `max_cost`
    are the whole evaluation's, every size's and every earlier run's into `out` counted;
    `price_in`/`price_out` (USD per million tokens), `cache` (an SQLite answer cache), `rpm`,
    `tpm`. `ray`: run the pairs as Ray tasks (`"local"` starts a cluster here, `"auto"` or
    `"HOST:PORT"` joins one; the task and model travel to the workers, docs/scale-out.md).

    What it writes: with `out`, the CLI's files (results.jsonl, eval.json, summary.md/csv,
    pairs.csv, the figure (`figure=False`: none, which spares importing matplotlib; an older
    one there is removed); `traces=True` each pair's trace) and a rerun resumes there; without
    it, nothing. `on_result(pair)` hears each pair as it finishes, `on_event(event)` the rest
    (`Note` lines, `SizeStarting`, `SizeDone`). Every mistake is one `ThoughtgraphError` line
    before any call (`flags=True` names the command line's flags in them, as `thoughtgraph
    eval` does); Ctrl-C raises `EvalInterrupted` (the finished pairs are kept).
    """
    return await _evaluated(task, data, sizes, ray, options)


@overload
def evaluate(
    task: str | Task[Any, Any],
    data: object = None,
    *,
    sizes: None = None,
    ray: str | None = None,
    **options: Unpack[EvalOptions],
) -> EvalResults: ...


@overload
def evaluate(
    task: str | Task[Any, Any],
    data: object = None,
    *,
    sizes: Sequence[int],
    ray: str | None = None,
    **options: Unpack[EvalOptions],
) -> EvalSizes: ...


def evaluate(
    task: str | Task[Any, Any],
    data: object = None,
    *,
    sizes: Sequence[int] | None = None,
    ray: str | None = None,
    **options: Unpack[EvalOptions],
) -> EvalResults | EvalSizes:
    """Synchronous `aevaluate` (inside a running event loop, e.g. Jupyter, in a helper thread);
    `aevaluate` documents every option."""
    return run_sync(_evaluated(task, data, sizes, ray, options))


async def _evaluated(
    task: str | Task[Any, Any],
    data: object,
    sizes: Sequence[int] | None,
    ray: str | None,
    options: EvalOptions,
) -> EvalResults | EvalSizes:
    ran = await run(task, data, eval_config(sizes, options), pair_backend(ray))
    if sizes is None:
        return ran.sizes[0]
    return EvalSizes(ran.sizes, ran.folder or ran.sizes[0].folder, ran.files)


def pair_backend(ray: str | None) -> PairBackend:
    """What runs the pairs: Ray tasks on the cluster at `ray` (scale/, loaded only then), else
    this process."""
    if ray is None:
        return LOCAL_PAIRS
    from thoughtgraph.scale.ray_backend import RayPairs

    return RayPairs(ray)


__all__ = ["EvalOptions", "aevaluate", "eval_config", "evaluate"]
