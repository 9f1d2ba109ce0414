"""`thoughtgraph.tune(...)` and `atune(...)`: the graph search from Python (notebooks).

The same search `thoughtgraph tune` runs (`tuning.run.run_tune`), returning a `TuneResults`: the
report's rows (the front, the pick, the baselines) with `to_pandas()`, the picked graph as a
`Graph` (`best`, ready for `solve(..., graph=...)` or `evaluate(..., graphs=[...])`), and the
folder holding the files the CLI writes (study.db, front.md/csv, best.yaml, front-NN.yaml,
pareto.png). Without `out` the study lives in a temporary folder that is removed at the end.
"""

from __future__ import annotations

import asyncio
import html
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thoughtgraph.engine.graph import Graph
from thoughtgraph.modelspec import ModelLike


@dataclass
class TuneResults:
    """What a tune found: `rows` (tune.report.Row: name, settings, graph, errors and costs on
    both splits), `best` (the picked graph), `text` (front.md), `folder` and `files` (None and
    [] without `out`), and `stop` (why it stopped before its trials, if it did).
    `rating_scale` is set for a model-scored task: the rows' errors are then rating shortfalls
    (`scale - rating`), and `to_pandas()` gives the ratings."""

    rows: list[Any]
    best: Graph
    text: str
    folder: Path | None = None
    files: list[Path] = field(default_factory=list)
    stop: str | None = None
    trials: int = 0
    rating_scale: int | None = None

    @property
    def front(self) -> list[Graph]:
        """The front's graphs, as front-NN.yaml holds them (the pick among them)."""
        return [
            r.graph.model_copy(update={"size": self.best.size})
            for r in self.rows
            if r.mark in ("front", "pick")
        ]

    def to_pandas(self) -> Any:
        """A DataFrame of the report table (the columns of front.csv), plus each row's mark."""
        import csv
        import io

        from thoughtgraph.evaluation.results import import_pandas
        from thoughtgraph.tuning.report import Objective, table_csv

        pandas = import_pandas()
        text = table_csv(self.rows, Objective(self.rating_scale))
        frame = pandas.DataFrame(list(csv.DictReader(io.StringIO(text))))
        frame["mark"] = [r.mark for r in self.rows]
        return frame

    def _repr_markdown_(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        import csv
        import io

        from thoughtgraph.tuning.report import Objective, table_csv

        lines = list(csv.reader(io.StringIO(table_csv(self.rows, Objective(self.rating_scale)))))
        head = "".join(f"<th>{html.escape(c)}</th>" for c in [*lines[0], "mark"])
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in [*line, row.mark]) + "</tr>"
            for line, row in zip(lines[1:], self.rows, strict=True)
        )
        title = self.text.splitlines()[0].removeprefix("# ") if self.text else "tune"
        return (
            f"<div><strong>{html.escape(title)}</strong>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
        )

    def __repr__(self) -> str:
        return f"TuneResults(rows={len(self.rows)}, trials={self.trials}, stop={self.stop!r})"


def tune(task: Any, data: Any = None, **options: Any) -> TuneResults:
    """Search graph settings of `task` on `data`; the keywords are `atune`'s."""
    from thoughtgraph.api.sync import run_sync

    results: TuneResults = run_sync(atune(task, data, **options))
    return results


async def atune(
    task: Any,
    data: Any = None,
    *,
    schemes: str = "got,got_paper",
    model: ModelLike = "sim",
    trials: int = 30,
    pilot: int = 10,
    holdout: int = 20,
    cost: str = "completions",
    size: int | None = None,
    dataset: str | None = None,
    input_column: str = "input",
    target: float | None = None,
    parallel: int = 4,
    concurrency: int = 16,
    report_max: int = 6,
    seed: int = 0,
    out: str | Path | None = None,
    cache_dir: str | Path | None = None,
    max_requests: int | None = None,
    max_calls: int | None = None,
    max_tokens: int | None = None,
    max_cost: float | None = None,
    price_in: float | None = None,
    price_out: float | None = None,
    rpm: float | None = None,
    tpm: float | None = None,
    prompts: str | Path | None = None,
    propose: int = 0,
    ray: str | None = None,
    quiet: bool = True,
    model_options: Mapping[str, Any] | None = None,
    **openai: Any,
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
    `quiet=False` prints each trial's line to stderr as the CLI does. The search runs in a
    worker thread, so awaiting it leaves the event loop free."""
    from thoughtgraph.errors import InputError
    from thoughtgraph.evaluation.datasets import DATASETS
    from thoughtgraph.scale.ray_backend import job_backend
    from thoughtgraph.spend.budget import requests_cap
    from thoughtgraph.tuning.run import run_tune

    model_options = {**(model_options or {}), **openai}
    known = {"base_url", "api_key_env", "temperature", "max_completion_tokens", "timeout"}
    known |= {"max_retries", "max_response_bytes"}
    unknown = sorted(set(model_options) - known)
    if unknown:
        raise InputError(f"tune() got an unknown option {unknown[0]!r}")
    if isinstance(data, str) and data in DATASETS:
        dataset, data = data, None

    def run(folder: Path) -> Any:
        return run_tune(
            task=task, dataset=dataset, size=size, model=model, trials=trials,
            schemes=schemes, cost=cost, pilot=pilot, holdout=holdout, target=target,
            parallel=parallel, concurrency=concurrency, report_max=report_max, seed=seed,
            out=folder, cache_dir=None if cache_dir is None else Path(cache_dir),
            max_requests=requests_cap(max_requests, max_calls), max_tokens=max_tokens,
            max_cost=max_cost, price_in=price_in,
            price_out=price_out, rpm=rpm, tpm=tpm,
            base_url=model_options.get("base_url"),
            api_key_env=model_options.get("api_key_env"),
            temperature=model_options.get("temperature"),
            max_completion_tokens=model_options.get("max_completion_tokens"),
            timeout=model_options.get("timeout"),
            max_retries=model_options.get("max_retries"),
            max_response_bytes=model_options.get("max_response_bytes"),
            backend=job_backend(ray), propose=propose,
            prompts=None if prompts is None else Path(prompts),
            data=None if data is None else data, input_column=input_column,
            note=None if not quiet else (lambda _line: None),
        )  # fmt: skip

    def finished(outcome: Any, kept: Path | None) -> TuneResults:
        best = Graph.load(outcome.folder / "best.yaml")
        return TuneResults(
            outcome.rows,
            best,
            outcome.text,
            kept,
            outcome.files if kept else [],
            outcome.stop,
            outcome.trials,
            outcome.rating_scale,
        )

    if out is not None:
        outcome = await asyncio.to_thread(run, Path(out))
        return finished(outcome, Path(out))
    with tempfile.TemporaryDirectory(prefix="thoughtgraph-tune-") as folder:
        outcome = await asyncio.to_thread(run, Path(folder))
        return finished(outcome, None)
