"""Statistics a reviewer accepts: bootstrap confidence intervals, repeats and paired tests.

Everything here is computed by scipy.stats and numpy (the `[stats]` extra), never hand-rolled:

- a 95% bootstrap CI (percentile method, 2,000 resamples, a fixed seed so a report is
  reproducible) of a scheme's median measure and of its solved rate. With `--repeats R` a sample
  has R runs; the bootstrap resamples *samples* (each with all its repeats), since the repeats of
  one problem are not independent of each other;
- the spread across repeats: the scheme's median in each repeat, and their standard deviation;
- paired comparisons of two schemes on the samples both ran: per sample the difference of their
  measures (averaged over repeats), the Wilcoxon signed-rank test (two-sided; ties dropped, a
  "zsplit" would hide them), a paired bootstrap CI of the median difference and the matched-pairs
  rank-biserial correlation as effect size (-1..1: the share of the ranked differences favouring
  the second scheme minus that favouring the first).

`thoughtgraph eval` writes these when scipy is installed and says in one line how to get it
otherwise; `thoughtgraph compare` needs it.
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, SupportsInt

from thoughtgraph.evaluation.measures import measure, measured, solved, unanswered
from thoughtgraph.evaluation.runner import PairResult

CONFIDENCE = 0.95
RESAMPLES = 2000
SEED = 20240101  # fixed: the same results give the same intervals
INSTALL_HINT = "pip install 'thoughtgraph[stats]' (from a clone: pip install -e '.[stats]')"


class StatsMissing(ImportError):
    """scipy (or numpy) is not installed: no intervals or tests can be computed."""


def available() -> bool:
    """Whether scipy and numpy are installed, found without importing them (scipy.stats alone
    takes a second or more to import: an eval whose statistics need none would pay it)."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in ("numpy", "scipy"))


def _numpy() -> Any:
    """numpy alone, for what needs no scipy (a mean, a standard deviation)."""
    try:
        import numpy
    except ImportError as exc:
        raise StatsMissing(f"numpy is not installed ({INSTALL_HINT})") from exc
    return numpy


def _libraries() -> tuple[Any, ModuleType]:
    try:
        import numpy
        import scipy.stats
    except ImportError as exc:
        raise StatsMissing(f"scipy and numpy are not installed ({INSTALL_HINT})") from exc
    return numpy, scipy.stats


@dataclass(frozen=True)
class Interval:
    """A point estimate with its confidence interval (low == high when the data cannot vary)."""

    value: float
    low: float
    high: float

    def show(self, fmt: str = "g") -> str:
        return f"{self.value:{fmt}} [{self.low:{fmt}}, {self.high:{fmt}}]"


def bootstrap(groups: Sequence[Sequence[float]], statistic: Callable[..., Any]) -> Interval:
    """The statistic of all values and its bootstrap CI, resampling whole groups (a sample's
    repeats) with replacement."""
    np, stats = _libraries()
    flat = np.concatenate([np.asarray(g, dtype=float) for g in groups])
    value = float(statistic(flat))
    if len(groups) < 2 or np.all(flat == flat[0]):
        return Interval(value, value, value)
    arrays = [np.asarray(g, dtype=float) for g in groups]
    if all(len(a) == 1 for a in arrays):  # one value per sample: scipy's vectorised path
        result = _bootstrap(stats, (flat,), lambda x, axis: statistic(x, axis=axis))
    else:
        index = np.arange(len(arrays))

        def by_group(chosen: Iterable[SupportsInt]) -> float:
            return float(statistic(np.concatenate([arrays[int(i)] for i in chosen])))

        result = _bootstrap(stats, (index,), by_group, vectorized=False)
    low, high = result.confidence_interval
    return Interval(value, _finite(low, value), _finite(high, value))


