"""Prompting schemes as graph builders: each returns a plain `Graph`, built before any call.

- `io`, `cot`: one answer to the whole problem (the task's `io` / `cot` prompt).
- `cot_sc(k)`: k chain-of-thought answers in one request, the best kept.
- `tot(k, levels)`: k answers, the best kept, then `levels - 1` times k fixes of the best, the
  best of those and the previous best kept (the paper's ToT; `tot2` is the narrower, deeper one).
- `got`: the spec's adaptive Graph-of-Thoughts pattern (code split, Part with regenerations,
  pairwise Merge with extra merges, Refine kept only if better).
- `got_adaptive`: the same pattern whose parts split again when they fail: a part still wrong
  after its regenerations is cut in code into `fanout` pieces, solved and merged back, kept
  only if better, to `depth` levels (`engine/growth.py`); its worst case is known beforehand.
- `got_paper`: the paper's fixed GoT configuration (model split; sort with Repeat 5 + keep best;
  merge with Repeat 10 + keep best; fix with Repeat 5, or 10 for the final merge, + keep best).
  Its params cover the other tasks' configurations too: no fixes (set intersection), merges
  validated and improved (keyword counting), one part whose best answers are merged together and
  a model scorer (document merging).
- `top(b, d)`: Tree of Problems (Zebaze et al. 2024), the literature's divide and conquer: the
  problem cut in code into `b` pieces, each cut again, `d` levels deep; every leaf answered once,
  the answers merged `b` at a time up the tree with the task's `paper_merge`; no retries and no
  choice by score.

Every builder scores in code by default; `score_samples=k` scores with the task's model scorer
instead (k samples per thought, higher is better, no ground-truth op: document merging).

`build(name, task, size)` picks the paper's configuration for a task and input size.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from thoughtgraph.errors import GraphError, UnknownNameError, shown
from thoughtgraph.io.bounds import MAX_ITEMS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

    from thoughtgraph.engine.graph import Graph, Op
    from thoughtgraph.tasks.base import BaseTask

TaskRef: TypeAlias = "str | BaseTask[Any, Any]"
"""A task as the schemes take it: its name (a built-in, or one this process loaded), or itself."""


class _Builder:
    """Accumulates ops; `add` returns the new op's id so graphs read top to bottom.

    `score_samples` > 0 makes every score op the task's model scorer (that many samples per
    thought, re-scoring the code score every thought gets) and every keep_best prefer higher.
    """

    def __init__(self, score_samples: int = 0) -> None:
        if score_samples < 0:
            raise GraphError(f"score_samples must be 0 or more, got {score_samples}")
        from thoughtgraph.engine.graph import (  # loaded on first build: listing needs no pydantic
            Graph,
            built_op,
        )

        self._op, self._graph = built_op, Graph
        self.ops: list[Op] = []
        self.score_samples = score_samples

    def add(self, op_id: str, kind: str, inputs: tuple[str, ...] = (), **params: object) -> str:
        self.ops.append(self._op(op_id, kind, inputs, params))
        return op_id

    def score(self, op_id: str, source: str) -> str:
        if self.score_samples:
            return self.add(
                op_id, "score", (source,), scorer="model", samples=self.score_samples, force=True
            )
        return self.add(op_id, "score", (source,))

    def scored_best(self, prefix: str, source: str, *also: str, n: int = 1) -> str:
        """score `source`, then keep the best of it and of `also`."""
        score = self.score(f"{prefix}_score", source)
        if self.score_samples:
            return self.add(
                f"{prefix}_best", "keep_best", (score, *also), n=n, higher_is_better=True
            )
        return self.add(f"{prefix}_best", "keep_best", (score, *also), n=n)

    def finish(self, last: str) -> Graph:
        """Record whether the answer equals the reference, when the score is a code check."""
        if not self.score_samples:
            self.add("ground_truth", "ground_truth", (last,))
        return self._graph(ops=tuple(self.ops))

    def graph(self) -> Graph:
        return self._graph(ops=tuple(self.ops))


def io(score_samples: int = 0) -> Graph:
    """Input-output: one request for the whole answer."""
    b = _Builder(score_samples)
    answer = b.add("answer", "generate", prompt="io")
    return b.finish(b.score("score", answer))


def cot(score_samples: int = 0) -> Graph:
    """Chain of thought: one request, the task's step-by-step prompt."""
    b = _Builder(score_samples)
    answer = b.add("answer", "generate", prompt="cot")
    return b.finish(b.score("score", answer))


