"""How a run may spend and call: the validated options, and the prepared run, each built once.

`RunOptions` is the one place each run option is checked, with its one-line error: `solve`,
`asolve`, `thoughtgraph solve` and `thoughtgraph eval` all build one, and the executor, the
budget and the model wrappers take its values as given. `PreparedRun` is the task, the parsed
problem and the checked graph (`api.prepare`): built once, then run.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from thoughtgraph.engine.graph import Graph
from thoughtgraph.errors import InputError, shown
from thoughtgraph.spend.budget import Budget
from thoughtgraph.spend.pricing import Price, price_for
from thoughtgraph.tasks.base import Task

_WHOLE = {"concurrency": 1, "max_calls": 0, "max_tokens": 0}
"""Whole-number options and their least value."""

_REAL = {"max_cost": (0.0, False), "rpm": (0.0, True), "tpm": (0.0, True)}
"""Real options: (floor, strict): strict ones must be above the floor."""


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """Concurrency, budget caps, price, answer cache and rate limits of a run, checked.

    Keyword-only: ten options of which several are numbers of the same type are never passed
    by position.

    `flags=True` names the options as the command line spells them (`--max-calls`) in errors.
    """

    concurrency: int = 16
    max_calls: int | None = None
    max_tokens: int | None = None
    max_cost: float | None = None
    price_in: float | None = None
    price_out: float | None = None
    cache: str | Path | None = None
    rpm: float | None = None
    tpm: float | None = None
    flags: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        for name, least in _WHOLE.items():
            value = getattr(self, name)
            required = name == "concurrency"
            check_whole(self._label(name), value, least, required=required, flags=self.flags)
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
        return Budget(self.max_calls, self.max_tokens, self.max_cost)

    @property
    def rate_limited(self) -> bool:
        return self.rpm is not None or self.tpm is not None

    def price(self, model_name: str) -> Price | None:
        """The price of `model_name` (given, or the built-in table's); a cost cap needs one."""
        price = price_for(model_name, self.price_in, self.price_out)
        if self.max_cost is not None and price is None:
            raise InputError(
                f"{self._label('max_cost')} needs a price: {model_name} is not in the built-in "
                "price table; give price_in and price_out (--price-in/--price-out, USD per "
                "million tokens)"
            )
        return price


class PreparedRun(NamedTuple):
    """What `api.prepare` checked and built before any call: run it as it is."""

    task: Task
    problem: Any
    graph: Graph


def check_whole(
    label: str,
    value: Any,
    least: int,
    *,
    most: int | None = None,
    required: bool = False,
    flags: bool = False,
) -> None:
    """A whole number from `least` to `most`; None means "not set", unless `required`."""
    if value is None and not required:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(f"{label} must be a whole number, got {shown(value)}")
    if value < least:
        bound = "0 or more" if least == 0 and not flags else f"at least {least}"
        raise InputError(f"{label} must be {bound}, got {value}")
    if most is not None and value > most:
        raise InputError(f"{label} must be at most {most}, got {value}")


def check_real(label: str, value: Any, floor: float, strict: bool) -> None:
    """A finite number at or above (strict: above) `floor`; None means "not set"."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InputError(f"{label} must be a finite number, got {shown(value)}")
    if value < floor or (strict and value == floor):
        raise InputError(
            f"{label} must be {'more than ' if strict else ''}{floor:g}"
            f"{'' if strict else ' or more'}, got {value:g}"
        )