def _bootstrap(
    stats: ModuleType, data: tuple[Any, ...], fn: Callable[..., object], vectorized: bool = True
) -> Any:
    np = _numpy()
    with warnings.catch_warnings():  # a degenerate resample warns; its interval is still right
        warnings.simplefilter("ignore")
        return stats.bootstrap(
            data,
            fn,
            n_resamples=RESAMPLES,
            confidence_level=CONFIDENCE,
            method="percentile",
            vectorized=vectorized,
            random_state=np.random.default_rng(SEED),
        )


def _finite(x: float, fallback: float) -> float:
    return fallback if x is None or not math.isfinite(float(x)) else float(x)


NO_INTERVAL = Interval(math.nan, math.nan, math.nan)
"""The median of no measurement (every run unrated or unanswered)."""


def median_interval(groups: Sequence[Sequence[float]]) -> Interval:
    flat = [float(v) for g in groups for v in g]
    if _cannot_vary(groups, flat):  # no resample can differ: no library needed
        return _point(statistics.median(flat))
    np = _numpy()
    return bootstrap(groups, np.median)


def rate_interval(groups: Sequence[Sequence[bool]]) -> Interval:
    """The share of runs solved, with its CI."""
    flat = [float(v) for g in groups for v in g]
    if _cannot_vary(groups, flat):
        return _point(statistics.fmean(flat))
    np = _numpy()
    return bootstrap([[float(v) for v in g] for g in groups], np.mean)


def _cannot_vary(groups: Sequence[Sequence[object]], flat: Sequence[float]) -> bool:
    """One sample, or every value the same: each resample gives the statistic itself (as
    `bootstrap` finds; checked here first so that a one-sample eval imports no scipy)."""
    return len(groups) < 2 or all(v == flat[0] for v in flat)


def _point(value: float) -> Interval:
    return Interval(value, value, value)


@dataclass(frozen=True)
class Spread:
    """How much a scheme's median moves between repeats (R runs of every sample)."""

    medians: tuple[float, ...]  # the scheme's median in each repeat
    sd: float  # their standard deviation (0 with one repeat)
    within: float  # the mean over samples of the SD of a sample's measure across repeats


def spread(
    by_repeat: dict[int | str, list[float]], by_sample: dict[int | str, list[float]]
) -> Spread:
    np = _numpy()
    medians = tuple(float(np.median(v)) for _r, v in sorted(by_repeat.items()))
    sd = float(np.std(medians, ddof=1)) if len(medians) > 1 else 0.0
    sds = [float(np.std(v, ddof=1)) for v in by_sample.values() if len(v) > 1]
    return Spread(medians, sd, float(np.mean(sds)) if sds else 0.0)


@dataclass(frozen=True)
class Paired:
    """Scheme `a` against scheme `b` (or run A against run B) on the samples both have.

    `difference` is the median of the per-sample differences a - b, with its bootstrap CI;
    `p` is the two-sided Wilcoxon signed-rank p-value (1.0 when every difference is 0);
    `effect` the matched-pairs rank-biserial correlation of a - b (positive: a's measure is
    higher); `a_higher`/`b_higher`/`ties` count the samples each way."""

    samples: int
    difference: Interval
    p: float
    effect: float
    a_higher: int
    b_higher: int
    ties: int


def paired(a: Sequence[float], b: Sequence[float]) -> Paired:
    """Compare two measures on the same samples (the i-th of `a` and of `b` are one sample)."""
    np, stats = _libraries()
    if len(a) != len(b):
        raise ValueError("paired measures need one value of each per sample")
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    difference = median_interval([[x] for x in d]) if len(d) else Interval(0.0, 0.0, 0.0)
    nonzero = d[d != 0]
    if len(nonzero) == 0:
        p, effect = 1.0, 0.0
    else:
        with warnings.catch_warnings():  # few samples: scipy notes the normal approximation
            warnings.simplefilter("ignore")
            p = float(stats.wilcoxon(nonzero, zero_method="wilcox").pvalue)
        ranks = stats.rankdata(np.abs(nonzero))
        plus, minus = float(ranks[nonzero > 0].sum()), float(ranks[nonzero < 0].sum())
        effect = (plus - minus) / (plus + minus)
    return Paired(
        len(d),
        difference,
        p,
        effect,
        int((d > 0).sum()),
        int((d < 0).sum()),
        int((d == 0).sum()),
    )


