"""Prompting schemes as graph builders: each returns a plain `Graph`, built before any call.

- `io`, `cot`: one answer to the whole problem (the task's `io` / `cot` prompt).
- `cot_sc(k)`: k chain-of-thought answers in one request, the best kept.
- `tot(k, levels)`: k answers, the best kept, then `levels - 1` times k fixes of the best, the
  best of those and the previous best kept (the paper's ToT; `tot2` is the narrower, deeper one).
- `got`: the spec's adaptive Graph-of-Thoughts pattern (code split, Part with regenerations,
  pairwise Merge with extra merges, Refine kept only if better).
- `got_paper`: the paper's fixed GoT configuration (model split; sort with Repeat 5 + keep best;
  merge with Repeat 10 + keep best; fix with Repeat 5, or 10 for the final merge, + keep best).

`build(name, task, size)` picks the paper's configuration for a task and input size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .errors import GraphError, UnknownNameError
from .graph import Graph, Op


class _Builder:
    """Accumulates ops; `add` returns the new op's id so graphs read top to bottom."""

    def __init__(self) -> None:
        self.ops: list[Op] = []

    def add(self, op_id: str, kind: str, inputs: tuple[str, ...] = (), **params: object) -> str:
        self.ops.append(Op(id=op_id, kind=kind, inputs=inputs, params=params))
        return op_id

    def scored_best(self, prefix: str, source: str, *also: str, n: int = 1) -> str:
        """score `source` (code), then keep the best of it and of `also`."""
        score = self.add(f"{prefix}_score", "score", (source,))
        return self.add(f"{prefix}_best", "keep_best", (score, *also), n=n)

    def graph(self) -> Graph:
        return Graph(ops=tuple(self.ops))


def io() -> Graph:
    """Input-output: one request for the whole answer."""
    b = _Builder()
    answer = b.add("answer", "generate", prompt="io")
    score = b.add("score", "score", (answer,))
    b.add("ground_truth", "ground_truth", (score,))
    return b.graph()


def cot() -> Graph:
    """Chain of thought: one request, the task's step-by-step prompt."""
    b = _Builder()
    answer = b.add("answer", "generate", prompt="cot")
    score = b.add("score", "score", (answer,))
    b.add("ground_truth", "ground_truth", (score,))
    return b.graph()


def cot_sc(k: int = 5) -> Graph:
    """Self-consistency over chains of thought: k answers in one request, the best kept."""
    _positive(k=k)
    b = _Builder()
    answers = b.add("answers", "generate", prompt="cot", n=k)
    best = b.scored_best("answers", answers)
    b.add("ground_truth", "ground_truth", (best,))
    return b.graph()


def tot(k: int = 20, levels: int = 2) -> Graph:
    """Tree of thoughts: k answers, keep the best; then levels-1 rounds of k fixes of the best."""
    _positive(k=k, levels=levels)
    b = _Builder()
    answers = b.add("level_1", "generate", prompt="io", n=k)
    best = b.scored_best("level_1", answers)
    for level in range(2, levels + 1):
        fixes = b.add(f"level_{level}", "generate", (best,), prompt="improve", n=k)
        best = b.scored_best(f"level_{level}", fixes, best)
    b.add("ground_truth", "ground_truth", (best,))
    return b.graph()


def tot2(levels: int = 3) -> Graph:
    """The paper's second ToT variant: a narrower (k = 10), deeper tree."""
    return tot(k=10, levels=levels)


def got(
    parts: int = 4,
    arity: int = 2,
    max_regenerations: int = 2,
    max_extra_merges: int = 1,
    max_refines: int = 2,
) -> Graph:
    """The spec's pattern: split → parts × (select → part) → merge tree of `arity` → refine."""
    _positive(parts=parts)
    if arity < 2:
        raise GraphError(f"arity must be at least 2, got {arity}")
    b = _Builder()
    b.add("split", "split", parts=parts)
    level = []
    for i in range(1, parts + 1):
        b.add(f"select_{i}", "select", ("split",), index=i - 1)
        level.append(b.add(f"part_{i}", "generate", (f"select_{i}",), prompt="part",
                           max_regenerations=max_regenerations))

    def merge(op_id: str, inputs: tuple[str, ...], _final: bool) -> str:
        return b.add(op_id, "aggregate", inputs, prompt="merge", max_extra_merges=max_extra_merges)

    top = _merge_tree(level, arity, merge)
    b.add("refine", "refine", (top,), prompt="refine", max_refines=max_refines)
    return b.graph()


