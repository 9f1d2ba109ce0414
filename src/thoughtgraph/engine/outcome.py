"""How a run ended, as the executor returns it: the state it filled, why it stopped, what it spent.

Why a returned record rather than the gateway's fields: the gateway is where a run stops (a cap
reached, a fatal model error), but it is mutable and lives as long as the run; the run API builds
its `Result` from this frozen record alone, so nothing reads the stop back from the gateway.
"""

from __future__ import annotations

from dataclasses import dataclass

from thoughtgraph.engine.state import RunState
from thoughtgraph.events import StopReason
from thoughtgraph.spend.accounting import Spend, SpendTables
from thoughtgraph.spend.budget import Budget


@dataclass(frozen=True, slots=True)
class Stop:
    """Why a run stopped early, and its one line: "max_requests=5 reached (...)"."""

    reason: StopReason
    detail: str


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What `execute` returns (and a cancelled run's `CancelledError` carries as `.run`)."""

    state: RunState
    stop: Stop | None  # None: the run went to its end
    tables: SpendTables  # every recorded call's totals at the run's price, per kind, per model
    budget: Budget  # the caps that applied (an evaluation's shared ones, when it had them)

    @property
    def spend(self) -> Spend:
        return self.tables.total

    @property
    def stop_reason(self) -> StopReason | None:
        return None if self.stop is None else self.stop.reason

    @property
    def stop_detail(self) -> str | None:
        return None if self.stop is None else self.stop.detail
