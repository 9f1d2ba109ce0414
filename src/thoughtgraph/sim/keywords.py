"""The simulated model on keyword-counting prompts.

Slips on a count dictionary: count a country once too few (`under`: a country named once is
then left out; `undercount`: only one named twice or more, so it stays in) or once too often,
forget a country, or name one the text does not; the profile's mix says how often each. Slips
on a split: drop a sentence or copy one twice. The length of a count is the number of mentions
it stands for; of a split, its sentences.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

from thoughtgraph.sim.jobs import Job, Slips, is_cot
from thoughtgraph.tasks.base import ParseError
from thoughtgraph.tasks.countries import COUNTRIES, count_countries
from thoughtgraph.tasks.keywords import parse_counts, split_sentences

_MOVES = ("under", "over", "forget", "invent")
_WITH_UNDERCOUNT = (*_MOVES, "undercount")


def read(prompt: str, found: dict[str, str]) -> Job | None:
    if "part" in found:
        return _count("part", found["part"])
    if "a" in found and "b" in found:
        a, b = _dict(found["a"]), _dict(found["b"])
        if a is None or b is None:
            return None
        total = dict(a)
        for country, n in b.items():
            total[country] = total.get(country, 0) + n
        return _job("merge", total)
    if "result" in found:
        current = _dict(found["result"])
        if current is None:
            return None
        return _job("refine", apply_fixes(current, found.get("errors", "")))
    if "input" not in found:
        return None
    text = found["input"].strip()
    if "parts" in found:
        return _split(text, int(found["parts"]))
    fixing = "incorrect" in found or "merged" in found
    return _count("fix" if fixing else "cot" if is_cot(prompt) else "solve", text)


def _dict(text: str) -> dict[str, int] | None:
    try:
        return parse_counts(text)
    except ParseError:
        return None


def _count(kind: str, text: str) -> Job:
    return _job(kind, count_countries(text))


def _job(kind: str, truth: dict[str, int]) -> Job:
    def right(indent: int | None) -> str:
        """The right counts as written, in each layout: made once, for the answers without a
        slip (most; the JSON encoder with an indent is the pure-Python one)."""
        if indent not in written:
            written[indent] = json.dumps(truth, indent=indent)
        return written[indent]

    written: dict[int | None, str] = {}

    def write(slips: Slips, rng: random.Random, _error: float) -> str:
        output_line = kind in ("cot", "fix")
        if not slips.count:  # no slip draws nothing: the counts are the right ones
            return render_counts(truth, rng, output_line, written=right)
        return render_counts(slip_counts(truth, slips, rng), rng, output_line)

    return Job("keyword-counting", kind, sum(truth.values()), write)


def slip_counts(truth: dict[str, int], slips: Slips, rng: random.Random) -> dict[str, int]:
    counts = dict(truth)
    for _ in range(slips.count):
        several = any(n > 1 for n in counts.values())
        move = slips.mix.pick(rng, _WITH_UNDERCOUNT if several else _MOVES)
        if move is None:
            continue
        if move == "invent" or not counts:
            stranger = rng.choice([c for c in COUNTRIES if c not in counts][:60])
            counts[stranger] = 1
            continue
        if move == "undercount":
            counts[rng.choice(sorted(c for c, n in counts.items() if n > 1))] -= 1
            continue
        country = rng.choice(sorted(counts))
        if move == "over":
            counts[country] += 1
        elif move == "under":
            counts[country] -= 1
        else:
            counts[country] = 0
        counts = {c: n for c, n in counts.items() if n > 0}
    return counts


def render_counts(
    counts: dict[str, int],
    rng: random.Random,
    output_line: bool,
    written: Callable[[int | None], str] | None = None,
) -> str:
    """The counts as JSON, indented or not, alone, after a line or in a fence; `written`: the
    counts' JSON at an indent, made before (the answers without a slip share it)."""
    style = rng.random()
    indent = 4 if style < 0.5 else None
    body = written(indent) if written is not None else json.dumps(counts, indent=indent)
    if output_line:
        return f"I went through the text and counted each country again.\nOutput: {body}"
    if style < 0.9:
        return body
    return f"Here are the counts:\n```json\n{body}\n```"


def _split(text: str, parts: int) -> Job:
    sentences = list(split_sentences(text))

    def right() -> str:
        """The split without a slip: made once (no slip draws nothing)."""
        if not written:
            written.append(passages(sentences))
        return written[0]

    written: list[str] = []

    def passages(kept: list[str]) -> str:
        size, extra = divmod(len(kept), parts)
        found, start = {}, 0
        for index in range(parts):
            end = start + size + (1 if index < extra else 0)
            found[f"Passage {index + 1}"] = " ".join(kept[start:end])
            start = end
        return json.dumps(found, indent=2)

    def write(slips: Slips, rng: random.Random, _error: float) -> str:
        if not slips.count:
            return right()
        kept = list(sentences)
        for _ in range(slips.count):
            i = rng.randrange(len(kept))
            move = slips.mix.pick(rng, ("drop", "copy"))
            if move == "drop" and len(kept) > parts:
                kept.pop(i)
            elif move is not None:
                kept.insert(i, kept[i])
        return passages(kept)

    return Job("keyword-counting", "split", len(sentences), write)


def apply_fixes(counts: dict[str, int], errors: str) -> dict[str, int]:
    """Act on the scorer's errors: set the counts it names, remove what it says to remove."""
    fixed = dict(counts)
    for clause in errors.split(";"):
        clause = clause.strip()
        if match := re.fullmatch(
            r"(.+?) is named (\d+) times?(?:, not \d+| but is missing)", clause
        ):
            fixed[match.group(1)] = int(match.group(2))
        elif match := re.fullmatch(r"(.+?) is not named in the text: remove it", clause):
            fixed.pop(match.group(1), None)
    return fixed
