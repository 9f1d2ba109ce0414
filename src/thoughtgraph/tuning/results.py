"""What a tune returns to Python: `TuneResults`, made from the objects its phases return (the
rows the files are written from, the pick), never read back from the files."""

from __future__ import annotations

import csv
import html
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thoughtgraph.engine.graph import Graph
from thoughtgraph.evaluation.results import import_pandas
from thoughtgraph.tuning.report import Objective, Row, table_csv


@dataclass
class TuneResults:
    """What a tune found: `rows` (tune.report.Row: name, settings, graph, errors and costs on
    both splits), `best` (the picked graph), `text` (front.md), `folder` and `files` (None and
    [] without `out`), `stop` (why it stopped before its trials, if it did) and `trials`
    (how many are complete).
    `rating_scale` is set for a model-scored task: the rows' errors are then rating shortfalls
    (`scale - rating`), and `to_pandas()` gives the ratings."""

    rows: list[Row]
    best: Graph
    text: str
    folder: Path | None = None
    files: list[Path] = field(default_factory=list)
    stop: str | None = None
    trials: int = 0
    rating_scale: int | None = None
    plotted: bool = False  # pareto.png/svg were drawn (matplotlib, the `[plot]` extra)

    @property
    def front(self) -> list[Graph]:
        """The front's graphs, as front-NN.yaml holds them (the pick among them when it is on
        the front; the default got among them when no trial beats it on both)."""
        made_for = {"size": self.best.size, "task": self.best.task}
        return [r.graph.model_copy(update=made_for) for r in self.rows if r.on_front]

    @property
    def pick(self) -> Row:
        """The pick's row (best.yaml): a trial, or `got (default)` when no trial beat it."""
        return next(r for r in self.rows if r.mark == "pick")

    def to_pandas(self) -> Any:
        """A DataFrame of the report table (the columns of front.csv), plus each row's mark."""
        pandas = import_pandas()
        text = table_csv(self.rows, Objective(self.rating_scale))
        frame = pandas.DataFrame(list(csv.DictReader(io.StringIO(text))))
        frame["mark"] = [r.mark for r in self.rows]
        return frame

    def _repr_markdown_(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
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
