"""What an evaluation returns to Python: `EvalResults` (one size) and `EvalSizes` (several).

Both summarise (`summary()`), turn into a DataFrame (`to_pandas()`, pandas is the `[pandas]`
extra) and show in Jupyter (`_repr_html_`, `_repr_markdown_`), from the same rows the CLI's
summary.md and summary.csv are made of.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from thoughtgraph.errors import InputError
from thoughtgraph.evaluation.combined import title
from thoughtgraph.evaluation.record import Built
from thoughtgraph.evaluation.runner import (
    EvalPlan,
    PairResult,
    complete,
    incomplete,
    no_answer,
    rows_built,
)
from thoughtgraph.models.base import LanguageModel

PANDAS_HINT = "to_pandas() needs pandas: pip install 'thoughtgraph[pandas]'"


def import_pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise InputError(PANDAS_HINT) from None
    return pandas


@dataclass
class EvalResults:
    """What an evaluation at one size measured: one `PairResult` per (row, sample, repeat), in
    plan order.

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
    plan: EvalPlan | None = field(default=None, repr=False)

    @classmethod
    def of(
        cls,
        the_plan: EvalPlan,
        model: LanguageModel,
        results: list[PairResult],
        folder: Path | None,
        files: list[Path],
    ) -> EvalResults:
        return cls(
            task=the_plan.task,
            dataset=the_plan.dataset,
            size=the_plan.size,
            schemes=the_plan.schemes,
            results=results,
            model=model.name,
            simulated=bool(getattr(model, "simulated", False)),
            folder=folder,
            files=files,
            plan=the_plan,
        )

    @property
    def title(self) -> str:
        """The reports' title: task and dataset (or size), samples, repeats, model."""
        if self.plan is not None:
            return title(self.plan, self.model, self.simulated)
        shown = len({r.sample for r in self.results})
        return f"{self.task} on {self.dataset}: {shown} samples, model {self.model}"

    @property
    def planned(self) -> int:
        """The pairs the plan holds (`results` may hold fewer: the budget ran out)."""
        if self.plan is None:
            return len(self.results)
        return len(self.plan.schemes) * len(self.plan.samples) * self.plan.repeats

    @property
    def incomplete(self) -> list[PairResult]:
        """Pairs the budget stopped (left out of summaries; a rerun with `out` runs them)."""
        return incomplete(self.results)

    @property
    def unanswered(self) -> list[PairResult]:
        """Pairs whose every request failed: their figures measure the endpoint."""
        return [r for r in self.results if no_answer(r)]

    @property
    def _built(self) -> dict[str, Built] | None:
        """How the plan built each row (the summaries' settings column)."""
        return None if self.plan is None else rows_built(self.plan)

    def summary(self) -> list[Any]:
        """One `SchemeSummary` per row: median and quartiles of the task's measure, solved,
        mean requests/completions/tokens/cost (the rows of summary.csv)."""
        from thoughtgraph.evaluation.report import summarise

        return summarise(complete(self.results), self.schemes, self.task)

    def summary_csv(self) -> str:
        """summary.csv's text."""
        from thoughtgraph.evaluation.report import to_csv

        return to_csv(self.summary(), self.task, self.size, self._built)

    def to_pandas(self, summary: bool = False) -> Any:
        """A DataFrame: one row per (scheme, sample) pair (the columns of results.jsonl), or
        with `summary=True` one row per scheme (the columns of summary.csv)."""
        pandas = import_pandas()
        if summary:
            return pandas.DataFrame(list(csv.DictReader(io.StringIO(self.summary_csv()))))
        return pandas.DataFrame([asdict(r) for r in self.results])

    def _repr_markdown_(self) -> str:
        from thoughtgraph.evaluation.report import to_markdown

        return to_markdown(self.summary(), self.title, "", self.task, self.size, self._built)

    def _repr_html_(self) -> str:
        lines = list(csv.reader(io.StringIO(self.summary_csv())))
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


@dataclass
class EvalSizes:
    """What an evaluation at several sizes measured (`evaluate(..., sizes=[32, 64])`): one
    `EvalResults` per size, in the order given (`results[64]` is size 64's). With `out`,
    `folder` holds a folder per size (`size-32/`, ...) and `files` the combined reports written
    at its top: summary.md/csv with a table per size, pairs.csv, the figure with a panel per
    size."""

    parts: list[EvalResults]
    folder: Path | None = None
    files: list[Path] = field(default_factory=list)

    @property
    def sizes(self) -> list[int]:
        return [part.size for part in self.parts]

    def __getitem__(self, size: int) -> EvalResults:
        for part in self.parts:
            if part.size == size:
                return part
        raise KeyError(f"no size {size} (sizes: {', '.join(map(str, self.sizes))})")

    def __iter__(self) -> Iterator[EvalResults]:
        return iter(self.parts)

    def __len__(self) -> int:
        return len(self.parts)

    @property
    def results(self) -> list[PairResult]:
        """Every size's pairs, size by size."""
        return [r for part in self.parts for r in part.results]

    @property
    def incomplete(self) -> list[PairResult]:
        return [r for part in self.parts for r in part.incomplete]

    @property
    def unanswered(self) -> list[PairResult]:
        return [r for part in self.parts for r in part.unanswered]

    def summary(self) -> dict[int, list[Any]]:
        """Each size's `SchemeSummary` rows, by size."""
        return {part.size: part.summary() for part in self.parts}

    def to_pandas(self, summary: bool = False) -> Any:
        """One DataFrame of every size's (`EvalResults.to_pandas`), a `size` column first."""
        pandas = import_pandas()
        frames = []
        for part in self.parts:
            frame = part.to_pandas(summary=summary)
            frame.insert(0, "size", part.size)
            frames.append(frame)
        return pandas.concat(frames, ignore_index=True)

    def _repr_markdown_(self) -> str:
        return "\n\n".join(part._repr_markdown_() for part in self.parts)

    def _repr_html_(self) -> str:
        return "".join(part._repr_html_() for part in self.parts)

    def __repr__(self) -> str:
        task = self.parts[0].task if self.parts else "?"
        return f"EvalSizes(task={task!r}, sizes={self.sizes!r})"