# --- from an evaluation's results ----------------------------------------------------------------
def by_sample(results: Sequence[PairResult], scored: bool) -> dict[int | str, list[float]]:
    """Each sample's measures, one per repeat (runs that are no measurement, such as an
    unrated answer of a model-scored task, are left out)."""
    # sample ids may be numbers or names: sorted as text
    groups: dict[int | str, list[float]] = {}
    for r in sorted(measured(results, scored), key=lambda r: (str(r.sample), r.repeat)):
        groups.setdefault(r.sample, []).append(measure(r, scored))
    return groups


@dataclass(frozen=True)
class SchemeStats:
    """A scheme's intervals (and, with repeats, its spread) on one size."""

    median: Interval
    solved_rate: Interval | None  # None: the task has no reference (or is model-scored)
    spread: Spread | None  # None: one repeat


def scheme_stats(results: Sequence[PairResult], scored: bool) -> SchemeStats:
    """The median's interval over the runs that are measurements (`measured`; NaN when none
    is); the solved rate's over every run, one the model never answered counting as not
    solved."""
    groups = by_sample(results, scored)
    solved_by: dict[int | str, list[bool]] = {}
    for r in results:
        done = solved(r)
        if done is not None:
            solved_by.setdefault(r.sample, []).append(done)
    by_repeat: dict[int | str, list[float]] = {}
    for r in measured(results, scored):
        by_repeat.setdefault(r.repeat, []).append(measure(r, scored))
    return SchemeStats(
        median_interval(list(groups.values())) if groups else NO_INTERVAL,
        rate_interval(list(solved_by.values())) if solved_by and not scored else None,
        spread(by_repeat, groups) if len(by_repeat) > 1 else None,
    )


@dataclass(frozen=True)
class Pair:
    """Two schemes on the samples both ran (a sample's repeats averaged first), the runs the
    model never answered left out (`no_answer_a`, `no_answer_b` count them)."""

    a: str
    b: str
    median_a: float
    median_b: float
    test: Paired
    no_answer_a: int = 0
    no_answer_b: int = 0


def per_sample_means(results: Sequence[PairResult], scored: bool) -> dict[int | str, float]:
    np = _numpy()
    return {s: float(np.mean(v)) for s, v in by_sample(results, scored).items()}


def compare_measures(
    a: dict[int | str, float], b: dict[int | str, float]
) -> tuple[list[int | str], Paired]:
    """Pair two per-sample measures on the samples they share."""
    shared = sorted(set(a) & set(b), key=str)
    return shared, paired([a[s] for s in shared], [b[s] for s in shared])


def scheme_pairs(results: Sequence[PairResult], schemes: Sequence[str], scored: bool) -> list[Pair]:
    """Every two schemes (in the order given) compared on their shared samples, over the runs
    that are measurements (`measured`)."""
    mine = {s: [r for r in results if r.scheme == s] for s in schemes}
    present = [s for s in schemes if by_sample(mine[s], scored)]
    if len(present) < 2:  # nothing to pair: no library needed (an eval of one scheme)
        return []
    np = _numpy()
    means = {s: per_sample_means(mine[s], scored) for s in present}
    missing = {s: len(unanswered(mine[s])) for s in schemes}
    pairs = []
    for i, a in enumerate(present):
        for b in present[i + 1 :]:
            shared, test = compare_measures(means[a], means[b])
            if not shared:
                continue
            pairs.append(
                Pair(
                    a,
                    b,
                    float(np.median([means[a][s] for s in shared])),
                    float(np.median([means[b][s] for s in shared])),
                    test,
                    missing[a],
                    missing[b],
                )
            )
    return pairs
