"""The search space of `thoughtgraph tune`: which knobs of which scheme, and the graph they build.

A trial's parameters are plain names and values (`scheme`, `got.part_size`, `got.max_refines`,
...), stored in the Optuna study; `graph_for(params, ...)` rebuilds the same graph from them at
any time, so a study can be read back, reported on or resumed without re-running anything.

Parts are searched as a *part size* (items a part holds) rather than a count: the same choice
then means the same thing at 64 and at 128 items, and the paper's own rule (16 items a part for
`got_paper`) is one of the choices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

from .. import schemes
from ..errors import InputError
from ..graph import Graph

TUNABLE = ("got", "got_paper", "tot")
PART_SIZES = (2, 4, 8, 16, 32, 64)
# (low, high) of each whole-number knob, per scheme.
INT_RANGES: dict[str, dict[str, tuple[int, int]]] = {
    "got": {"max_regenerations": (0, 4), "max_extra_merges": (0, 3), "max_refines": (0, 4)},
    "got_paper": {"sort_n": (1, 10), "merge_n": (1, 10), "fix_n": (0, 10), "final_fix_n": (0, 10)},
    "tot": {"k": (1, 20), "levels": (1, 6)},
}
# Prompt variants among the task's own prompts (the sim reads them all alike; see docs/tuning.md).
PROMPT_CHOICES = {"got_paper": ("part_prompt", ("io", "cot")), "tot": ("prompt", ("io", "cot"))}


class Suggester(Protocol):
    """The part of `optuna.Trial` the space uses (so the space can be tested without Optuna)."""

    def suggest_categorical(self, name: str, choices: Sequence[Any]) -> Any: ...

    def suggest_int(self, name: str, low: int, high: int) -> int: ...


def check_schemes(names: Sequence[str]) -> tuple[str, ...]:
    """The schemes to search, refusing any that has no knobs to tune."""
    wanted = tuple(dict.fromkeys(n.strip() for n in names if n.strip()))
    if not wanted:
        raise InputError("--schemes: give at least one of " + ", ".join(TUNABLE))
    bad = [n for n in wanted if n not in TUNABLE]
    if bad:
        raise InputError(f"--schemes: cannot tune {bad[0]!r} (tunable: {', '.join(TUNABLE)})")
    return wanted


def part_sizes(size: int) -> list[int]:
    """Part sizes worth trying at `size`: those giving at least one part and a different count."""
    choices = [p for p in PART_SIZES if p < size] or [size]
    return choices


def suggest(trial: Suggester, scheme_names: Sequence[str], size: int, task: str) -> dict[str, Any]:
    """Ask the trial for every knob of one scheme; returns the trial's params."""
    scheme = (
        trial.suggest_categorical("scheme", list(scheme_names))
        if len(scheme_names) > 1
        else scheme_names[0]
    )
    params: dict[str, Any] = {"scheme": scheme}
    if scheme in ("got", "got_paper"):
        params[f"{scheme}.part_size"] = trial.suggest_categorical(
            f"{scheme}.part_size", part_sizes(size)
        )
    for knob, (low, high) in INT_RANGES[scheme].items():
        params[f"{scheme}.{knob}"] = trial.suggest_int(f"{scheme}.{knob}", low, high)
    if scheme in PROMPT_CHOICES:
        knob, choices = PROMPT_CHOICES[scheme]
        params[f"{scheme}.{knob}"] = trial.suggest_categorical(f"{scheme}.{knob}", list(choices))
    if scheme == "got_paper" and _one_part_paper(task, size):
        params["got_paper.keep"] = trial.suggest_int("got_paper.keep", 1, 5)
    return params


def _one_part_paper(task: str, size: int) -> bool:
    """Does the paper merge the best answers of one part (document merging)? Then `keep` counts."""
    return schemes.paper_options("got_paper", task, size).get("parts") == 1


def options_of(params: dict[str, Any], size: int) -> tuple[str, dict[str, Any]]:
    """(scheme, builder options) of a trial's params; part size becomes a count of parts."""
    scheme = params.get("scheme", "got")
    prefix = f"{scheme}."
    options = {k[len(prefix) :]: v for k, v in params.items() if k.startswith(prefix)}
    part_size = options.pop("part_size", None)
    if part_size is not None:
        options["parts"] = max(1, min(size, math.ceil(size / int(part_size))))
    return scheme, options


def graph_for(params: dict[str, Any], task: str, size: int) -> Graph:
    """The graph a trial's params describe, for `task` at `size` (the paper's other settings)."""
    scheme, options = options_of(params, size)
    parts = options.pop("parts", None)
    if scheme == "got_paper" and parts == 1 and not _one_part_paper(task, size):
        options.setdefault("split_by", "code")  # one part of a whole list: no split call needed
    return schemes.build(scheme, task, size, parts=parts, **options)


def describe(params: dict[str, Any], size: int) -> str:
    """A short label such as `got parts=8 regen=2 merges=1 refines=0`."""
    scheme, options = options_of(params, size)
    short = {
        "max_regenerations": "regen",
        "max_extra_merges": "merges",
        "max_refines": "refines",
        "part_prompt": "prompt",
    }
    text = " ".join(f"{short.get(k, k)}={v}" for k, v in sorted(options.items()))
    return f"{scheme} {text}".strip()


def baselines(task: str, size: int, example: Any) -> dict[str, tuple[Graph, str]]:
    """The graphs every tune is compared with, and their settings in one line: what
    `solve --scheme got` builds by default (the task's part size, caps 2/1/2) and the paper's
    `got_paper` configuration at this size."""
    import inspect

    from ..api import prepare

    the_task, problem, got = prepare(task, example, scheme="got")
    paper = {
        name: p.default
        for name, p in inspect.signature(schemes.got_paper).parameters.items()
        if name in INT_RANGES["got_paper"]
    } | schemes.paper_options("got_paper", task, size)
    paper_text = " ".join(
        f"{k}={v}" for k, v in paper.items() if k in (*INT_RANGES["got_paper"], "parts")
    )
    return {
        "got (default)": (
            got,
            f"got parts={the_task.default_parts(problem)} regen=2 merges=1 refines=2",
        ),
        "got_paper (paper)": (schemes.build("got_paper", task, size), f"got_paper {paper_text}"),
    }
