"""What decides a pair's answer, hashed: a resumed eval reuses only the pairs that match.

Every line of results.jsonl carries its pair's `fingerprint`, a digest of each part (`PARTS`)
that decides what the model is asked and how the answer is scored: the model (its name and
answer-relevant settings: temperature, max_tokens, ...), a `py:` model's code (its source,
`io.sources`), the task (a task file's content and its scoring function's source, a task class's
source), the data row (input and reference), the graph the row runs and the prompt texts sent in
place of the task's (`--prompts`). A rerun into the same `--out` reuses a finished pair only
when every part matches; the others run again, and `rerun_line` says how many and why ("12
pairs rerun: the model's code changed"). The run options are no part: concurrency, the order,
caps, prices, the cache and rate limits decide when and at what cost answers come, not what
they are (docs/graphs.md: a deterministic model gives the same run at any concurrency).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from collections.abc import Mapping
from typing import Any

from thoughtgraph.engine.graph import Graph
from thoughtgraph.evaluation.datasets import Sample
from thoughtgraph.io.sources import source_digest
from thoughtgraph.models.base import LanguageModel, model_settings
from thoughtgraph.tasks.base import BaseTask
from thoughtgraph.tasks.duck import DuckTask
from thoughtgraph.tasks.filetask import FileTask

Fingerprint = dict[str, str]
"""A pair's part -> its digest (16 hex digits); a part the pair has none of is absent."""

PARTS = {
    "model": "the model's settings changed",
    "code": "the model's code changed",
    "models": "the models of the kinds routed to others changed",
    "task": "the task changed",
    "row": "the data row changed",
    "graph": "the graph changed",
    "prompts": "the prompts changed",
}
"""Every part of a fingerprint, in the order reasons are given, with the reason it gives."""


def digest(value: object) -> str:
    """The sha256 (16 hex digits) of `value` as canonical JSON."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=_plain)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _plain(value: object) -> object:
    """A value JSON has no word for, as one it has: a problem's dataclass, a set in order."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    return repr(value)


def of_model(model: LanguageModel) -> Fingerprint:
    """The model's parts: its name and settings, and apart from them its code (a `py:` model's,
    or a function's given as the model)."""
    settings = model_settings(model)
    code = settings.pop("code", None)
    parts = {"model": digest({"name": model.name, "settings": settings})}
    if code is not None:
        parts["code"] = str(code)
    return parts


def of_routes(routed: Mapping[str, LanguageModel]) -> Fingerprint:
    """The models of the kinds routed away from the default (`--model-for`): each kind's
    model's name, settings and code; no part when nothing is routed (a folder from before
    routing reads the same)."""
    if not routed:
        return {}
    return {
        "models": digest(
            {kind: {**of_model(lm), "name": lm.name} for kind, lm in sorted(routed.items())}
        )
    }


def of_task(task: BaseTask[Any, Any]) -> str:
    """The task's part: a task file's declaration (as read) and the source of its scoring
    function; for any other task its class's source (a task written from scratch: its own)."""
    if isinstance(task, FileTask):
        function = task.spec.score.function
        scorer = None if function is None else sys.modules.get(function.partition(":")[0])
        return digest({"file": task.spec.model_dump(mode="json"), "scorer": source_digest(scorer)})
    own = task.task if isinstance(task, DuckTask) else task
    return digest({"name": task.name, "code": source_digest(type(own))})


def of_row(sample: Sample) -> str:
    """The data row's part: what a run takes as its input, and its reference."""
    return digest({"input": sample.given, "reference": sample.reference})


def of_graph(graph: Graph) -> str:
    """A graph's digest, its name left out (a graph file's row may be renamed)."""
    return hashlib.sha256(
        graph.model_copy(update={"name": None}).to_json(None).encode()
    ).hexdigest()[:16]


def of_prompts(prompts: Mapping[str, str]) -> str | None:
    """The prompt texts a row sends in place of the task's (None: the task's own)."""
    return digest(sorted(prompts.items())) if prompts else None


def changes(recorded: Mapping[str, str] | None, current: Fingerprint) -> list[str]:
    """Why a pair with the `recorded` fingerprint is not the one `current` describes, one
    reason per part that differs ([]: the same pair; also for a line recorded before
    fingerprints, which has none to compare)."""
    if recorded is None:
        return []
    return [why for part, why in PARTS.items() if recorded.get(part) != current.get(part)]


def rerun_line(reasons: Mapping[str, int], pairs: int) -> str:
    """The one line naming how many finished pairs run again, and why ("12 pairs rerun: the
    model's code changed"; each reason's count when there are several)."""
    ordered = [why for why in PARTS.values() if why in reasons]
    if len(ordered) == 1:
        why = ordered[0]
    else:
        why = ", ".join(f"{reason} ({reasons[reason]})" for reason in ordered)
    return f"{pairs} pair{'s' if pairs != 1 else ''} rerun: {why}"