def cot_sc(k: int = 5, score_samples: int = 0) -> Graph:
    """Self-consistency over chains of thought: k answers in one request, the best kept."""
    _positive(k=k)
    b = _Builder(score_samples)
    answers = b.add("answers", "generate", prompt="cot", n=k)
    return b.finish(b.scored_best("answers", answers))


def tot(k: int = 20, levels: int = 2, prompt: str = "io", score_samples: int = 0) -> Graph:
    """Tree of thoughts: k answers (`prompt`), keep the best; then levels-1 rounds of k fixes of
    the best (the task's `improve` prompt), each time keeping the best of the fixes and the
    previous best."""
    _positive(k=k, levels=levels)
    b = _Builder(score_samples)
    answers = b.add("level_1", "generate", prompt=prompt, n=k)
    best = b.scored_best("level_1", answers)
    for level in range(2, levels + 1):
        fixes = b.add(f"level_{level}", "generate", (best,), prompt="improve", n=k)
        best = b.scored_best(f"level_{level}", fixes, best)
    return b.finish(best)


def tot2(levels: int = 3, k: int = 10, prompt: str = "io", score_samples: int = 0) -> Graph:
    """The paper's second ToT variant: a narrower (k = 10), deeper tree."""
    return tot(k=k, levels=levels, prompt=prompt, score_samples=score_samples)


def got(
    parts: int = 4,
    arity: int = 2,
    max_regenerations: int = 2,
    max_extra_merges: int = 1,
    max_refines: int = 2,
) -> Graph:
    """The spec's pattern: split → parts × (select → part) → merge tree of `arity` → refine."""
    return _spec_pattern(parts, arity, max_regenerations, max_extra_merges, max_refines)


def got_adaptive(
    parts: int = 4,
    arity: int = 2,
    max_regenerations: int = 2,
    max_extra_merges: int = 1,
    max_refines: int = 2,
    fanout: int = 2,
    depth: int = 2,
    min_items: int = 2,
) -> Graph:
    """The spec's pattern with parts that split again when they fail: a part whose best answer
    still has errors after its regenerations is cut in code into `fanout` pieces, each solved
    as a part (and grown again, to `depth` levels, never into pieces under `min_items`), merged
    back as the graph merges (`arity`, `max_extra_merges`) and kept only if it scores better."""
    _positive(fanout=fanout, depth=depth, min_items=min_items)
    if fanout < 2:
        raise GraphError(f"fanout must be at least 2, got {fanout}")
    grow = {
        "fanout": fanout,
        "depth": depth,
        "min_items": min_items,
        "arity": arity,
        "merge_prompt": "merge",
        "max_extra_merges": max_extra_merges,
    }
    return _spec_pattern(parts, arity, max_regenerations, max_extra_merges, max_refines, grow)


def _spec_pattern(
    parts: int,
    arity: int,
    max_regenerations: int,
    max_extra_merges: int,
    max_refines: int,
    grow: dict[str, Any] | None = None,
) -> Graph:
    """split → parts × (select → part, growing when `grow`) → merge tree of `arity` → refine."""
    _positive(parts=parts)
    if arity < 2:
        raise GraphError(f"arity must be at least 2, got {arity}")
    growth = {} if grow is None else {"grow": grow}
    b = _Builder()
    b.add("split", "split", parts=parts)
    level = []
    for i in range(1, parts + 1):
        b.add(f"select_{i}", "select", ("split",), index=i - 1)
        level.append(
            b.add(
                f"part_{i}",
                "generate",
                (f"select_{i}",),
                prompt="part",
                max_regenerations=max_regenerations,
                **growth,
            )
        )

    def merge(op_id: str, inputs: tuple[str, ...], _final: bool) -> str:
        return b.add(op_id, "aggregate", inputs, prompt="merge", max_extra_merges=max_extra_merges)

    top = _merge_tree(level, arity, merge)
    b.add("refine", "refine", (top,), prompt="refine", max_refines=max_refines)
    return b.graph()


