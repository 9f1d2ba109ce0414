"""Fit the simulated model's real-model profiles to the Tree of Problems release, call by call.

    python scripts/fit_profiles.py PATH/TO/tree-of-problems            # write the two profiles
    python scripts/fit_profiles.py PATH/TO/tree-of-problems --check    # compare with the shipped
    python scripts/fit_profiles.py PATH/TO/tree-of-problems --table    # the release's figures
    python scripts/fit_profiles.py --compare [--figure F.png]          # shipped, real vs sim

PATH is a local clone of github.com/ArmelRandy/tree-of-problems (Apache-2.0): the Tree of
Problems authors (Zebaze, Sagot, Bawden; EMNLP 2024) released every reply of their runs under
`reasoning/`, among them gpt-3.5-turbo and Llama-3-70B-Instruct (AWQ, vLLM, T = 0) on the GoT
paper's sorting, set-intersection and keyword-counting sets. Nothing is downloaded. The script
writes `src/thoughtgraph/sim/profiles/{llama-3-70b,gpt-3.5-turbo}.json`: small derived tables
(rates of slips per call, and the release's own per-call figures for the test that checks the
fit), never a reply. It needs thoughtgraph (its country list, the sim to replay calls on) and
takes about 40 s; `--compare` needs no release (the figures are in the profiles).

What is read. `reasoning/paper/<model>/<task>/<task>_cot_3_shot_seed_122_<breadth>_<depth>[_0]/`
holds `answer_<k>.jsonl` (one line per node of level k: its input and the stored reply),
`divide_<k>.jsonl` and `parent_<k>.jsonl` (the tree). Level `depth` was answered with ToP's
solve prompt (a leaf, or the whole problem when depth is 0), every other level with its merge
prompt, whose inputs were the children's replies as ToP's `top/got/merge.py` cut them (done
again here: `shown_input`). `reasoning/llama-3-70b-instruct-awq/` is a copy of the `paper/` one
and is skipped. Identical prompts recur across runs (T = 0): every figure here counts each
distinct prompt once (its first reply), so a tree that repeats another does not weigh twice.

How a reply is read (`read_reply`): after the last `Output:` / `Merged list:` / `Combined
Output:` the first list (object for keywords) is the answer; with no marker the reply must be
nothing but the list (sets: a line of lists, taken together) or the object; anything else is
unread and left out (6 Llama keyword merges that ask for the second dictionary). Allowances seen
in the release: `{3, 11}` and "none" for sets, a leading comma `[, 14]`, `{"None"}` as `{}`.

Per call: a merge is scored against the right merge of what its prompt showed (sorted(a + b),
the multiset a + b, the key-wise sum), not against the node's truth: a profile is a law of one
call, and a child's slip is the child's. Error points are thoughtgraph's measures, split by kind:
sorting lost / repeated / stray / inversions; sets missing / extra / duplicates; keywords
missed / extra / miscounted. They become the sim's slip kinds (`SLIPS`): sorting drop /
duplicate / stray / misplace; sets drop / duplicate / stray; keywords undercount / over (the
miscounted points by sign), forget (one per missed country) and invent (the extra points).

The law of a job kind is a table (`sim/laws.py`): at the mean length of each job size the
release covers, the mean slips of each kind per call. Lengths are the sim's: numbers written
(sorting), numbers read in both sets (set intersection: the real errors follow the size of the
sets, not of the intersection), country mentions (keywords). Three refinements, in order:
1. where the length of a call varies within a size (passages, merges), each point is scaled
   until that size's own calls average to its figure (the law is convex: its value at the mean
   length is less than its mean over the lengths);
2. the sizes are replayed on the sim (`sim/replay.py`, 1,000 calls, other seeds than the
   test's) and each point scaled by real / simulated mean error, four rounds: what a slip costs
   is the sim's to say (a drop and a repeat of one digit cancel; a forgotten country costs its
   count);
3. beyond the largest size a law grows as between its last two sizes when both rest on at least
   10 error points, else as the default profile's law of that kind (a power between sizes of one
   or two errors is noise: GPT-3.5's merges into 16 have one in 200).
A law with one size only (GPT-3.5's leaves of 8 numbers, 16x16 sets, 1/16 passages, its 4-list
set merges) is that size's point, and elsewhere the other model's law on the same prompt, as it
is: not scaled by the ratio at the one size, which the ToP authors' re-run of the GoT code
bears out (gpt-3.5-turbo on the same sorting prompt solved 1 list of 32 in 100; Llama's law
says 1-2, the law scaled to GPT-3.5's leaves of 8 about 5).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from thoughtgraph.sim.laws import PowerLaw, last_growth, table_rate
from thoughtgraph.sim.profiles import Profile, RealFigures, load_profile, read_profile, shipped
from thoughtgraph.sim.replay import Replayed, replay, sorting_kinds
from thoughtgraph.tasks.countries import count_countries

SOURCE = {
    "release": "Tree of Problems (Zebaze, Sagot, Bawden, EMNLP 2024): reasoning/paper/",
    "url": "https://github.com/ArmelRandy/tree-of-problems",
    "paper": "Zebaze, Sagot, Bawden: Tree of Problems, EMNLP 2024 (arXiv:2410.06634)",
    "licence": "Apache-2.0",
    "derived": "slip rates and per-call figures computed from the released replies, no reply",
    "script": "scripts/fit_profiles.py",
}
SHIPPED_FROM = "96254876983a37944c99e04a074c91bd32cb1eb4"  # the release commit of the shipped fit
MODELS = {  # release folder -> (profile name, what ran)
    "llama-3-70b-instruct-awq": (
        "llama-3-70b",
        "Llama-3-70B-Instruct (casperhansen/llama-3-70b-instruct-awq on vLLM, T = 0)",
    ),
    "gpt-3.5-turbo": ("gpt-3.5-turbo", "gpt-3.5-turbo (OpenAI chat API, T = 0, mid-2024)"),
}
TASKS = {  # release folder -> thoughtgraph task
    "sorting": "sorting",
    "set_intersection": "set-intersection",
    "keyword_counting": "keyword-counting",
}
RUN = re.compile(r"^(?P<task>[a-z_]+)_cot_3_shot_seed_122_(?P<breadth>\d+)_(?P<depth>\d+)(?:_0)?$")
MARKERS = ("Output:", "Merged list:", "Combined Output:")

# The prompts the replies answered: ToP's templates (top/got/prompts/), not thoughtgraph's.
PROMPTS = {
    ("sorting", "solve"): "cot/sorting.txt: terse, 'Output only the sorted list' (3 examples)",
    ("sorting", "merge"): "merge/sorting.txt: step by step, counts each number, 'Merged list:'",
    ("set-intersection", "solve"): "cot/set_intersection.txt: terse, 'Output only the set'",
    ("set-intersection", "merge"): "merge/set_intersection(_4).txt: terse, append the lists",
    ("keyword-counting", "solve"): "cot/keyword_counting.txt: paragraphs, sublists, 'Output:'",
    ("keyword-counting", "merge"): "merge/keyword_counting.txt: step by step, 'Combined Output:'",
}
# The error kinds of each task (thoughtgraph's measure, split) and the sim's slips they become.
KINDS = {
    "sorting": ("lost", "repeated", "stray", "inversions"),
    "set-intersection": ("missing", "extra", "duplicates"),
    "keyword-counting": ("missed", "extra", "miscounted"),
}
SLIPS = {
    "sorting": ("drop", "duplicate", "stray", "misplace"),
    "set-intersection": ("drop", "duplicate", "stray"),
    "keyword-counting": ("undercount", "over", "forget", "invent"),
}
# The sim's job kind a fitted law stands for, and the kinds that take it as it is.
FITTED_KIND = {"sorting": "solve", "set-intersection": "solve", "keyword-counting": "cot"}
SAME_AS = {
    "sorting": {"cot": "solve", "fix": "solve", "part": "solve"},
    "set-intersection": {"cot": "solve", "fix": "solve", "part": "solve"},
    "keyword-counting": {"solve": "cot", "fix": "cot", "part": "cot"},
}
MEASURE = {"sorting": "output", "set-intersection": "input", "keyword-counting": "output"}


# ---------------------------------------------------------------- reading a reply ----------
_LIST = re.compile(r"\[([^\[\]]*)\]")
_LISTS = r"\[[^\[\]]*\](?:\s*,\s*\[[^\[\]]*\])*"
_INT = re.compile(r"[+-]?\d+")
_NONE = re.compile(r"(?i)\bnone\b|no intersection|no common")

Answer = list[int] | dict[str, int]


def _ints(body: str) -> list[int] | None:
    body = body.strip().removeprefix(",").strip()  # "[, 14]": an empty list appended
    if not body:
        return []
    parts = [p.strip() for p in body.split(",")]
    return [int(p) for p in parts] if all(_INT.fullmatch(p) for p in parts) else None


def _joined(lists: str) -> list[int] | None:
    out: list[int] = []
    for body in _LIST.findall(lists):
        values = _ints(body)
        if values is None:
            return None
        out += values
    return out


def _after_marker(text: str) -> str | None:
    ends = [text.rfind(m) + len(m) for m in MARKERS if m in text]
    return text[max(ends) :] if ends else None


def _first_object(text: str) -> str | None:
    start, depth = text.find("{"), 0
    if start < 0:
        return None
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start : i + 1]
    return None  # cut off


def _parse_object(src: str) -> dict[str, int] | None:
    if re.fullmatch(r"\{\s*[\"']?None[\"']?\s*\}", src):  # {"None"}: no country named
        return {}
    try:
        data = json.loads(src)
    except ValueError:
        try:
            data = ast.literal_eval(src)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            pairs = re.findall(r"[\"']([^\"']+)[\"']\s*:\s*([+-]?\d+)", src)
            data = dict(pairs) if pairs or re.fullmatch(r"\{\s*\}", src) else None
    if not isinstance(data, dict):
        return None
    out: dict[str, int] = {}
    for key, value in data.items():
        if isinstance(value, str) and _INT.fullmatch(value.strip()):
            value = int(value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            return None
        out[str(key).strip()] = value
    return out


def _read_list(region: str, sets: bool, bare: bool) -> list[int] | None:
    region = region.strip()
    if sets:
        region = re.sub(r"\{([-\d,\s]*)\}", r"[\1]", region)
    if bare:
        if sets:
            return _joined(region) if re.fullmatch(_LISTS, region) else None
        match = re.fullmatch(r"\[([^\[\]]*)\]\.?", region)
        return _ints(match.group(1)) if match else None
    match = _LIST.search(region)
    if match is None:
        return [] if sets and _NONE.search(region.split("\n")[0]) else None
    if sets:  # "[..], [..]" on the answer line: taken together
        line = region[match.start() :].split("\n")[0].strip()
        lists = re.match(_LISTS, line)
        return _joined(lists.group(0)) if lists else None
    return _ints(match.group(1))


def read_reply(text: str, task: str) -> Answer | None:
    """The answer of one reply, or None when it cannot be read (see the module's docstring)."""
    after = _after_marker(text)
    if task == "keyword-counting":
        if after is not None:
            obj = _first_object(after)
            return _parse_object(obj) if obj else None
        whole = text.strip()
        return _parse_object(whole) if whole and _first_object(whole) == whole else None
    sets = task == "set-intersection"
    if after is not None:
        return _read_list(after, sets, bare=False)
    return _read_list(text, sets, bare=True)


def shown_input(reply: str, task: str) -> str:
    """A child's reply as ToP's top/got/merge.py put it into its parent's merge prompt."""
    cut = reply.strip()
    for trigger in MARKERS:
        if trigger in cut:
            cut = cut[cut.find(trigger) + len(trigger) :].strip()
    cut = cut.split("\n\n")[0].strip()
    if task != "keyword-counting":
        cut = cut.split("\n")[0].strip()
    if task == "set-intersection":
        if "none" in cut.lower() or "no intersection" in cut.lower():
            cut = "[]"
        if cut.startswith("[,"):
            cut = f"[{cut[2:].strip()}"
    return cut


def read_shown(cut: str, task: str) -> Answer | None:
    """A merge input as the prompt showed it, read leniently (its first list or object)."""
    if task == "keyword-counting":
        if cut.strip() in ("", "{}"):
            return {}
        obj = _first_object(cut)
        return _parse_object(obj) if obj else None
    return _read_list(cut, task == "set-intersection", bare=False)


# ---------------------------------------------------------------- scoring one call ----------
def set_kinds(reference: Counter[int], reply: list[int]) -> dict[str, int]:
    """Against a multiset (a solve's intersection has each value once; a merge's a + b may not)."""
    have = Counter(reply)
    return {
        "missing": sum(max(0, n - have[v]) for v, n in reference.items()),
        "extra": sum(1 for v in have if v not in reference),
        "duplicates": sum(
            n - 1 if v not in reference else max(0, n - reference[v]) for v, n in have.items()
        ),
    }


def keyword_kinds(truth: dict[str, int], reply: dict[str, int]) -> dict[str, int]:
    both = [c for c, n in truth.items() if n and reply.get(c, 0)]
    return {
        "missed": sum(n for c, n in truth.items() if n and not reply.get(c, 0)),
        "extra": sum(abs(n) for c, n in reply.items() if not truth.get(c, 0)),
        "miscounted": sum(abs(reply[c] - truth[c]) for c in both),
        # the sim's slips of the same errors
        "_under": sum(max(0, truth[c] - reply[c]) for c in both),
        "_over": sum(max(0, reply[c] - truth[c]) for c in both),
        "_forgotten": sum(1 for c, n in truth.items() if n and not reply.get(c, 0)),
    }


def slips_of(task: str, kinds: dict[str, int]) -> dict[str, int]:
    """The sim's slips that make these errors (one slip one point, but a forgotten country)."""
    if task == "sorting":
        return dict(zip(SLIPS[task], (kinds[k] for k in KINDS[task]), strict=True))
    if task == "set-intersection":
        return {"drop": kinds["missing"], "duplicate": kinds["duplicates"], "stray": kinds["extra"]}
    return {
        "undercount": kinds["_under"],
        "over": kinds["_over"],
        "forget": kinds["_forgotten"],
        "invent": kinds["extra"],
    }


# ---------------------------------------------------------------- the release's calls ------
@dataclass
class Call:
    """One distinct prompt of the release: the job, its size and lengths, and what went wrong."""

    model: str
    task: str
    job: str  # whole, leaf, merge
    size: str  # the job size as the docs name it (16, into 32, 32x16, 1/16 text, ...)
    length: int  # the sim's output length: numbers written, mentions counted
    reads: int  # the sim's input length: numbers read (both sets for a set solve)
    shape: str  # what the test rebuilds a like call from
    kinds: dict[str, int] | None  # error points by kind; None when unread or no reference
    slips: dict[str, int] | None

    @property
    def error(self) -> int:
        return sum(self.kinds[k] for k in KINDS[self.task]) if self.kinds else 0

    def measure(self, which: str) -> int:
        return self.length if which == "output" else self.reads


def _jsonl(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _numbers(text: str) -> list[int]:
    return [int(x) for x in text.strip().strip("[]").split(",") if x.strip()]


def _size(task: str, job: str, sentence: str, level: int, inputs: int) -> str:
    if task == "sorting":
        n = len(_numbers(sentence))
        return f"into {n}" if job == "merge" else str(n)
    if task == "set-intersection":
        a, b = (_numbers(s) for s in sentence.split(" + "))
        shape = f"{len(a)}x{len(b)}"
        return f"{inputs} lists into {shape}" if job == "merge" else shape
    part = "whole text" if level == 0 else f"1/{2**level} text"
    if job == "merge":
        return f"into {part}" + (" (1 input)" if inputs == 1 else "")
    return part


def runs(root: Path) -> Iterator[tuple[str, str, Path, int]]:
    """(model folder, task, run folder, depth) of every GoT-task run of the two models."""
    for folder in MODELS:
        for release_task, task in TASKS.items():
            base = root / "reasoning" / "paper" / folder / release_task
            for run in sorted(base.iterdir()) if base.is_dir() else []:
                match = RUN.match(run.name)
                if match and match["task"] == release_task:
                    yield folder, task, run, int(match["depth"])


def calls(root: Path) -> list[Call]:
    """Every distinct prompt of the release, with its first reply read and scored per call."""
    seen: set[tuple[str, str, str, str]] = set()
    out: list[Call] = []
    for folder, task, run, depth in runs(root):
        levels = [_jsonl(run / f"answer_{k}.jsonl") for k in range(depth + 1)]
        parents: list[dict[int, int]] = [{}]
        for k in range(1, depth + 1):
            tree = json.loads((run / f"parent_{k}.jsonl").read_text(encoding="utf-8"))
            parents.append({int(child): int(parent) for child, parent in tree.items()})
        for level, answers in enumerate(levels):
            for index, line in enumerate(answers):
                job = ("whole" if depth == 0 else "leaf") if level == depth else "merge"
                kids = (
                    sorted(c for c, p in parents[level + 1].items() if p == index)
                    if (job == "merge")
                    else []
                )
                shown = [shown_input(levels[level + 1][c]["output"], task) for c in kids]
                prompt = "\x00".join(shown) if job == "merge" else line["sentence"]
                size = _size(task, job, line["sentence"], level, len(kids))
                key = (folder, task, size, prompt)
                if key in seen:
                    continue
                seen.add(key)
                out.append(_call(MODELS[folder][0], task, job, size, line, shown))
    return out


def _call(
    model: str, task: str, job: str, size: str, line: dict[str, str], shown: list[str]
) -> Call:
    reply = read_reply(line["output"], task)
    inputs = [read_shown(s, task) for s in shown]
    sentence = line["sentence"]
    kinds: dict[str, int] | None = None
    if task == "sorting":
        if job == "merge":
            lists = [x for x in inputs if isinstance(x, list)]
            reference = sorted(x for xs in lists for x in xs) if len(lists) == len(inputs) else None
            shape = str(sum(len(x) for x in lists))
        else:
            reference = sorted(_numbers(sentence))
            shape = str(len(reference))
        length = reads = len(reference) if reference is not None else 0
        if reference is not None and isinstance(reply, list):
            kinds = sorting_kinds(reference, reply)
    elif task == "set-intersection":
        if job == "merge":
            lists = [x for x in inputs if isinstance(x, list)]
            ok = len(lists) == len(inputs)
            multiset = Counter(x for xs in lists for x in xs) if ok else None
            length = reads = sum(len(x) for x in lists)
            shape = str(length)
        else:
            a, b = (_numbers(s) for s in sentence.split(" + "))
            multiset = Counter(set(a) & set(b))
            length, reads = len(multiset), len(a) + len(b)
            shape = f"{len(a)} {len(b)} {length}"
        if multiset is not None and isinstance(reply, list):
            kinds = set_kinds(multiset, reply)
    else:
        truth: dict[str, int] | None
        if job == "merge":
            dicts = [x for x in inputs if isinstance(x, dict)]
            truth = None
            if len(dicts) == len(inputs):
                truth = {}
                for d in dicts:
                    for country, n in d.items():
                        truth[country] = truth.get(country, 0) + n
        else:
            truth = count_countries(sentence)
        length = reads = sum(truth.values()) if truth else 0
        shape = " ".join(str(n) for n in sorted((truth or {}).values(), reverse=True) if n)
        if truth is not None and isinstance(reply, dict):
            kinds = keyword_kinds(truth, reply)
    slips = slips_of(task, kinds) if kinds is not None else None
    return Call(model, task, job, size, length, reads, shape, kinds, slips)


# ---------------------------------------------------------------- figures per job size -----
@dataclass
class Group:
    """The calls of one (model, task, job, size): the release's per-call figures."""

    model: str
    task: str
    job: str
    size: str
    calls: list[Call] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return "merge" if self.job == "merge" else FITTED_KIND[self.task]

    @property
    def scored(self) -> list[Call]:
        return [c for c in self.calls if c.kinds is not None]

    def p_exact(self) -> float:
        return sum(c.error == 0 for c in self.scored) / len(self.scored)

    def mean_error(self) -> float:
        return sum(c.error for c in self.scored) / len(self.scored)

    def points(self) -> dict[str, int]:
        return {k: sum(c.kinds[k] for c in self.scored if c.kinds) for k in KINDS[self.task]}

    def slips(self) -> dict[str, float]:
        n = len(self.scored)
        return {s: sum(c.slips[s] for c in self.scored if c.slips) / n for s in SLIPS[self.task]}

    def mean_measure(self) -> float:
        which = MEASURE[self.task]
        return sum(c.measure(which) for c in self.scored) / len(self.scored)

    def row(self) -> dict[str, object]:
        """The release's figures of this size, as the profile keeps them (and the test reads)."""
        return {
            "job": self.job,
            "size": self.size,
            "kind": self.kind,
            "calls": len(self.scored),
            "unread": sum(c.kinds is None for c in self.calls),
            "p_exact": round(self.p_exact(), 4),
            "mean_error": round(self.mean_error(), 4),
            "points": self.points(),
            "shapes": dict(sorted(Counter(c.shape for c in self.scored).items())),
        }


def _order(group: Group) -> tuple[int, int, float]:
    return (list(TASKS.values()).index(group.task), group.job == "merge", group.mean_measure())


def groups(every: list[Call]) -> list[Group]:
    by: dict[tuple[str, str, str, str], Group] = {}
    for call in every:
        key = (call.model, call.task, call.job, call.size)
        by.setdefault(key, Group(*key)).calls.append(call)
    return sorted(by.values(), key=_order)


# ---------------------------------------------------------------- the fit -------------------
Points = list[tuple[float, dict[str, float]]]
ROUNDS, REPLAYED, FIRST_SEED = 4, 1000, 1000  # replay rounds, calls a size, their seeds
ENOUGH = 20  # error points a replayed size needs before its ratio is trusted
GROWTH_ERRORS = 10  # real error points each of the last two sizes needs for its own growth


@dataclass
class Fit:
    """A law being fitted: its table, and the sizes each point answers for (`borrowed`: its
    other points are the other model's)."""

    task: str
    kind: str
    points: Points
    members: list[list[Group]]
    note: str
    borrowed: bool = False
    growth: float | None = None

    def scale(self, i: int, factor: float) -> None:
        x, slips = self.points[i]
        self.points[i] = (x, {s: v * factor for s, v in slips.items()})

    def law(self) -> dict[str, object]:
        law: dict[str, object] = {
            "measure": MEASURE[self.task],
            "points": {
                str(_number(x)): {s: round(v, 5) for s, v in r.items() if round(v, 5)}
                for x, r in self.points
            },
        }
        if self.growth is not None:
            law["growth"] = round(self.growth, 3)
        return {**law, "fitted": self.note}

    def settle_growth(self) -> None:
        """The power beyond the last size: the table's own between its last two sizes when both
        rest on enough errors, else the base profile's for this kind (a power between two
        sizes of one or two errors each is noise: GPT-3.5's merges into 16 have one in 200)."""
        last = [sum(sum(g.points().values()) for g in gs) for gs in self.members[-2:]]
        if len(last) == 2 and min(last) >= GROWTH_ERRORS:
            xs = [x for x, _ in self.points]
            self.growth = last_growth(xs, [sum(r.values()) for _, r in self.points])
            self.note += f"; beyond {_number(xs[-1])}: its own growth"
        else:
            base = shipped("gpt-3.5-paper").law(self.task, self.kind)
            assert isinstance(base, PowerLaw)
            self.growth = base.g
            self.note += "; beyond the largest size: the growth of gpt-3.5-paper's law"


def _number(x: float) -> float | int:
    return int(x) if float(x).is_integer() else round(x, 1)


def _mean_rate(points: Points, lengths: list[int]) -> float:
    return sum(table_rate(points, n) for n in lengths) / len(lengths)


def fit_points(sizes: list[Group], note: str) -> Fit:
    """One point per size at its mean length; refined so each size's own calls average right
    (the law is convex: its value at the mean length is less than its mean)."""
    task, which = sizes[0].task, MEASURE[sizes[0].task]
    merged: dict[float, list[Group]] = defaultdict(list)
    for g in sizes:  # two sizes of one length (2- and 4-list merges into 16x16): one point
        merged[round(g.mean_measure(), 1)].append(g)
    members = [merged[x] for x in sorted(merged)]
    points: Points = []
    for x, gs in zip(sorted(merged), members, strict=True):
        calls = [c for g in gs for c in g.scored]
        points.append(
            (x, {s: sum(c.slips[s] for c in calls if c.slips) / len(calls) for s in SLIPS[task]})
        )
    targets = [sum(r.values()) for _, r in points]
    lengths = [[c.measure(which) for g in gs for c in g.scored] for gs in members]
    fit = Fit(task, sizes[0].kind, points, members, note)
    for _ in range(200):  # a fixed point: each size's calls average to its figure
        off = [
            (i, t / _mean_rate(points, n))
            for i, (t, n) in enumerate(zip(targets, lengths, strict=True))
            if t > 0
        ]
        off = [(i, f) for i, f in off if abs(f - 1) > 1e-4]
        for i, factor in off:
            fit.scale(i, factor)
        if not off:
            break
    return fit


def borrowed(own: Fit, other: Fit, other_name: str) -> Fit:
    """A one-size law: this size's own point, and at the other lengths the other model's law on
    the same prompt as it is (the module's docstring says why not scaled)."""
    (group,) = own.members[0]
    x = own.points[0][0]
    if not any(sum(r.values()) > 0 for _, r in other.points):
        own.growth = 0.0
        own.note += "; one size: the same rate at every length"
        return own
    nearest = min(range(len(other.points)), key=lambda i: abs(other.points[i][0] - x))
    points = [p for i, p in enumerate(other.points) if i != nearest]
    points = sorted([*points, own.points[0]], key=lambda p: p[0])
    members = [[group] if px == x else [] for px, _ in points]
    note = own.note + f"; the other lengths: {other_name}'s law on the same prompt"
    return Fit(own.task, own.kind, points, members, note, borrowed=True, growth=other.growth)


def calibrate(
    fits: dict[str, list[Fit]], docs: dict[str, dict[str, object]], borrowed: bool
) -> None:
    """Replay each size on the sim and scale its point by real / simulated mean error, a few
    rounds: what a slip costs is the sim's to say (a drop and a repeat of one value cancel, a
    forgotten country costs its count), not the release's. `borrowed`: those laws only."""
    for round_ in range(ROUNDS):
        for name, laws in fits.items():
            profile = read_profile(_document(docs[name], laws), name)
            for fit in (f for f in laws if f.borrowed == borrowed):
                for i, sizes in enumerate(fit.members):
                    if not sizes:
                        continue
                    rows = [_figures(profile, g) for g in sizes]
                    runs = [replay(profile, r, REPLAYED, FIRST_SEED + round_) for r in rows]
                    real = sum(r.mean_error * r.calls for r in rows) / sum(r.calls for r in rows)
                    sim = sum(x.mean_error for x in runs) / len(runs)
                    if real > 0 and sim * REPLAYED * len(runs) >= ENOUGH:
                        fit.scale(i, real / sim)


def _figures(profile: Profile, group: Group) -> RealFigures:
    (row,) = (
        r for r in profile.real if (r.task, r.job, r.size) == (group.task, group.job, group.size)
    )
    return row


def _document(doc: dict[str, object], laws: list[Fit]) -> dict[str, object]:
    tasks: dict[str, dict[str, object]] = {}
    for fit in laws:
        tasks.setdefault(fit.task, {})[fit.kind] = fit.law()
    for task, same in SAME_AS.items():
        for kind, target in same.items():
            tasks[task][kind] = {"same_as": target}
    return {**doc, "tasks": {t: {"laws": tasks[t]} for t in TASKS.values()}}


def release_commit(release: Path) -> str:
    """The clone's commit (git, when the folder is a clone), else the one the shipped fit used."""
    if not (release / ".git").exists():
        return SHIPPED_FROM
    try:
        done = subprocess.run(
            ["git", "-C", str(release), "rev-parse", "HEAD"], capture_output=True, text=True
        )
    except OSError:
        return SHIPPED_FROM
    return done.stdout.strip() if done.returncode == 0 else SHIPPED_FROM


def profiles(every: list[Call], commit: str = SHIPPED_FROM) -> dict[str, dict[str, object]]:
    """Profile name -> the document to write."""
    by_model: dict[str, list[Group]] = defaultdict(list)
    for g in groups(every):
        by_model[g.model].append(g)

    def fit(model: str, task: str, kind: str) -> Fit:
        sizes = [g for g in by_model[model] if g.task == task and g.kind == kind]
        return fit_points(sizes, "per call on the release: " + ", ".join(g.size for g in sizes))

    names = [name for name, _ in MODELS.values()]
    fits: dict[str, list[Fit]] = {}
    docs: dict[str, dict[str, object]] = {}
    for folder, (model, what) in MODELS.items():
        fits[model] = [
            fit(model, task, kind)
            for task in TASKS.values()
            for kind in (FITTED_KIND[task], "merge")
        ]
        prompts = {f"{t} {k}": p for (t, k), p in PROMPTS.items()}
        docs[model] = {
            "name": model,
            "about": f"{what} on ToP's prompts, fitted call by call",
            "notice": NOTICE,
            "base": "gpt-3.5-paper",
            "source": {
                **SOURCE,
                "commit": commit,
                "folder": f"reasoning/paper/{folder}/",
                "prompts": prompts,
            },
            "tasks": {},
            "real": {
                task: [g.row() for g in by_model[model] if g.task == task]
                for task in TASKS.values()
            },
        }
    # first the laws of many sizes, then the one-size laws borrow the other model's (calibrated)
    calibrate(fits, docs, borrowed=False)
    for laws in fits.values():
        for f in laws:
            if not _one_size(f):
                f.settle_growth()
    for model, laws in fits.items():
        (other,) = (n for n in names if n != model)
        for i, f in enumerate(laws):
            if _one_size(f):
                theirs = next(t for t in fits[other] if (t.task, t.kind) == (f.task, f.kind))
                laws[i] = borrowed(f, theirs, other)
    calibrate(fits, docs, borrowed=True)
    return {name: _document(doc, fits[name]) for name, doc in docs.items()}


def _one_size(fit: Fit) -> bool:
    return len(fit.points) == 1 and len(fit.members[0]) == 1


NOTICE = (
    "Derived from the Tree of Problems release (github.com/ArmelRandy/tree-of-problems, "
    "Apache-2.0, copyright its authors): slip rates and per-call figures computed from its "
    "released replies; no reply is included. Written by scripts/fit_profiles.py from a local copy "
    "of the release: refit it rather than edit it. Laws it does not give (refine, split, document "
    "merging) are its base's. `real` holds the release's per-call figures, which "
    "tests/test_sim_profiles.py holds the simulated calls to."
)


def render(value: object, indent: int = 0) -> str:
    """JSON with one line per flat mapping (a point of a law, a size's error points)."""
    pad, inner = "  " * indent, "  " * (indent + 1)
    if isinstance(value, dict) and value:
        if all(not isinstance(v, dict | list) for v in value.values()):
            return json.dumps(value, ensure_ascii=False)
        items = [f"{inner}{json.dumps(k)}: {render(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and value:
        items = [inner + render(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------- the table ---------------
def table(every: list[Call]) -> str:
    lines = [
        "| model | task | job | size | kind | calls | unread | P(exact) | mean error | points |",
        "|---|---|---|---|---|---:|---:|---:|---:|---|",
    ]
    for g in groups(every):
        kinds = ", ".join(f"{k} {n}" for k, n in g.points().items() if n) or "–"
        unread = sum(c.kinds is None for c in g.calls)
        lines.append(
            f"| {g.model} | {g.task} | {g.job} | {g.size} | {g.kind} | {len(g.scored)} | {unread} "
            f"| {100 * g.p_exact():.1f}% | {g.mean_error():.3f} | {kinds} |"
        )
    return "\n".join(lines)


COMPARED = 2000  # simulated calls a size in the docs' table (the test replays 400)


def _mix(points: Mapping[str, int]) -> str:
    total = sum(points.values())
    return (
        ", ".join(f"{k} {100 * n / total:.0f}%" for k, n in points.items() if n) if total else "–"
    )


def compare(figure: Path | None) -> str:
    """The shipped profiles replayed on their release's calls: real next to simulated."""
    lines = [
        "| profile | task | job | size | calls | P(exact) real / sim | mean error real / sim "
        "| error kinds, real | error kinds, sim |",
        "|---|---|---|---|---:|---:|---:|---|---|",
    ]
    dots = []
    for name, _ in MODELS.values():
        for real in load_profile(name).real:
            sim = replay(name, real, COMPARED)
            dots.append((name, real, sim))
            lines.append(
                f"| {name} | {real.task} | {real.job} | {real.size} | {real.calls} "
                f"| {100 * real.p_exact:.1f}% / {100 * sim.p_exact:.1f}% "
                f"| {real.mean_error:.3f} / {sim.mean_error:.3f} "
                f"| {_mix(real.points)} | {_mix(sim.points)} |"
            )
    if figure is not None:
        _draw(dots, figure)
    return "\n".join(lines)


def _draw(dots: list[tuple[str, RealFigures, Replayed]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from thoughtgraph.evaluation.figures import lay_out

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.6))
    colours = {"llama-3-70b": "tab:blue", "gpt-3.5-turbo": "tab:orange"}
    marks = {"sorting": "o", "set-intersection": "s", "keyword-counting": "^"}
    for name, real, sim in dots:
        style = {"color": colours[name], "marker": marks[real.task], "alpha": 0.8}
        left.scatter(100 * real.p_exact, 100 * sim.p_exact, **style)
        right.scatter(max(real.mean_error, 1e-3), max(sim.mean_error, 1e-3), **style)
    left.plot([0, 100], [0, 100], color="grey", lw=0.8)
    left.set(xlabel="real P(exact) %", ylabel="simulated P(exact) %", title="P(exact) of one call")
    right.plot([1e-3, 20], [1e-3, 20], color="grey", lw=0.8)
    right.fill_between([1e-3, 20], [0.7e-3, 14], [1.3e-3, 26], color="grey", alpha=0.15, lw=0)
    right.set(xscale="log", yscale="log", xlabel="real mean error", ylabel="simulated mean error")
    right.set_title("mean error of one call (band: ±30%; 0 drawn at 0.001)")
    handles = [
        plt.Line2D([], [], ls="", marker="o", color=c, label=n) for n, c in colours.items()
    ] + [plt.Line2D([], [], ls="", marker=m, color="grey", label=t) for t, m in marks.items()]
    right.legend(handles=handles, loc="upper left", fontsize=8)
    fig.suptitle("sim profiles fitted to the Tree of Problems release, per job size (simulated)")
    lay_out(fig)  # laid out once: tight_layout's placeholder engine would draw it again to save
    fig.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "release", type=Path, nargs="?", help="a local clone of ArmelRandy/tree-of-problems"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent.parent
        / "src"
        / "thoughtgraph"
        / "sim"
        / "profiles",
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--check", action="store_true", help="compare with the files in --out")
    what.add_argument("--table", action="store_true", help="print the per-call figures")
    what.add_argument(
        "--compare",
        action="store_true",
        help="the shipped profiles replayed next to their release's figures (no release needed)",
    )
    parser.add_argument("--figure", type=Path, help="with --compare: also draw it (PNG)")
    args = parser.parse_args()
    if args.compare:
        print(compare(args.figure))
        return 0
    if args.release is None or not (args.release / "reasoning" / "paper").is_dir():
        print(
            f"error: {args.release}/reasoning/paper not found (a clone of the release?)",
            file=sys.stderr,
        )
        return 2
    every = calls(args.release)
    if args.table:
        print(table(every))
        return 0
    drift = 0
    for name, doc in profiles(every, release_commit(args.release)).items():
        path = args.out / f"{name}.json"
        text = render(doc) + "\n"
        if args.check:
            same = path.exists() and path.read_text(encoding="utf-8") == text
            drift += not same
            print(f"{path}: {'as fitted' if same else 'differs from the fit'}")
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    return 1 if drift else 0


if __name__ == "__main__":
    sys.exit(main())
