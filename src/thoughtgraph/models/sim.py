"""The simulated model: an offline stand-in that reads prompts as a model would and slips.

It finds the part, the two results to merge, or the result and its errors in the prompt, computes
the answer, then makes seeded, length-dependent slips (drop an item, duplicate one, swap two
neighbours). Each item of an answer of length L slips with probability
`error * BASE_SLIP * (1 + L / 32)`, so long answers go wrong far more often than short ones.

Randomness is drawn per call from (seed, prompt, how many times this prompt was asked before),
so answers do not depend on the order in which concurrent calls complete. It is always labelled
as simulated; it is a test double for the engine, not evidence about any real model.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
from collections import Counter
from typing import Any

from ..errors import UnknownNameError
from ..state import Usage
from .base import Completion, _tokens

BASE_SLIP = 0.01
_SECTION = re.compile(
    r"<(task|part|a|b|result|errors|input|incorrectly_sorted|parts)>((?:(?!<\1>).)*?)</\1>",
    re.DOTALL,
)  # the innermost <tag>...</tag>: instructions may name a tag before the tagged data
_INTS = re.compile(r"-?\d+")
_COUNT_WORDS = {w: i for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"])}



class SimulatedModel:
    """`sim`, `sim:latency=0.05,error=0,seed=1`. error: slip scale (0 never wrong)."""

    simulated = True

    def __init__(self, error: float = 1.0, latency: float = 0.0, seed: int = 0) -> None:
        if error < 0 or latency < 0:
            raise UnknownNameError("sim options error and latency must be 0 or more")
        self.error, self.latency, self.seed = error, latency, seed
        self._seen: Counter[str] = Counter()
        self.name = f"sim:latency={latency:g},error={error:g},seed={seed}"

    @classmethod
    def from_options(cls, options: dict[str, str]) -> SimulatedModel:
        known = {"error": float, "latency": float, "seed": int}
        values: dict[str, Any] = {}
        for key, text in options.items():
            if key not in known:
                raise UnknownNameError(f"unknown sim option {key!r} (known: error, latency, seed)")
            try:
                values[key] = known[key](text)
            except ValueError:
                raise UnknownNameError(f"sim option {key}={text!r} is not a number") from None
        return cls(**values)

    async def complete(self, prompt: str, n: int = 1) -> list[Completion]:
        first = self._seen[prompt]
        self._seen[prompt] += n
        if self.latency:
            await asyncio.sleep(self.latency)
        texts = [self.answer(prompt, self._rng(prompt, first + i)) for i in range(n)]
        return [Completion(t, Usage(_tokens(prompt), _tokens(t))) for t in texts]

    def _rng(self, prompt: str, occurrence: int) -> random.Random:
        digest = hashlib.sha256(f"{self.seed}\x00{occurrence}\x00{prompt}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def answer(self, prompt: str, rng: random.Random) -> str:
        sections = {name: body for name, body in _SECTION.findall(prompt)}
        kind = _prompt_kind(sections)
        truth = sort_answer(kind, sections, prompt)
        if truth is None:
            return "I could not find a list of numbers to work on in this prompt."
        if kind == "split":
            return _render_split(self.slip(truth, rng), int(sections["parts"]))
        return _render(self.slip(truth, rng), rng)

    def slip(self, items: list[Any], rng: random.Random) -> list[Any]:
        """Drop, duplicate or swap neighbours, each item with a length-dependent chance."""
        out = list(items)
        chance = min(1.0, self.error * BASE_SLIP * (1 + len(items) / 32))
        for _ in range(len(items)):
            if not out or rng.random() >= chance:
                continue
            i = rng.randrange(len(out))
            move = rng.choice(("drop", "duplicate", "swap"))
            if move == "drop":
                out.pop(i)
            elif move == "duplicate":
                out.insert(i, out[i])
            elif len(out) > 1:
                j = min(i, len(out) - 2)
                out[j], out[j + 1] = out[j + 1], out[j]
        return out


def _prompt_kind(sections: dict[str, str]) -> str:
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


def _ints(text: str) -> list[int]:
    return [int(tok) for tok in _INTS.findall(text)]


def sort_answer(kind: str, sections: dict[str, str], prompt: str) -> list[int] | None:
    """What a careful model would answer to a sorting prompt of this kind."""
    if kind == "part":
        return sorted(_ints(sections["part"]))
    if kind == "merge":
        return sorted(_ints(sections["a"]) + _ints(sections["b"]))
    if kind == "refine":
        return sorted(apply_fixes(_ints(sections["result"]), sections.get("errors", "")))
    if kind in ("improve", "sort"):
        return sorted(_ints(sections["input"]))
    if kind == "split":
        return _ints(sections["input"])  # the split keeps the order
    lists = re.findall(r"\[([-\d,\s]+)\]", prompt)
    return sorted(_ints(lists[-1])) if lists else None


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


def _render_split(items: list[Any], parts: int) -> str:
    size, extra = divmod(len(items), parts)
    chunks, start = {}, 0
    for index in range(parts):
        end = start + size + (1 if index < extra else 0)
        chunks[f"List {index + 1}"] = items[start:end]
        start = end

    return json.dumps(chunks)


def _render(items: list[Any], rng: random.Random) -> str:
    body = "[" + ", ".join(str(v) for v in items) + "]"
    style = rng.random()
    if style < 0.8:
        return body
    if style < 0.9:
        return f"Output: {body}"
    return f"Here is the sorted result:\n```\n{body}\n```"
