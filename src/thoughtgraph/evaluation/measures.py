"""How one run and one scheme are measured and named: shared by the tables and the figures.

The measure is the task's (an error count, or the model's 0-10 score of a document merge); a
scheme's label is the paper's name with its structure ("ToT (L=2, k=20)").
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from thoughtgraph.errors import ThoughtgraphError
from thoughtgraph.evaluation.record import Built
from thoughtgraph.evaluation.runner import PairResult, no_answer
from thoughtgraph.schemes import keywords, paper_options, settings_for, variants
from thoughtgraph.tasks import get_task
from thoughtgraph.tasks.base import BaseTask


def measure(result: PairResult, scored: bool) -> float:
    """The task's measure of one run: the model score or the error count. A run with no rating
    (`rated` is False) reads 0 here: callers measure only `measured(...)` runs."""
    if scored:
        return 0.0 if result.final_score is None else float(result.final_score)
    return result.error


def answered(result: PairResult) -> bool:
    """Did the model answer this run at all? One whose every request failed or raised
    (`runner.no_answer`) holds the placeholder's errors, not the model's: it is counted apart
    (`no_answer`), never as an error count, and is not solved."""
    return not no_answer(result)


def rated(result: PairResult, scored: bool) -> bool:
    """Is this run a measurement? Only when the model answered; on a model-scored task only
    when the model's rating of its final answer was read too: an unrated run is counted apart,
    never as a 0."""
    if not answered(result):
        return False
    return not scored or (not result.unrated and result.final_score is not None)


def measured(results: Sequence[PairResult], scored: bool) -> list[PairResult]:
    """The runs that are measurements (`rated`): what medians, tests and boxes are made of."""
    return [r for r in results if rated(r, scored)]


def unanswered(results: Sequence[PairResult]) -> list[PairResult]:
    """The runs the model never answered (`answered`): the `no_answer` counts."""
    return [r for r in results if not answered(r)]


def solved(result: PairResult) -> bool | None:
    """Did the run solve its problem? None when there is no reference; a run the model never
    answered is not solved, whatever its placeholder output happens to equal."""
    if result.solved is None:
        return None
    return result.solved and answered(result)


@dataclass(frozen=True)
class RatingText:
    """How a model-scored task's measure is named and explained in summaries and figures."""

    scale: int  # ratings go 0..scale
    label: str  # "model score (0-10, higher is better)"
    note: str  # what the rating measures
    proxy_label: str  # the code's check shown beside it: "lexical proxy errors"
    proxy_note: str


def rating_text(task: str | None) -> RatingText:
    """The task's own words for its rating (`rating_scale`, `rating_note`, `proxy_name`,
    `proxy_note`); `BaseTask`'s defaults for a task that is not known here."""
    words: BaseTask[Any, Any] | type[BaseTask[Any, Any]] = BaseTask
    if task:
        with contextlib.suppress(ThoughtgraphError):
            words = get_task(task)
    scale = words.rating_scale
    return RatingText(
        scale=scale,
        label=f"model score (0-{scale}, higher is better)",
        note=words.rating_note,
        proxy_label=words.proxy_name,
        proxy_note=words.proxy_note,
    )


def used(result: PairResult) -> tuple[int, int, float]:
    """What the scheme consumed on this run (requests, tokens, USD), answers from the cache
    included: results from before these were recorded give what their run paid."""
    if result.intrinsic_requests is None:
        return result.requests, result.tokens, result.cost
    return result.intrinsic_requests, result.intrinsic_tokens or 0, result.intrinsic_cost or 0.0


def plotted(result: PairResult, scored: bool) -> float:
    """The value the figure plots: the model score, or the error clipped at the size."""
    return measure(result, scored) if scored else result.clipped_error


# the keywords a scheme's label shows (a variant's own settings are shown too), and how
SHOWN = {"tot": ("levels", "k"), "tot2": ("levels", "k"), "cot_sc": ("k",), "top": ("b", "d")}
ABBREVIATED = {"levels": "L"}


def settings(scheme: str, task: str | None, size: int, built: Built | None = None) -> str:
    """The structure a scheme ran with, as the paper labels it: ToT's levels L and branching
    k ("L=2, k=20"); CoT-SC's k; ToP's breadth and depth ("b=2, d=3"); a variant's own settings
    ("parts=8"); empty for the others.

    `built` is what the run recorded of the row (`evaluation/record.py`): its values are shown.
    Without it (a folder from before the record) they are the task's configuration at `size`,
    as far as this process knows the task."""
    paper = variants.label(scheme, task)
    if paper:  # the paper's name for a configuration of got_paper
        found = variants.parse(scheme, task)
        shown = ", ".join(f"{k}={v}" for k, v in found.settings)
        return f"{paper}: {found.scheme} {shown}"
    if built is not None:
        return _recorded(scheme, built)
    if variants.is_variant(scheme):
        return scheme.partition(":")[2]
    if scheme not in SHOWN:
        return ""
    options = keywords(scheme, paper_options(scheme, task, size) if task else {})
    if scheme == "top":  # its depth follows the size
        with contextlib.suppress(ThoughtgraphError):
            options = keywords(scheme, settings_for(scheme, task or "", size))
    return _shown(SHOWN[scheme], options)


def _recorded(row: str, built: Built) -> str:
    """The label's settings from the run's record: the scheme's own keywords, then a
    variant's settings as its name writes them (`tot:k=5` -> "L=4, k=5")."""
    if built.scheme is None:  # a graph file's row
        return ""
    written = row.partition(":")[2]
    own = {item.partition("=")[0].strip() for item in written.split(",")}
    keys = [k for k in SHOWN.get(built.scheme, ()) if k in built.settings and k not in own]
    return ", ".join(filter(None, (_shown(keys, built.settings), written)))


def _shown(keys: Sequence[str], options: Mapping[str, object]) -> str:
    return ", ".join(f"{ABBREVIATED.get(k, k)}={_value(options[k])}" for k in keys)


def _value(value: object) -> str:
    """A recorded value: a range `[least, most]` as least-most."""
    if isinstance(value, list) and len(value) == 2 and not any(isinstance(v, str) for v in value):
        return f"{value[0]}-{value[1]}"
    if isinstance(value, list):
        return "/".join(str(v) for v in value)
    return str(value)


NAMES = {
    "io": "IO",
    "cot": "CoT",
    "cot_sc": "CoT-SC",
    "tot": "ToT",
    "tot2": "ToT2",
    "got": "GoT",
    "got_paper": "GoT (paper)",
    "top": "ToP",
    "got_adaptive": "GoT (growing)",
}


def label(scheme: str, task: str | None, size: int, built: Built | None = None) -> str:
    """The paper's name of a scheme with its settings: "ToT (L=2, k=20)"; a paper variant's
    name ("GoT8"); a graph file's row name as it is. `built`: as for `settings`."""
    paper = variants.label(scheme, task)
    if paper:
        return paper
    if built is not None and built.scheme is None:
        return scheme
    name = NAMES.get(scheme.partition(":")[0], scheme)
    extra = settings(scheme, task, size, built)
    return f"{name} ({extra})" if extra else name


def size_shown(size: int, sizes: tuple[int, int] | None, from_data: bool) -> str:
    """A run's problem size as tables and figures show it: the dataset's size; for a data
    file's rows, which differ in length, the least and most ("12-101"), or "rows" when the run
    did not record them (never the longest row as if it were every row's size)."""
    if not from_data:
        return str(size)
    if sizes is None:
        return "rows"
    least, most = sizes
    return str(least) if least == most else f"{least}-{most}"