def got_paper(
    parts: int = 2,
    sort_n: int = 5,
    merge_n: int = 10,
    fix_n: int = 5,
    final_fix_n: int = 10,
    part_prompt: str = "io",
    split_by: str = "model",
    keep: int = 1,
    improve_tries: int = 0,
    score_samples: int = 0,
) -> Graph:
    """The paper's GoT configuration (the reference implementation's counts).

    Sorting: model split into `parts`; each part answered `sort_n` times (`part_prompt`), best
    kept; pairwise merges answered `merge_n` times, best kept, then fixed `fix_n` times
    (`final_fix_n` for the last merge) with the unfixed merge kept if no fix beats it.
    Other tasks: `fix_n = final_fix_n = 0` skips the fixes (set intersection); `improve_tries`
    validates every merge answer and improves it while invalid (keyword counting);
    `split_by="code"` splits in code, and with one part no split op is made; with one part,
    its `keep` best answers are merged together (document merging).
    """
    _positive(parts=parts, sort_n=sort_n, merge_n=merge_n, keep=keep)
    for name, value in (
        ("fix_n", fix_n),
        ("final_fix_n", final_fix_n),
        ("improve_tries", improve_tries),
    ):
        if value < 0:
            raise GraphError(f"{name} must be 0 or more, got {value}")
    if split_by not in ("model", "code"):
        raise GraphError(f"split_by must be 'model' or 'code', got {shown(split_by)}")
    b = _Builder(score_samples)
    level = []
    if parts == 1 and split_by == "code":
        answers = b.add("part_1", "generate", prompt=part_prompt, n=sort_n)
        level.append(b.scored_best("part_1", answers, n=keep))
    else:
        b.add("split", "split", parts=parts, by=split_by)
        for i in range(1, parts + 1):
            b.add(f"select_{i}", "select", ("split",), index=i - 1)
            answers = b.add(f"part_{i}", "generate", (f"select_{i}",), prompt=part_prompt, n=sort_n)
            level.append(b.scored_best(f"part_{i}", answers, n=keep if parts == 1 else 1))

    def merge(op_id: str, inputs: tuple[str, ...], final: bool) -> str:
        merged = b.add(op_id, "aggregate", inputs, prompt="paper_merge", n=merge_n)
        if improve_tries:
            merged = b.add(
                f"{op_id}_improve",
                "validate_and_improve",
                (merged,),
                prompt="improve_merge",
                tries=improve_tries,
            )
        alternatives = inputs if len(inputs) == 1 else ()  # merged alternatives compete on
        best = b.scored_best(op_id, merged, *alternatives)
        fixes_n = final_fix_n if final else fix_n
        if not fixes_n:
            return best
        fixes = b.add(f"{op_id}_fix", "generate", (best,), prompt="improve", n=fixes_n)
        return b.scored_best(f"{op_id}_fix", fixes, best)

    if parts > 1:
        top = _merge_tree(level, 2, merge)
    elif keep > 1:
        top = merge("merge_1_1", (level[0],), True)
    else:
        top = level[0]
    return b.finish(top)


def top(
    b: int = 2, d: int = 2, prompt: str = "io", pairwise: bool = False, score_samples: int = 0
) -> Graph:
    """Tree of Problems (Zebaze et al. 2024): cut the problem in code into `b` sub-problems and
    each of those again, `d` levels deep (`b**d` leaves); answer every leaf once (`prompt`, the
    task's `io` or `cot`); merge the answers `b` at a time up the tree (the task's
    `paper_merge`), one request a merge. No retries, no regeneration, no choice by score: the
    final answer is scored only to be measured.

    `pairwise`: the merge prompt takes two results (`result_a`, `result_b`), so a node of
    `b` > 2 children is merged by `b - 1` pairwise merges (a balanced tree of them) instead of
    one merge of all `b` (`settings_for` reads this off the task's prompt).
    """
    if b < 2:
        raise GraphError(f"b must be at least 2, got {b}")
    _positive(d=d)
    if _leaves(b, d) > MAX_SIZE:
        raise GraphError(f"b**d must be at most {MAX_SIZE:,} leaves, got {b}**{d}")
    builder = _Builder(score_samples)

    def node(path: tuple[int, ...], source: str) -> str:
        """The answer op of the sub-problem at `path` (1-based child numbers from the root)."""
        if len(path) == d:
            return builder.add(f"part{_path(path)}", "generate", (source,), prompt=prompt)
        split = builder.add(f"split{_path(path)}", "split", (source,) if path else (), parts=b)
        children = []
        for i in range(1, b + 1):
            child = (*path, i)
            builder.add(f"select{_path(child)}", "select", (split,), index=i - 1)
            children.append(node(child, f"select{_path(child)}"))
        return _top_merge(builder, path, children, pairwise)

    return builder.finish(builder.score("score", node((), "")))


