"""The simulated model on set-intersection prompts.

Slips on an intersection: lose a common number, list one twice, or add a stray number that is
in only one of the sets (merges, which see no sets, only lose or repeat numbers); the profile's
mix says how often each, and a stray can land in an empty intersection too.
"""

from __future__ import annotations

import random
import re

from thoughtgraph.sim.jobs import Job, Slips, is_cot
from thoughtgraph.sim.sorting import ints, render_shown, render_split
from thoughtgraph.tasks.intlists import show_ints

_SET = re.compile(r"Set ([12])\s*:\s*\[([^\]]*)\]")


def read(prompt: str, found: dict[str, str]) -> Job | None:
    if "part" in found:
        return _intersect("part", found["part"])
    if "a" in found and "b" in found:
        appended = ints(found["a"]) + ints(found["b"])
        merged = list(dict.fromkeys(appended))
        if "task" not in found:  # the paper's merge: append b to a, as asked
            merged = appended
        return _job("merge", merged, [], reads=len(appended))
    if "result" in found:
        return _job("refine", apply_fixes(ints(found["result"]), found.get("errors", "")), [])
    if "input" not in found:
        return None
    if "parts" in found:
        sets = _sets(found["input"])
        if sets is None:
            return None
        second = sets[1]

        def write_split(slips: Slips, rng: random.Random, _error: float) -> str:
            return render_split(_slip(second, slips, [], rng), int(found["parts"]))

        return Job("set-intersection", "split", len(second), write_split)
    kind = "fix" if "incorrect" in found else "cot" if is_cot(prompt) else "solve"
    return _intersect(kind, found["input"])


def _sets(text: str) -> tuple[list[int], list[int]] | None:
    found = dict(_SET.findall(text))
    if "1" not in found or "2" not in found:
        return None
    return ints(found["1"]), ints(found["2"])


def _intersect(kind: str, text: str) -> Job | None:
    sets = _sets(text)
    if sets is None:
        return None
    first, second = sets
    held = set(first)  # once, not once per number of the second set
    common = [x for x in second if x in held]
    strays = sorted(set(first) ^ set(second))
    return _job(kind, common, strays, steps=kind == "cot", reads=len(first) + len(second))


def _job(
    kind: str, truth: list[int], strays: list[int], steps: bool = False, reads: int | None = None
) -> Job:
    def right() -> str:
        """The right answer as written: made once, for the answers without a slip (most)."""
        if not written:
            written.append(show_ints(truth))
        return written[0]

    written: list[str] = []

    def write(slips: Slips, rng: random.Random, _error: float) -> str:
        # no slip draws nothing: the answer is the right one (_slip's copy of it)
        body = show_ints(_slip(truth, slips, strays, rng)) if slips.count else right()
        if steps:
            return f"I checked every number of Set 2 against Set 1.\nOutput: {body}"
        return render_shown(body, rng)

    return Job("set-intersection", kind, len(truth), write, reads)


def _slip(items: list[int], slips: Slips, strays: list[int], rng: random.Random) -> list[int]:
    out = list(items)
    for _ in range(slips.count):
        moves = ["drop", "duplicate"] + (["stray"] if strays else [])
        move = slips.mix.pick(rng, moves)
        if move == "stray":
            out.insert(rng.randrange(len(out) + 1), rng.choice(strays))
        elif out and move == "drop":
            out.pop(rng.randrange(len(out)))
        elif out and move == "duplicate":
            i = rng.randrange(len(out))
            out.insert(rng.randrange(len(out) + 1), out[i])
    return out


def apply_fixes(items: list[int], errors: str) -> list[int]:
    """Act on the scorer's errors: add what is missing, remove strays, list repeats once."""
    fixed = list(items)
    for clause in errors.split(";"):
        clause = clause.strip()
        if match := re.fullmatch(r"missing (-?\d+) \(it is in both sets\)", clause):
            fixed.append(int(match.group(1)))
        elif match := re.fullmatch(r"(-?\d+) is not in .*: remove it", clause):
            fixed = [x for x in fixed if x != int(match.group(1))]
        elif match := re.fullmatch(r"(-?\d+) is listed \w+ times: list it once", clause):
            value = int(match.group(1))
            first = fixed.index(value) if value in fixed else -1
            fixed = [x for i, x in enumerate(fixed) if x != value or i == first]
    return fixed
