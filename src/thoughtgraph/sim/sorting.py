"""The simulated model on sorting prompts: the spec's Part/Merge/Refine and the paper-style ones.

Slips on a list: drop an item, write one twice, put one a few places from where it belongs, or
write a number the input does not hold (the profile's mix says how often each).
"""

from __future__ import annotations

import bisect
import json
import random
import re
from collections.abc import Callable
from typing import Any, TypeVar

from thoughtgraph.sim.jobs import Job, Slips, is_cot
from thoughtgraph.tasks.intlists import show_ints

SECTION = re.compile(
    r"<(task|part|a|b|result|errors|input|incorrectly_sorted|parts)>"
    r"((?:(?>[^<]+)|<(?!\1>))*?)</\1>",
    re.DOTALL,
)  # the innermost <tag>...</tag> (instructions may name a tag before the tagged data); runs
# of text without '<' are taken whole (atomic), not tested char by char: 8,192-number prompts
_INTS = re.compile(r"-?\d+")
# a list as prompts write it (digits, minus signs, commas and spaces in one pair of brackets):
# the JSON decoder reads it four times faster than the scan, and reads it the same (`ints`)
_PLAIN_LIST = re.compile(r"\[[0-9, \-]*\]")
# the JSON decoder's own scanner (C), without `loads`'s checks around it: (value, end at)
_DECODE: Callable[[str, int], tuple[Any, int]] = vars(json.JSONDecoder())["scan_once"]
_COUNT_WORDS = {
    w: i
    for i, w in enumerate(
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    )
}
_MOVES, _REACH = ("drop", "duplicate", "misplace"), 8
# the job kind of each prompt kind, for the error law
_LAW_KIND = {
    "part": "part",
    "merge": "merge",
    "refine": "refine",
    "improve": "fix",
    "split": "split",
    "sort": "solve",
    "cot": "cot",
    "direct": "solve",
}


def read(prompt: str, _sections: dict[str, str]) -> Job | None:
    found = {name: body for name, body in SECTION.findall(prompt)}
    kind = prompt_kind(found)
    if kind == "sort" and is_cot(prompt):
        kind = "cot"
    truth = sort_answer(kind, found, prompt)
    if truth is None:
        return None

    def right() -> str:
        """The right answer as written: made once, for the answers without a slip (most)."""
        if not written:
            split = kind == "split"
            written.append(render_split(truth, int(found["parts"])) if split else show_ints(truth))
        return written[0]

    written: list[str] = []

    def write(slips: Slips, rng: random.Random, _error: float) -> str:
        if slips.count:
            items = slip_list(truth, slips, rng, stray=strays_for(truth))
            if kind == "split":
                return render_split(items, int(found["parts"]))
            body = show_ints(items)
        else:  # no slip draws nothing: the answer is the right one (slip_list's copy of it)
            items, body = truth, right()
            if kind == "split":
                return body
        if kind == "cot":
            return (
                f"Sorting the two halves and merging them gives {len(items)} numbers.\n"
                f"Output: {body}"
            )
        return render_shown(body, rng)

    return Job("sorting", _LAW_KIND[kind], len(truth), write)


def prompt_kind(sections: dict[str, str]) -> str:
    """Which job the prompt asks for, read from its tagged sections."""
    if "part" in sections:
        return "part"
    if "a" in sections and "b" in sections:
        return "merge"
    if "result" in sections:
        return "refine"
    if "incorrectly_sorted" in sections and "input" in sections:
        return "improve"
    if "parts" in sections and "input" in sections:
        return "split"
    if "input" in sections:
        return "sort"
    return "direct"


def ints(text: str) -> list[int]:
    """Every whole number in the text, in order (`-?\\d+`). A list as prompts write it is read
    by the JSON decoder: inside the brackets only digits, minus signs, commas and spaces, so what
    it decodes is a flat list of whole numbers, the same ones the scan finds (it fails on what
    JSON does not write, "[1-2]", "[01]", and the scan reads those)."""
    if _PLAIN_LIST.fullmatch(text):
        try:
            values: list[int] = _DECODE(text, 0)[0]
            return values
        except (ValueError, StopIteration):  # StopIteration: nothing JSON at the index
            pass
    return list(map(int, _INTS.findall(text)))  # map: no Python frame per number


