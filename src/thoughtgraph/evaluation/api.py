"""`thoughtgraph.evaluate(...)` and `aevaluate(...)`: the paper's comparison from Python.

The same evaluation `thoughtgraph eval` runs (`runner.plan` + `runner.evaluate` +
`report.write_reports`), returning an `EvalResults` a notebook can show (`_repr_html_`), turn
into a DataFrame (`to_pandas()`, pandas is the `[pandas]` extra) or summarise. Given `out`, it
writes the files the CLI writes (results.jsonl, eval.json, summary.md/csv, the figure) and
resumes from them; without it the run happens in a temporary folder and only the object remains.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import html
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thoughtgraph.engine.graph import Graph
from thoughtgraph.engine.options import RunOptions
from thoughtgraph.errors import InputError
from thoughtgraph.evaluation.datasets import DATASETS, Data, load_data
from thoughtgraph.evaluation.runner import (
    EvalPlan,
    PairResult,
    complete,
    incomplete,
    no_answer,
    plan,
    sized,
)
from thoughtgraph.models.spec import ModelLike, as_model
from thoughtgraph.spend.budget import requests_cap

DEFAULT_SCHEMES = ("io", "cot", "tot", "tot2", "got", "got_paper")
PANDAS_HINT = "to_pandas() needs pandas: pip install 'thoughtgraph[pandas]'"
_ROW_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")

GraphLike = Graph | str | Path


@dataclass
class EvalResults:
    """What an evaluation measured: one `PairResult` per (row, sample), in plan order.

    `schemes` are the rows (built-in schemes, variants, graph files' names); `folder` holds the
    files when the evaluation was given `out` (else None); `files` are the reports written.
    """

    task: str
    dataset: str
    size: int
    schemes: tuple[str, ...]
    results: list[PairResult]
    model: str
    simulated: bool
    folder: Path | None = None
    files: list[Path] = field(default_factory=list)

    @property
    def title(self) -> str:
        what = (
            f"{self.task} {self.size}" if sized(self.dataset) else f"{self.task} on {self.dataset}"
        )
        shown = {r.sample for r in self.results}
        return f"{what}: {len(shown)} samples, model {self.model}" + (
            " (simulated)" if self.simulated else ""
        )

    @property
    def incomplete(self) -> list[PairResult]:
        """Pairs the budget stopped (left out of summaries; a rerun with `out` runs them)."""
        return incomplete(self.results)

    @property
    def unanswered(self) -> list[PairResult]:
        """Pairs whose every request failed: their figures measure the endpoint."""
        return [r for r in self.results if no_answer(r)]

    def summary(self) -> list[Any]:
        """One `SchemeSummary` per row: median and quartiles of the task's measure, solved,
        mean requests/completions/tokens/cost (the rows of summary.csv)."""
        from thoughtgraph.evaluation.report import summarise

        return summarise(complete(self.results), self.schemes, self.task)

    def to_pandas(self, summary: bool = False) -> Any:
        """A DataFrame: one row per (scheme, sample) pair (the columns of results.jsonl), or
        with `summary=True` one row per scheme (the columns of summary.csv)."""
        pandas = import_pandas()
        if summary:
            import csv
            import io

            from thoughtgraph.evaluation.report import to_csv

            text = to_csv(self.summary(), self.task, self.size)
            return pandas.DataFrame(list(csv.DictReader(io.StringIO(text))))
        from dataclasses import asdict

        return pandas.DataFrame([asdict(r) for r in self.results])

    def _repr_markdown_(self) -> str:
        from thoughtgraph.evaluation.report import to_markdown

        return to_markdown(self.summary(), self.title, "", self.task, self.size)

    def _repr_html_(self) -> str:
        import csv
        import io

        from thoughtgraph.evaluation.report import to_csv

        lines = list(csv.reader(io.StringIO(to_csv(self.summary(), self.task, self.size))))
        head = "".join(f"<th>{html.escape(c)}</th>" for c in lines[0])
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in line) + "</tr>"
            for line in lines[1:]
        )
        return (
            f"<div><strong>{html.escape(self.title)}</strong>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
        )

    def __repr__(self) -> str:
        return (
            f"EvalResults(task={self.task!r}, dataset={self.dataset!r}, "
            f"schemes={list(self.schemes)!r}, pairs={len(self.results)})"
        )


def import_pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise InputError(PANDAS_HINT) from None
    return pandas


def load_graphs(graphs: Sequence[GraphLike] | Mapping[str, GraphLike]) -> list[tuple[str, Graph]]:
    """Each graph as (row name, graph): a file's `name:`, else the file's name; a mapping's keys
    name its graphs; an unnamed `Graph` object is `graph-1`, `graph-2`, ..."""
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
        if not _ROW_NAME.match(name):
            raise InputError(
                f"{where}: {name!r} cannot name a row (letters, digits, '.', '_', '-'): "
                "give the file a name: line"
            )
        found.append((name, graph))
    return found


def resolve_data(
    task: Any, data: Any, input_column: str = "input"
) -> tuple[str | None, Data | None]:
    """`data` as (built-in dataset name, None) or (None, the rows read for the task)."""
    if data is None:
        return None, None
    if isinstance(data, str) and data in DATASETS:
        return data, None
    if hasattr(data, "to_dict") and hasattr(data, "columns"):  # a pandas DataFrame
        data = data.to_dict("records")
    return None, load_data(data, task, input_column)


def schemes_list(schemes: str | Sequence[str]) -> list[str]:
    from thoughtgraph.schemes.variants import split_list

    if isinstance(schemes, str):
        return split_list(schemes)
    return list(dict.fromkeys(str(s).strip() for s in schemes if str(s).strip()))


async def aevaluate(
    task: Any,
    data: Any = None,
    *,
    schemes: str | Sequence[str] = DEFAULT_SCHEMES,
    graphs: Sequence[GraphLike] | Mapping[str, GraphLike] = (),
    model: ModelLike = "sim",
    size: int | None = None,
    samples: int = 100,
    input_column: str = "input",
    out: str | Path | None = None,
    parallel: int | None = None,
    concurrency: int = 16,
    max_requests: int | None = None,
    max_tokens: int | None = None,
    max_cost: float | None = None,
    price_in: float | None = None,
    price_out: float | None = None,
    cache: str | Path | None = None,
    rpm: float | None = None,
    tpm: float | None = None,
    traces: bool = False,
    on_result: Callable[[PairResult], None] | None = None,
    max_calls: int | None = None,
) -> EvalResults:
    """Run every (scheme, sample) pair of `task` on `data` and return what they measured.

    `task`: a task name or object. `data`: None (the task's built-in dataset at `size`), a
    built-in dataset name (`"sorting_064"`), a data file (.jsonl/.csv/.json, one problem a row:
    `input` or `input_column`, optional `id` and `reference`), a list of such rows (dicts) or a
    pandas DataFrame. `schemes`: names, variants (`"got_paper:parts=8"`, `"got8"`) or one
    comma-separated string; `graphs`: graph files or `Graph` objects run beside them (a mapping
    names them). `model`: a spec (`"sim"`, `"openai:gpt-4o-mini"`, `"py:pkg.mod:fn"`), a
    `LanguageModel` or a function `prompt -> str`. The caps are the whole evaluation's (as
    `thoughtgraph eval`'s; `max_requests` counts HTTP requests, `max_calls` is its older
    name); as many pairs run at once as `concurrency` (`parallel` lowers it). With `out`, the
    CLI's files are written there and a rerun resumes; every mistake is one `ThoughtgraphError`
    line before any call.
    """
    dataset, rows = resolve_data(task, data, input_column)
    if rows is not None and size is not None:
        raise InputError("a data file holds its own problems: give data or size, not both")
    the_plan = plan(
        task,
        32 if size is None else size,
        schemes_list(schemes),
        samples,
        dataset,
        data=rows,
        graphs=load_graphs(graphs),
    )
    if size is not None and rows is None and sized(the_plan.dataset) and the_plan.size != size:
        raise InputError(f"size {size} does not match dataset {the_plan.dataset}")
    options = RunOptions(
        concurrency=concurrency,
        max_requests=requests_cap(max_requests, max_calls),
        max_tokens=max_tokens,
        max_cost=max_cost,
        price_in=price_in,
        price_out=price_out,
        cache=cache,
        rpm=rpm,
        tpm=tpm,
    )
    lm = as_model(model)
    options.price(lm.name)  # a cost cap without a price: refused before anything runs
    if out is None:
        with tempfile.TemporaryDirectory(prefix="thoughtgraph-eval-") as scratch:
            results = await _run(
                the_plan, model, Path(scratch), options, parallel, False, on_result
            )
        return _results(the_plan, lm, results, None, [])
    target = Path(out)
    results = await _run(the_plan, model, target, options, parallel, traces, on_result)
    files = write_files(the_plan, lm, results, target)
    return _results(the_plan, lm, results, target, files)


async def _run(
    the_plan: EvalPlan,
    model: ModelLike,
    folder: Path,
    options: RunOptions,
    parallel: int | None,
    traces: bool,
    on_result: Callable[[PairResult], None] | None,
) -> list[PairResult]:
    from thoughtgraph.evaluation.runner import evaluate as run_pairs

    return await run_pairs(
        the_plan,
        model,
        folder,
        parallel=parallel,
        options=options,
        traces=traces,
        on_result=on_result,
    )


def write_files(the_plan: EvalPlan, lm: Any, results: list[PairResult], folder: Path) -> list[Path]:
    """summary.md/csv and the figure, as `thoughtgraph eval` writes them."""
    from thoughtgraph.evaluation.report import write_reports

    simulated = bool(getattr(lm, "simulated", False))
    note = (
        "Figures from the simulated model: they test the engine and the schemes, not any real "
        "model."
        if simulated
        else f"Model: {lm.name}."
    )
    shown = _results(the_plan, lm, results, folder, [])
    return [
        folder / "results.jsonl",
        *write_reports(
            results,
            the_plan.schemes,
            the_plan.size,
            shown.title,
            note,
            folder,
            task=the_plan.task,
            panel_name="" if sized(the_plan.dataset) else the_plan.dataset,
        ),
    ]


def _results(
    the_plan: EvalPlan, lm: Any, results: list[PairResult], folder: Path | None, files: list[Path]
) -> EvalResults:
    return EvalResults(
        task=the_plan.task,
        dataset=the_plan.dataset,
        size=the_plan.size,
        schemes=the_plan.schemes,
        results=results,
        model=lm.name,
        simulated=bool(getattr(lm, "simulated", False)),
        folder=folder,
        files=files,
    )


def evaluate(task: Any, data: Any = None, **options: Any) -> EvalResults:
    """Synchronous `aevaluate` (inside a running event loop, e.g. Jupyter, in a helper thread)."""
    results: EvalResults = run_sync(aevaluate(task, data, **options))
    return results


def run_sync(coroutine: Any) -> Any:
    """Run a coroutine to its end from sync code, also where an event loop already runs."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
