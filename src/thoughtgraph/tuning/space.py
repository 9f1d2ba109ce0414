"""The search space of `thoughtgraph tune`: which knobs of which scheme, and the graph they build.

A trial's parameters are plain names and values (`scheme`, `got.part_size`, `got.max_refines`,
...), stored in the Optuna study; `graph_for(params, ...)` rebuilds the same graph from them at
any time, so a study can be read back, reported on or resumed without re-running anything.

With a prompts file (`evaluation/prompt_variants.py`), each prompt slot the trial's graph uses
is one more categorical, `prompt.SLOT`, over that slot's variant names; the graph then carries
the chosen texts in its own `prompts`.

Parts are searched as a *part size* (items a part holds) rather than a count: the same choice
then means the same thing at 64 and at 128 items, and the paper's own rule (16 items a part for
`got_paper`) is one of the choices. Tree of Problems (`top`) is searched the same way: its
leaf size becomes the depth of its tree for the breadth chosen (`schemes.top_depth`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from thoughtgraph import schemes
from thoughtgraph.engine import kinds
from thoughtgraph.engine.graph import Graph
from thoughtgraph.errors import InputError, shown
from thoughtgraph.tasks import TASKS
from thoughtgraph.tasks.loading import loaded

if TYPE_CHECKING:
    from thoughtgraph.evaluation.prompt_variants import Variants

TUNABLE = ("got", "got_paper", "tot", "top", "got_adaptive")
SPLIT = ("got", "got_paper", "top", "got_adaptive")  # searched by part size (top: a leaf's items)
PART_SIZES = (2, 4, 8, 16, 32, 64)
# (low, high) of each whole-number knob, per scheme.
INT_RANGES: dict[str, dict[str, tuple[int, int]]] = {
    "got": {"max_regenerations": (0, 4), "max_extra_merges": (0, 3), "max_refines": (0, 4)},
    "got_adaptive": {
        "max_regenerations": (0, 4),
        "max_extra_merges": (0, 3),
        "max_refines": (0, 4),
        "fanout": (2, 4),
        "depth": (1, 3),
    },
    "got_paper": {"sort_n": (1, 10), "merge_n": (1, 10), "fix_n": (0, 10), "final_fix_n": (0, 10)},
    "tot": {"k": (1, 20), "levels": (1, 6)},
    "top": {"b": (2, 4)},
}
# Prompt variants among the task's own prompts (the sim reads them all alike; see docs/tuning.md).
PROMPT_CHOICES = {
    "got_paper": ("part_prompt", ("io", "cot")),
    "tot": ("prompt", ("io", "cot")),
    "top": ("prompt", ("io", "cot")),
}
SHORT = {"max_regenerations": "regen", "max_extra_merges": "merges", "max_refines": "refines"}
"""How a label names got's retry knobs."""


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
        raise InputError(f"--schemes: cannot tune {shown(bad[0])} (tunable: {', '.join(TUNABLE)})")
    return wanted


def part_sizes(size: int, task: str | None = None) -> list[int]:
    """Part sizes worth trying at `size`: those giving at least one part and a different count.

    A user's task (a task file, an import string, a plugin) also tries its own part size (a
    task file's `split.part_size`: one paragraph a part) and the whole problem as one part:
    its problems are often a few paragraphs long, where the built-in sizes leave one choice."""
    if task is None or task in TASKS:
        return [p for p in PART_SIZES if p < size] or [size]
    found = loaded(task)
    own = [found.part_size] if found is not None and found.part_size >= 1 else []
    wanted = {*PART_SIZES, *own}
    return sorted({p for p in wanted if p < size} | {size})


