"""How a run may spend and call: the validated options, and the prepared run, each built once.

`RunOptions` is the one place each run option is checked, with its one-line error: `solve`,
`asolve`, `thoughtgraph solve` and `thoughtgraph eval` all build one, and the executor, the
budget and the model wrappers take its values as given. `PreparedRun` is the task, the parsed
problem and the checked graph (`api.prepare`): built once, then run.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple, TypedDict

from thoughtgraph.engine.graph import Graph
from thoughtgraph.errors import InputError
from thoughtgraph.models.base import display_name, model_price
from thoughtgraph.spend.budget import (
    Budget,
    check_priced,
    check_real,
    check_whole,
    requests_cap,
)
from thoughtgraph.spend.pricing import Price, price_for
from thoughtgraph.tasks.base import BaseTask

_WHOLE = {"concurrency": 1}
"""Whole-number options and their least value (the caps are checked by `Budget`)."""

ORDERS = ("auto", "eager", "bfs")
"""The scheduler's orders (`executor.execute`)."""

_REAL = {"rpm": (0.0, True), "tpm": (0.0, True)}
"""Real options: (floor, strict): strict ones must be above the floor."""


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """Concurrency, budget caps, price, answer cache and rate limits of a run, checked.

    Keyword-only: ten options of which several are numbers of the same type are never passed
    by position.

    `flags=True` names the options as the command line spells them (`--max-requests`) in
    errors. The caps are checked once, by the `Budget` they make (`budget`).
    """

    concurrency: int = 16
    max_requests: int | None = None
    max_tokens: int | None = None
    max_cost: float | None = None
    price_in: float | None = None
    price_out: float | None = None
    cache: str | Path | None = None
    rpm: float | None = None
    tpm: float | None = None
    flags: bool = field(default=False, compare=False)
    order: str = "auto"  # the scheduler's: "eager", "bfs", or "auto" (bfs at concurrency 1)
    _budget: Budget = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name, least in _WHOLE.items():
            value = getattr(self, name)
            required = name == "concurrency"
            check_whole(self._label(name), value, least, required=required, flags=self.flags)
        if self.order not in ORDERS:
            raise InputError(
                f"{self._label('order')} must be one of {', '.join(ORDERS)}, got {self.order!r}"
            )
        budget = Budget(self.max_requests, self.max_tokens, self.max_cost, flags=self.flags)
        object.__setattr__(self, "_budget", budget)
        for name, (floor, strict) in _REAL.items():
            check_real(self._label(name), getattr(self, name), floor, strict)
        for name in ("price_in", "price_out"):
            check_real(self._label(name), getattr(self, name), -math.inf, False)
        if self.cache is not None and not isinstance(self.cache, str | os.PathLike):
            raise InputError(f"cache must be a file path, got {type(self.cache).__name__}")

    def _label(self, name: str) -> str:
        return "--" + name.replace("_", "-") if self.flags else name

    @property
    def budget(self) -> Budget:
        return self._budget

    @property
    def rate_limited(self) -> bool:
        return self.rpm is not None or self.tpm is not None

    def within(self, caps: Budget) -> RunOptions:
        """These options under other caps: a share of a budget (a size's, a Ray pair's)."""
        return replace(
            self, max_requests=caps.max_requests, max_tokens=caps.max_tokens, max_cost=caps.max_cost
        )

    def price(self, model_name: str) -> Price | None:
        """The price of `model_name` (given, or the built-in table's); a cost cap needs one."""
        price = price_for(model_name, self.price_in, self.price_out)
        check_priced(self.budget, price, model_name)
        return price

    def price_of(self, model: object) -> Price | None:
        """A model's price: its spec's own (`price_in=`/`price_out=`), else the one given
        (`price_in`/`price_out`), else the built-in table's; a cost cap needs one."""
        own = model_price(model)
        if own is None:
            return self.price(display_name(model))
        check_priced(self.budget, own, display_name(model))
        return own


class RunLimits(TypedDict, total=False):
    """What bounds a run, one keyword each, as every public function takes them (`solve`,
    `evaluate` and `tune` document them): concurrency, the caps, the price, the rate limits.
    `max_calls` is the older name of `max_requests`."""

    concurrency: int
    max_requests: int | None
    max_calls: int | None
    max_tokens: int | None
    max_cost: float | None
    price_in: float | None
    price_out: float | None
    rpm: float | None
    tpm: float | None


class RunKeywords(RunLimits, total=False):
    """`RunOptions` as `solve`, `asolve` and `evaluate` take them: the limits, the answer cache
    and the scheduler's order (tune keeps a cache of its own per trial: `cache_dir`)."""

    cache: str | Path | None
    order: str


def run_options(keywords: RunKeywords, *, flags: bool = False) -> RunOptions:
    """The checked `RunOptions` of a public function's keywords: where they become options (an
    omitted one takes `RunOptions`'s default)."""
    if not keywords and not flags:  # a plain solve(): the defaults, checked once (frozen)
        return _defaults()
    cache, order = keywords.get("cache"), keywords.get("order", RunOptions.order)
    return limited_run(keywords, cache=cache, order=order, flags=flags)


@functools.cache
def _defaults() -> RunOptions:
    return RunOptions()


def limited_run(
    keywords: RunLimits,
    *,
    cache: str | Path | None = None,
    order: str = RunOptions.order,
    flags: bool = False,
) -> RunOptions:
    """The checked `RunOptions` of the limits a public function was given (`run_options` for
    `solve` and `evaluate`; `tune` takes the limits alone)."""
    return RunOptions(
        concurrency=keywords.get("concurrency", RunOptions.concurrency),
        max_requests=requests_cap(keywords.get("max_requests"), keywords.get("max_calls")),
        max_tokens=keywords.get("max_tokens"),
        max_cost=keywords.get("max_cost"),
        price_in=keywords.get("price_in"),
        price_out=keywords.get("price_out"),
        cache=cache,
        rpm=keywords.get("rpm"),
        tpm=keywords.get("tpm"),
        flags=flags,
        order=order,
    )


class PreparedRun(NamedTuple):
    """What `api.prepare` checked and built before any call: run it as it is."""

    task: BaseTask[Any, Any]
    problem: Any
    graph: Graph
    reference: Any = None  # the problem's given reference, beside it (tasks/reference.py)
