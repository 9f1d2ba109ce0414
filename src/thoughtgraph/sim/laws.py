"""The simulated model's laws of slips: how many slips an answer makes, and of which kind.

A law gives the mean number of slips of one job at a length, and the mix of slip kinds (drop a
number, write one twice, count a country once too few, ...). Two forms, both read by the model
the same way (`expected`, `mix_at`):

- `PowerLaw`: mean `error * a * (length / unit) ** g`, one mix at every length (the default
  profile's form, fitted end to end to the GoT paper's figures);
- `TableLaw`: the mean slips of each kind at some lengths (a fit call by call to real replies).
  Between two lengths the mean follows the power law through them (a straight line where one is
  0), below the first it is the first's, beyond the last it grows by `growth` (a power), or as
  between the last two when none is given (never falling); the mix is the points' own,
  interpolated, so the kinds of slip can change with length.

`measure` says which length a law reads: `output` (what the job must write: numbers, mentions,
clauses) or `input` (what it reads: both sets of a set intersection).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TypeAlias

Weights: TypeAlias = tuple[tuple[str, float], ...]
MEASURES = ("output", "input")


@dataclass(frozen=True)
class Mix:
    """Which kind each slip is. `weights` None: each kind the job can make alike (a uniform draw
    among them); else drawn by weight, and a slip of a kind the job cannot make here (lower a
    count of 1 without leaving the country out) is not made: the mix is the model's, not the
    job's, and a fitted rate counts only the slips that were made."""

    weights: Weights | None

    def pick(self, rng: random.Random, available: Sequence[str]) -> str | None:
        """One slip's kind, or None when it is not made."""
        if self.weights is None:
            return rng.choice(available) if available else None
        kinds = [(k, w) for k, w in self.weights if w > 0]
        if not kinds:
            return None
        kind = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        return kind if kind in available else None


UNIFORM = Mix(None)


@dataclass(frozen=True)
class PowerLaw:
    """Mean slips `error * a * (length / unit) ** g` (0 at length 0), one mix at every length."""

    a: float
    g: float
    unit: float
    mix: Mix
    measure: str = "output"

    def expected(self, length: float, error: float) -> float:
        return error * self.a * (length / self.unit) ** self.g if length > 0 else 0.0

    def mix_at(self, _length: float) -> Mix:
        return self.mix


@dataclass(frozen=True)
class TableLaw:
    """Mean slips of each kind at some lengths, read between them as the module says."""

    points: tuple[tuple[float, Weights], ...]  # (length, ((slip kind, mean per call), ...))
    slips: tuple[str, ...]  # the job's slip kinds, in draw order
    measure: str = "output"
    note: str = ""  # what it was fitted on
    growth: float | None = None  # the power beyond the last length (None: the last two's)

    def expected(self, length: float, error: float) -> float:
        return error * table_rate([(x, dict(r)) for x, r in self.points], length, self.growth)

    def mix_at(self, length: float) -> Mix:
        live = [(x, dict(r)) for x, r in self.points if sum(v for _, v in r) > 0]
        if not live:
            return Mix(())
        weights = live[-1][1]
        if length <= live[0][0]:
            weights = live[0][1]
        else:
            for (x0, r0), (x1, r1) in pairwise(live):
                if length <= x1:
                    t = (length - x0) / (x1 - x0)
                    w0, w1 = _shares(r0), _shares(r1)
                    weights = {k: (1 - t) * w0.get(k, 0) + t * w1.get(k, 0) for k in self.slips}
                    break
        shares = _shares(weights)
        return Mix(tuple((k, shares[k]) for k in self.slips if shares.get(k, 0) > 0))


Law: TypeAlias = PowerLaw | TableLaw


def _shares(rates: Mapping[str, float]) -> dict[str, float]:
    total = sum(rates.values())
    return {k: v / total for k, v in rates.items()} if total else {}


def table_rate(
    points: Sequence[tuple[float, Mapping[str, float]]], length: float, growth: float | None = None
) -> float:
    """A table's mean slips at a length (scripts/fit_profiles.py fits with this same reading)."""
    xs = [x for x, _ in points]
    totals = [sum(r.values()) for _, r in points]
    if length <= xs[0]:
        return totals[0]
    for (x0, t0), (x1, t1) in pairwise(zip(xs, totals, strict=True)):
        if length <= x1:
            if t0 > 0 and t1 > 0 and x0 > 0:
                return float(t0 * (length / x0) ** (math.log(t1 / t0) / math.log(x1 / x0)))
            return t0 + (t1 - t0) * (length - x0) / (x1 - x0)
    if growth is None:
        growth = last_growth(xs, totals)
    return float(totals[-1] * (length / xs[-1]) ** growth) if xs[-1] > 0 else totals[-1]


def last_growth(xs: Sequence[float], totals: Sequence[float]) -> float:
    """The power between a table's last two lengths (0 where one of them is 0)."""
    if len(xs) > 1 and totals[-2] > 0 and totals[-1] > 0 and xs[-2] > 0:
        return max(0.0, math.log(totals[-1] / totals[-2]) / math.log(xs[-1] / xs[-2]))
    return 0.0