def suggest(
    trial: Suggester,
    scheme_names: Sequence[str],
    size: int,
    task: str,
    variants: Variants | None = None,
) -> dict[str, Any]:
    """Ask the trial for every knob of one scheme, then for a variant of each prompt slot its
    graph sends (only those: a slot the graph lacks would be a choice that changes nothing)."""
    scheme = (
        trial.suggest_categorical("scheme", list(scheme_names))
        if len(scheme_names) > 1
        else scheme_names[0]
    )
    params: dict[str, Any] = {"scheme": scheme}
    if scheme in SPLIT:
        params[f"{scheme}.part_size"] = trial.suggest_categorical(
            f"{scheme}.part_size", part_sizes(size, task)
        )
    held = fixed(scheme, task)
    for knob, (low, high) in INT_RANGES[scheme].items():
        name = f"{scheme}.{knob}"
        params[name] = held[name] if name in held else trial.suggest_int(name, low, high)
    if scheme in PROMPT_CHOICES:
        knob, choices = PROMPT_CHOICES[scheme]
        params[f"{scheme}.{knob}"] = trial.suggest_categorical(f"{scheme}.{knob}", list(choices))
    if scheme == "got_paper" and _one_part_paper(task, size):
        params["got_paper.keep"] = trial.suggest_int("got_paper.keep", 1, 5)
    if variants is not None:
        sent = _sent(graph_for(params, task, size))
        for slot in sorted(variants.slots):
            if slot in sent:
                name = variants.param(slot)
                params[name] = trial.suggest_categorical(name, variants.choices(slot))
    return params


def fixed(scheme: str, task: str) -> dict[str, Any]:
    """Knobs held rather than searched: on a task whose code checks nothing of an answer (a
    task file's free text rated by the model), `got`'s regenerations, extra merges and refines
    never fire (they act on code's errors), so they are 0 and only its parts are searched;
    trials that differ only in them would pay for the same graph again. (A trial's stored
    params lack these: `graph_for` and `describe` get them from here too.)"""
    if scheme not in schemes.SPEC_PATTERNS or task in TASKS:
        return {}
    found = loaded(task)
    if found is None or found.checks_in_code:
        return {}
    return {f"{scheme}.{knob}": 0 for knob in INT_RANGES["got"]}


def _sent(graph: Graph) -> set[str]:
    """The prompt names a graph's ops send to the model."""
    return {op.prompt for op in graph.ops if op.prompt is not None}


MODEL_PARAM = "model."
"""The prefix of a trial's choice of model for one kind of call (`model.merge`: `big`)."""


def suggest_models(
    trial: Suggester, graph: Graph, names: Sequence[str], fixed: Collection[str] = ()
) -> dict[str, Any]:
    """Ask the trial, for each kind of call its graph makes, which of the candidate models
    (`tune --models NAME=SPEC,...`) answers it; not for the `fixed` kinds, which `--model-for`
    routes in every run."""
    return {
        f"{MODEL_PARAM}{kind}": trial.suggest_categorical(f"{MODEL_PARAM}{kind}", list(names))
        for kind in graph.call_kinds
        if kind not in fixed
    }