def _top_merge(
    builder: _Builder, path: tuple[int, ...], children: list[str], pairwise: bool
) -> str:
    """One node's merge: one request of all its children, or pairwise merges of them."""
    name = f"merge{_path(path)}"
    if not pairwise or len(children) == 2:
        return builder.add(name, "aggregate", tuple(children), prompt="paper_merge")
    count = 0

    def pair(op_id: str, inputs: tuple[str, ...], final: bool) -> str:
        nonlocal count
        count += 1
        step = name if final else f"{name}_p{count}"
        return builder.add(step, "aggregate", inputs, prompt="paper_merge")

    return _merge_tree(children, 2, pair)


def _path(path: tuple[int, ...]) -> str:
    """`(1, 2)` -> `_1_2`: the ids of the tree's nodes (the root's is empty)."""
    return "".join(f"_{i}" for i in path)


def _leaves(b: int, d: int) -> int:
    """`b**d`, stopping once it passes `MAX_SIZE` (a huge `d` is refused, not computed)."""
    leaves = 1
    for _ in range(d):
        leaves *= b
        if leaves > MAX_SIZE:
            return MAX_SIZE + 1
    return leaves


def top_requests(b: int, d: int, pairwise: bool = False) -> int:
    """The requests a `top` graph sends (a model-scored one: one more): `b**d` leaves and the
    merges, `(b**d - 1) / (b - 1)` of all the children, or `b**d - 1` when pairwise. It has no
    retries, so this is its worst case as well as its count."""
    leaves = _leaves(b, d)
    return leaves + (leaves - 1 if pairwise else (leaves - 1) // (b - 1))


def _merge_tree(
    level: list[str], arity: int, merge: Callable[[str, tuple[str, ...], bool], str]
) -> str:
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
    "top": SchemeInfo(top, "Tree of Problems: b pieces, d levels deep, merged b at a time"),
    "got_adaptive": SchemeInfo(
        got_adaptive, "the spec's pattern with parts that split again when they fail"
    ),
}

_NO_FIX = {"fix_n": 0, "final_fix_n": 0}
_KEYWORD_GOT = {
    "parts": 4,
    "sort_n": 10,
    "part_prompt": "cot",
    "merge_n": 3,
    **_NO_FIX,
    "improve_tries": 3,
}  # GoT4; parts=8 gives GoT8, parts=size (one sentence each) GoTx
_MODEL_SCORED = {"score_samples": 3}

# Per task: input size -> paper configuration, as in the reference implementation's examples.
# A task with one size has one configuration for every input size (its size is only a label).
PAPER_CONFIG: dict[str, dict[int, dict[str, dict[str, Any]]]] = {
    "sorting": {
        32: {"tot": {"levels": 2}, "tot2": {"levels": 3}, "got_paper": {"parts": 2}},
        64: {"tot": {"levels": 4}, "tot2": {"levels": 7}, "got_paper": {"parts": 4}},
        128: {"tot": {"levels": 4}, "tot2": {"levels": 10}, "got_paper": {"parts": 8}},
    },
    "set-intersection": {
        32: {"tot": {"levels": 2}, "tot2": {"levels": 3}, "got_paper": {"parts": 2, **_NO_FIX}},
        64: {"tot": {"levels": 4}, "tot2": {"levels": 7}, "got_paper": {"parts": 4, **_NO_FIX}},
        128: {
            "tot": {"k": 25, "levels": 4},
            "tot2": {"levels": 9},
            "got_paper": {"parts": 8, "merge_n": 5, **_NO_FIX},
        },
    },
    "keyword-counting": {
        16: {
            "tot": {"levels": 4, "prompt": "cot"},
            "tot2": {"levels": 6, "prompt": "cot"},
            "got_paper": _KEYWORD_GOT,
            "top": {"prompt": "cot"},  # ToP's leaves on this task: chains of thought
        },
    },
    "doc-merge": {
        4: {
            "io": _MODEL_SCORED,
            "cot": _MODEL_SCORED,
            "cot_sc": _MODEL_SCORED,
            "tot": {"k": 10, "levels": 3, **_MODEL_SCORED},
            "tot2": {"k": 5, "levels": 6, **_MODEL_SCORED},  # ours: the paper has no ToT2 here
            "top": _MODEL_SCORED,
            "got_paper": {
                "parts": 1,
                "split_by": "code",
                "sort_n": 5,
                "keep": 3,
                "merge_n": 5,
                "fix_n": 10,
                "final_fix_n": 10,
                **_MODEL_SCORED,
            },
        },
    },
}


