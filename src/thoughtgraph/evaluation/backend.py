"""Where an evaluation's pairs run: here, or wherever the layer above hands over (Ray).

evaluation/ never imports what runs pairs elsewhere: `thoughtgraph.evaluate(ray=...)` (api/)
picks scale/'s Ray backend and hands it to `session.run`, which knows only this protocol; the
local backend is the default.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from thoughtgraph.engine.options import RunOptions
from thoughtgraph.evaluation.runner import EvalPlan, PairRunner
from thoughtgraph.modelspec import ModelLike

# How one size's pairs run: (plan, model as given, its spec's options, pairs at once, the run
# options, the folder of traces or None, the kinds routed to other models as given: kind ->
# model) -> a pair runner, or None: here (`runner.run_pairs`).
RunnerFor = Callable[
    [
        EvalPlan,
        ModelLike,
        Mapping[str, object],
        int,
        RunOptions,
        Path | None,
        Mapping[str, ModelLike],
    ],
    PairRunner | None,
]


class PairBackend(Protocol):
    """What runs an evaluation's pairs."""

    def check(self) -> None:
        """Refuse what cannot run there, as one line, before anything runs."""

    def joined(self) -> AbstractContextManager[RunnerFor]:
        """Held for the whole evaluation (a cluster joined once); gives each size's runner."""


def _here(*_work: object) -> PairRunner | None:
    return None


class LocalPairs:
    """Every pair in this process (`runner.run_pairs`'s own solver)."""

    def check(self) -> None:
        return None

    @contextlib.contextmanager
    def joined(self) -> Iterator[RunnerFor]:
        yield _here


LOCAL_PAIRS = LocalPairs()
