"""Where a tune's jobs run: here, or wherever the layer above hands over (Ray).

tuning/ never imports what runs jobs elsewhere: `thoughtgraph.tune(ray=...)` (api/) and
`thoughtgraph tune --ray` pick scale/'s Ray backend and hand it to `run.run_tune`, which knows
only this protocol; the local backend is the default.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Protocol

from thoughtgraph.models.base import LanguageModel
from thoughtgraph.tuning.study import Backend, local_backend


class JobBackend(Protocol):
    """What runs a tune's jobs."""

    def check(self) -> None:
        """Refuse what cannot run there, as one line, before anything is written."""

    def shared(self, model: LanguageModel) -> LanguageModel:
        """The model object given from Python as every job gets it (Ray: a pickled copy)."""

    def joined(self) -> AbstractContextManager[Backend]:
        """Held for the whole tune (a cluster joined once); gives how each batch runs."""


class LocalJobs:
    """Every job in this process, sharing the model object as given."""

    def check(self) -> None:
        return None

    def shared(self, model: LanguageModel) -> LanguageModel:
        return model

    @contextlib.contextmanager
    def joined(self) -> Iterator[Backend]:
        yield local_backend


LOCAL_JOBS = LocalJobs()