def paper_options(name: str, task: TaskRef, size: int) -> dict[str, Any]:
    """The paper's options for `name` on `task` at `size` (nearest configured size).

    Where the paper scales GoT with the size (sorting, set intersection: 16 items a part), a size
    it did not run gets `round(size / 16)` parts; parts never exceed the size. A task that is
    not built in takes its own `paper_config`; its `got_paper` splits in code, into `got`'s
    parts, unless the task reads a model's split (`ModelSplit`) or its configuration says.
    """
    key = task if isinstance(task, str) else task.name
    found = None if key in PAPER_CONFIG else _task_of(task)
    table = PAPER_CONFIG.get(key) or (None if found is None else found.paper_config)
    options: dict[str, Any] = {}
    if table:
        nearest = min(table, key=lambda s: (abs(s - size), s))
        options = dict(table[nearest].get(name, {}))
        if name == "got_paper" and "parts" in options and size not in table and len(table) > 1:
            options["parts"] = round(size / 16)
    if name == "got_paper" and found is not None and _splits_in_code(found, options):
        options["split_by"] = "code"
        options.setdefault("parts", -(-size // found.part_size))
    if name == "got_paper" and "parts" in options:
        options["parts"] = max(1, min(size, int(options["parts"])))
    return options


SPEC_PATTERNS = ("got", "got_adaptive")
"""The schemes built on the spec's pattern: parts of the task's `part_size` by default, and the
spec's caps (regenerations, extra merges, refines) as `solve`'s options."""

MAX_SIZE = MAX_ITEMS  # beyond this a graph takes minutes (and gigabytes) just to build


def _task_of(task: TaskRef) -> BaseTask[Any, Any] | None:
    """The task object of a task that is not built in: itself, or the one this process loaded
    under that name (a task file, an import string, a plugin); None when unknown here."""
    from thoughtgraph.tasks.loading import loaded

    return loaded(task) if isinstance(task, str) else task


def _splits_in_code(task: BaseTask[Any, Any], options: dict[str, Any]) -> bool:
    """Does `got_paper` split this task in code: its configuration does not choose (a task
    file's says code) and the task reads no model's split?"""
    from thoughtgraph.tasks.base import ModelSplit

    return "split_by" not in options and not isinstance(task, ModelSplit)


def _part_size(task: TaskRef) -> int:
    """Items per part for a task (its `part_size`; 8 when unknown): `top`'s leaves."""
    from thoughtgraph.tasks import TASKS, BaseTask

    found = TASKS.get(task if isinstance(task, str) else task.name) or _task_of(task)
    return BaseTask.part_size if found is None else found.part_size


def _default_parts(task: TaskRef, size: int) -> int:
    """The parts of the spec's `got` for a task at `size`: the task's own default
    (`tasks.base.parts_at`: its `part_count`, else parts of its `part_size`; 8 items a part
    when the task is unknown here), as `solve` takes it."""
    from thoughtgraph.tasks import TASKS
    from thoughtgraph.tasks.base import parts_at

    found = TASKS.get(task if isinstance(task, str) else task.name) or _task_of(task)
    return parts_at(found, size)


def build(
    name: str,
    task: TaskRef = "sorting",
    size: int = 32,
    parts: int | None = None,
    **options: object,
) -> Graph:
    """The graph of scheme `name` for `task` (a name, or the task object) at input `size` (the
    paper's configuration, or the task's own)."""
    settings = settings_for(name, task, size, parts, **options)  # an unknown name: one line
    builder = SCHEMES[name].builder
    key = _built_key(builder, settings)
    graph = None if key is None else _BUILT.get(key)
    if graph is None:
        graph = builder(**settings)
        if key is not None and len(graph.ops) <= _MOST_OPS_KEPT:
            with _BUILT_LOCK:  # runs in threads build too (Jupyter's helper, a user's pool)
                if len(_BUILT) >= _MOST_KEPT:
                    _BUILT.pop(next(iter(_BUILT)))  # the oldest
                _BUILT[key] = graph
    return graph


# Built graphs by (builder, settings): a builder is a function of its keywords alone and a Graph
# is frozen, so an evaluation's samples of one size share one graph instead of building (and
# validating) the same ops again for every sample. Bounded: the graphs of at most 64 shapes,
# none above 5,000 ops (a bigger graph's build is small beside its run, and its memory is not).
_BUILT: dict[tuple[object, ...], Graph] = {}
_BUILT_LOCK = threading.Lock()
_MOST_KEPT = 64
_MOST_OPS_KEPT = 5_000


def _built_key(
    builder: Callable[..., Graph], settings: dict[str, Any]
) -> tuple[object, ...] | None:
    """The cache key of a build: the builder and each setting with its type (1, 1.0 and True
    are equal keys but not equal settings); None when a setting is unhashable."""
    try:
        key = (builder, *((k, type(v), v) for k, v in sorted(settings.items())))
        hash(key)
    except TypeError:
        return None
    return key


def settings_for(
    name: str,
    task: TaskRef = "sorting",
    size: int = 32,
    parts: int | None = None,
    **options: object,
) -> dict[str, Any]:
    """The keywords `build` calls the builder of `name` with: the paper's configuration for
    `task` at `size` (or the task's own), `options` over it, the parts worked out (the
    builder's defaults for the rest, `keywords`)."""
    if name not in SCHEMES:
        raise UnknownNameError(f"unknown scheme {shown(name)} (known: {', '.join(SCHEMES)})")
    if size < 1:
        raise GraphError(f"size must be at least 1, got {size}")
    settings = paper_options(name, task, size) | options
    if parts is not None and parts < 1:
        raise GraphError(f"parts must be at least 1, got {parts}")
    if size > MAX_SIZE:
        raise GraphError(f"size must be at most {MAX_SIZE:,}, got {size:,}")
    if name in SPEC_PATTERNS:
        settings.setdefault("parts", parts or _default_parts(task, size))
    elif name == "got_paper" and parts is not None:
        settings["parts"] = parts
    elif name == "got_paper":
        settings.setdefault("parts", max(1, min(size, round(size / 16))))
    if "parts" in settings and settings["parts"] > size:
        raise GraphError(f"parts ({settings['parts']}) cannot exceed the input size ({size})")
    if name == "top":
        settings = _top_settings(task, size, settings)
    return settings


def _top_settings(task: TaskRef, size: int, settings: dict[str, Any]) -> dict[str, Any]:
    """`top`'s keywords at `size`: `b` 2 unless given; `d` unless given the least depth whose
    leaves hold at most the task's part size (`got`'s parts), never so deep that a leaf would
    be empty; `pairwise` when `b` > 2 and the task's merge prompt takes two results. One line
    for a tree with more leaves than the problem has items."""
    b, d = settings.get("b", 2), settings.get("d")
    if b < 2:
        raise GraphError(f"b must be at least 2, got {b}")
    if d is None:
        d = top_depth(b, _part_size(task), size)
    if d < 1:
        raise GraphError(f"d must be at least 1, got {d}")
    leaves = _leaves(b, d)
    if leaves > size:
        shown_leaves = f"{leaves:,}" if leaves <= MAX_SIZE else f"more than {MAX_SIZE:,}"
        raise GraphError(
            f"b={b}, d={d} cuts the problem into {shown_leaves} leaves, but it has {size} "
            f"item{'s' if size != 1 else ''}: b**d must be at most the input size"
        )
    return {**settings, "b": b, "d": d, "pairwise": b > 2 and _merges_two(task)}


def top_depth(b: int, leaf_size: int, size: int) -> int:
    """The least depth whose `b**d` leaves hold at most `leaf_size` items of `size`, never so
    deep that a leaf would be empty (at least 1): bare `top`'s depth, and `tune`'s."""
    d = 1
    while _leaves(b, d) * leaf_size < size and _leaves(b, d + 1) <= size:
        d += 1
    return d


def _merges_two(task: TaskRef) -> bool:
    """Does the task's `paper_merge` prompt take two results only (`result_a`, `result_b`, no
    `results`)? Sorting's, set intersection's and keyword counting's do."""
    from thoughtgraph.tasks import TASKS
    from thoughtgraph.tasks.base import own_prompts
    from thoughtgraph.tasks.prompts import BASELINES

    found = TASKS.get(task if isinstance(task, str) else task.name) or _task_of(task)
    template = {**BASELINES, **own_prompts(found)}["paper_merge"]
    return "results" not in template.variables


def keywords(name: str, settings: dict[str, Any]) -> dict[str, Any]:
    """Every keyword of the builder of `name` as a graph built with `settings` has it: its
    defaults under `settings` (what a run's record says its row was built with)."""
    import inspect

    defaults = {
        key: p.default
        for key, p in inspect.signature(SCHEMES[name].builder).parameters.items()
        if p.default is not inspect.Parameter.empty
    }
    return defaults | settings