def got_paper(parts: int = 2, sort_n: int = 5, merge_n: int = 10, fix_n: int = 5,
              final_fix_n: int = 10) -> Graph:
    """The paper's GoT configuration for sorting-like tasks (reference implementation's counts).

    Model split into `parts`; each part answered `sort_n` times, best kept; pairwise merges
    answered `merge_n` times, best kept, then fixed `fix_n` times (`final_fix_n` for the last
    merge) with the unfixed merge kept if no fix beats it.
    """
    _positive(parts=parts, sort_n=sort_n, merge_n=merge_n, fix_n=fix_n, final_fix_n=final_fix_n)
    b = _Builder()
    b.add("split", "split", parts=parts, by="model")
    level = []
    for i in range(1, parts + 1):
        b.add(f"select_{i}", "select", ("split",), index=i - 1)
        answers = b.add(f"part_{i}", "generate", (f"select_{i}",), prompt="io", n=sort_n)
        level.append(b.scored_best(f"part_{i}", answers))

    def merge(op_id: str, inputs: tuple[str, ...], final: bool) -> str:
        merged = b.add(op_id, "aggregate", inputs, prompt="paper_merge", n=merge_n)
        best = b.scored_best(op_id, merged)
        fixes = b.add(f"{op_id}_fix", "generate", (best,), prompt="improve",
                      n=final_fix_n if final else fix_n)
        return b.scored_best(f"{op_id}_fix", fixes, best)

    top = _merge_tree(level, 2, merge) if parts > 1 else level[0]
    b.add("ground_truth", "ground_truth", (top,))
    return b.graph()


def _merge_tree(level: list[str], arity: int, merge: Callable[[str, tuple[str, ...], bool], str]) -> str:
    """Merge `level` `arity` at a time, level by level; an odd one out waits for the next level."""
    depth = 0
    while len(level) > 1:
        depth += 1
        groups = [tuple(level[i : i + arity]) for i in range(0, len(level), arity)]
        final = len(groups) == 1
        level = [
            group[0] if len(group) == 1 else merge(f"merge_{depth}_{number}", group, final)
            for number, group in enumerate(groups, start=1)
        ]
    return level[0]


def _positive(**values: int) -> None:
    for name, value in values.items():
        if value < 1:
            raise GraphError(f"{name} must be at least 1, got {value}")


@dataclass(frozen=True)
class SchemeInfo:
    builder: Callable[..., Graph]
    summary: str


SCHEMES: dict[str, SchemeInfo] = {
    "io": SchemeInfo(io, "one request for the whole answer"),
    "cot": SchemeInfo(cot, "one chain-of-thought request"),
    "cot_sc": SchemeInfo(cot_sc, "k chain-of-thought answers, best kept"),
    "tot": SchemeInfo(tot, "tree of thoughts: k = 20 answers per level, best kept"),
    "tot2": SchemeInfo(tot2, "tree of thoughts: k = 10, more levels"),
    "got": SchemeInfo(got, "the spec's adaptive Graph-of-Thoughts pattern"),
    "got_paper": SchemeInfo(got_paper, "the paper's fixed Graph-of-Thoughts configuration"),
}

# Per task: input size -> paper configuration (tot levels, tot2 levels, got_paper parts),
# as in the reference implementation's examples.
PAPER_CONFIG: dict[str, dict[int, dict[str, dict[str, int]]]] = {
    "sorting": {
        32: {"tot": {"levels": 2}, "tot2": {"levels": 3}, "got_paper": {"parts": 2}},
        64: {"tot": {"levels": 4}, "tot2": {"levels": 7}, "got_paper": {"parts": 4}},
        128: {"tot": {"levels": 4}, "tot2": {"levels": 10}, "got_paper": {"parts": 8}},
    },
}


def paper_options(name: str, task: str, size: int) -> dict[str, int]:
    """The paper's options for `name` on `task` at `size` (nearest configured size)."""
    table = PAPER_CONFIG.get(task)
    if not table:
        return {}
    nearest = min(table, key=lambda s: (abs(s - size), s))
    options = dict(table[nearest].get(name, {}))
    if name == "got_paper" and "parts" in options and size not in table:
        options["parts"] = max(1, min(size, round(size / 16)))
    return options


def build(name: str, task: str = "sorting", size: int = 32, parts: int | None = None,
          **options: int) -> Graph:
    """The graph of scheme `name` for `task` at input `size` (the paper's configuration)."""
    if name not in SCHEMES:
        raise UnknownNameError(f"unknown scheme {name!r} (known: {', '.join(SCHEMES)})")
    if size < 1:
        raise GraphError(f"size must be at least 1, got {size}")
    settings = paper_options(name, task, size) | options
    if name == "got":
        settings.setdefault("parts", parts or max(1, -(-size // 8)))
    elif name == "got_paper" and parts is not None:
        settings["parts"] = parts
    elif name == "got_paper":
        settings.setdefault("parts", max(1, min(size, round(size / 16))))
    if "parts" in settings and settings["parts"] > size:
        raise GraphError(f"parts ({settings['parts']}) cannot exceed the input size ({size})")
    return SCHEMES[name].builder(**settings)