def routes_of(params: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """A trial's models per kind of call (kind -> candidate name), from its params."""
    return tuple(
        sorted(
            (k.removeprefix(MODEL_PARAM), str(v))
            for k, v in params.items()
            if k.startswith(MODEL_PARAM)
        )
    )


class _Pinned:
    """A Suggester that takes the given categorical choices and every count at its high end:
    the largest graphs of the space, for finding every prompt it can send."""

    def __init__(self, choices: dict[str, Any]) -> None:
        self.choices = choices

    def suggest_categorical(self, name: str, choices: Sequence[Any]) -> Any:
        return self.choices.get(name, choices[-1])

    def suggest_int(self, name: str, low: int, high: int) -> int:
        return high


def space_graphs(scheme_names: Sequence[str], task: str, size: int) -> list[tuple[str, Graph]]:
    """The largest graphs of the searched space (every count at its high end), one for each
    scheme, prompt choice and part size, named by their settings (`describe`): between them
    they send every prompt a trial can send and hold the most parts a trial can have, so a
    task that cannot run one of them is refused before any trial (`tuning.plan`)."""
    found: list[tuple[str, Graph]] = []
    for scheme in scheme_names:
        prompt_knob = PROMPT_CHOICES.get(scheme)
        prompts = prompt_knob[1] if prompt_knob else (None,)
        sizes = part_sizes(size, task) if scheme in SPLIT else [None]
        for prompt in prompts:
            for part_size in sizes:
                pinned = {"scheme": scheme, f"{scheme}.part_size": part_size}
                if prompt_knob:
                    pinned[f"{scheme}.{prompt_knob[0]}"] = prompt
                params = suggest(_Pinned(pinned), [scheme], size, task)
                found.append((describe(params, size), graph_for(params, task, size)))
    return found


def prompt_slots(scheme_names: Sequence[str], task: str, size: int) -> dict[str, frozenset[str]]:
    """Every prompt the searched schemes' graphs can send (slot -> the template values every op
    sending it fills): what a prompts file may give variants for."""
    fills: dict[str, frozenset[str]] = {}
    for _name, graph in space_graphs(scheme_names, task, size):
        for op in graph.ops:
            if op.prompt is not None:
                filled = kinds.get(op.kind).fills
                fills[op.prompt] = fills.get(op.prompt, filled) & filled
    return fills


def _one_part_paper(task: str, size: int) -> bool:
    """Does the paper merge the best answers of one part (document merging)? Then `keep` counts."""
    return schemes.paper_options("got_paper", task, size).get("parts") == 1


def options_of(params: dict[str, Any], size: int) -> tuple[str, dict[str, Any]]:
    """(scheme, builder options) of a trial's params; part size becomes a count of parts (for
    `top`, the depth whose leaves hold at most that many items)."""
    scheme = params.get("scheme", "got")
    prefix = f"{scheme}."
    options = {k[len(prefix) :]: v for k, v in params.items() if k.startswith(prefix)}
    part_size = options.pop("part_size", None)
    if part_size is not None and scheme == "top":
        options["d"] = schemes.top_depth(int(options.get("b", 2)), int(part_size), size)
    elif part_size is not None:
        options["parts"] = max(1, min(size, math.ceil(size / int(part_size))))
    return scheme, options


def graph_for(
    params: dict[str, Any], task: str, size: int, variants: Variants | None = None
) -> Graph:
    """The graph a trial's params describe, for `task` at `size` (the paper's other settings),
    carrying the text of every prompt variant it chose other than a built-in."""
    scheme, options = options_of(params, size)
    parts = options.pop("parts", None)
    if scheme == "got_paper" and parts == 1 and not _one_part_paper(task, size):
        options.setdefault("split_by", "code")  # one part of a whole list: no split call needed
    graph = schemes.build(scheme, task, size, parts=parts, **options)
    if variants is None:
        return graph
    chosen = {
        k.removeprefix("prompt.").split("@")[0]: v
        for k, v in params.items()
        if k.startswith("prompt.")
    }
    texts = {slot: variants.text(slot, name) for slot, name in sorted(chosen.items())}
    prompts = {slot: text for slot, text in texts.items() if text is not None}
    return Graph(ops=graph.ops, prompts=prompts) if prompts else graph


def describe(params: dict[str, Any], size: int) -> str:
    """A short label such as `got parts=8 regen=2 merges=1 refines=0`."""
    scheme, options = options_of(params, size)
    short = {**SHORT, "part_prompt": "prompt"}
    text = " ".join(f"{short.get(k, k)}={v}" for k, v in sorted(options.items()))
    chosen = " ".join(f"{k}={v}" for k, v in sorted(params.items()) if k.startswith("prompt."))
    routes = " ".join(f"{kind}={name}" for kind, name in routes_of(params))
    models = f"models: {routes}" if routes else ""
    return " ".join(part for part in (scheme, text, chosen, models) if part)