def sort_answer(kind: str, sections: dict[str, str], prompt: str) -> list[int] | None:
    """What a careful model would answer to a sorting prompt of this kind."""
    if kind == "part":
        return sorted(ints(sections["part"]))
    if kind == "merge":
        return sorted(ints(sections["a"]) + ints(sections["b"]))
    if kind == "refine":
        return sorted(apply_fixes(ints(sections["result"]), sections.get("errors", "")))
    if kind in ("improve", "sort", "cot"):
        return sorted(ints(sections["input"]))
    if kind == "split":
        return ints(sections["input"])  # the split keeps the order
    lists = re.findall(r"\[([-\d,\s]+)\]", prompt)
    return sorted(ints(lists[-1])) if lists else None


def apply_fixes(items: list[int], errors: str) -> list[int]:
    """Act on 'missing one 7' and 'two extra 3s'; order errors are fixed by sorting."""
    fixed = list(items)
    for clause in errors.split(";"):
        clause = clause.strip()
        match = re.fullmatch(r"missing (\w+) (-?\d+)s?", clause)
        if match:
            fixed.extend([int(match.group(2))] * _count(match.group(1)))
            continue
        match = re.fullmatch(r"(\w+) extra (-?\d+)s?", clause)
        if match:
            for _ in range(_count(match.group(1))):
                if int(match.group(2)) in fixed:
                    fixed.remove(int(match.group(2)))
    return fixed


def _count(word: str) -> int:
    return _COUNT_WORDS.get(word, int(word) if word.isdigit() else 1)


Item = TypeVar("Item")


Stray = Callable[[list[Item], random.Random], tuple[int, Item]]


def slip_list(
    items: list[Item], slips: Slips, rng: random.Random, stray: Stray[Item] | None = None
) -> list[Item]:
    """The slips, each at a random place, of the kind the mix draws: drop an item, write one
    twice, put one a few places away from where it belongs, or (given `stray`: where and what)
    write one the input does not hold."""
    out = list(items)
    moves = _MOVES if stray is None else (*_MOVES, "stray")
    for _ in range(slips.count):
        if not out:
            break
        i = rng.randrange(len(out))
        move = slips.mix.pick(rng, moves)
        if move == "drop":
            out.pop(i)
        elif move == "duplicate":
            out.insert(i, out[i])
        elif move == "misplace":
            item = out.pop(i)
            j = i + rng.choice((-1, 1)) * rng.randint(1, _REACH)
            out.insert(min(len(out), max(0, j)), item)
        elif move == "stray" and stray is not None:
            at, value = stray(out, rng)
            out.insert(at, value)
    return out


def strays_for(truth: list[int]) -> Stray[int]:
    """A number near the input's that it does not hold, where it belongs in a sorted list (so a
    stray is a count slip, not also an order one)."""

    def stray(out: list[int], rng: random.Random) -> tuple[int, int]:
        # worked out here, at a slip: most answers make none, and a merge's truth is long
        held = set(truth)
        low, high = min(truth, default=0), max(truth, default=0)
        value = rng.choice([v for v in range(low - 3, high + 4) if v not in held])
        return bisect.bisect(out, value), value

    return stray


def render_split(items: list[int], parts: int) -> str:
    size, extra = divmod(len(items), parts)
    chunks, start = {}, 0
    for index in range(parts):
        end = start + size + (1 if index < extra else 0)
        chunks[f"List {index + 1}"] = items[start:end]
        start = end
    return json.dumps(chunks)


def render_list(items: list[int], rng: random.Random) -> str:
    """A list as models write it: mostly bare, sometimes after `Output:` or in a code fence."""
    return render_shown(show_ints(items), rng)


def render_shown(body: str, rng: random.Random) -> str:
    """`render_list` of a list already written (`show_ints`)."""
    style = rng.random()
    if style < 0.8:
        return body
    if style < 0.9:
        return f"Output: {body}"
    return f"Here is the result:\n```\n{body}\n```"
