"""Choosing the answer in a real model's reply, when the reply holds several candidates.

Real models (see tests/fixtures/real_answers/) do not reply with just the answer. They ramble,
label it (`Output:`, `Answer:`, `Sorted result:`), put it in a code block, write it without
brackets or as numbered lines, get cut off by the token limit, and repeat things from the
prompt: its format example (`[0, 1, 1, 4, 9]`), its few-shot examples, the input itself. Each
task's parser finds every candidate in the reply; `choose` then applies one rule for all tasks:

1. A candidate that repeats something in the prompt (an *echo*: the format example, an example,
   the input) or restates the input under its label (`Input:`, `Set 2:`) is used only when
   there is nothing else. The model was asked for something new. (An input that is itself
   the answer, a list already sorted or a set that is its own intersection, is no echo.)
2. A complete candidate beats one cut off by the token limit (`[1, 2, 3, 4` at the very end).
3. A candidate right after an answer label (`Output:`, `Answer:`, `Result:`, ...) beats one that
   is not: the model said that this is its answer.
4. A candidate that is code (`numbers = [3, 1, 2]`, `sorted([3, 1, 2])`) ranks below one that is
   a plain value.
5. Among equals, the last one wins: models work first and state the answer at the end.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# A label announcing an answer, at the end of the text before a candidate (rule 3).
# Words that name a step (`sorted:`, `merged:`, `counts:` in a worked example) are no label.
LABEL = re.compile(
    r"(?i)(?:\b(?:final\s+)?(?:output|answer|result|solution|intersection|"
    r"sorted\s+(?:list|result|numbers|array|output|version)|"
    r"merged\s+(?:list|nda|document))\b[^\n:=]{0,12}[:=]|<merged>)[\s`*]*(?:\w+\n)?\s*$"
)
# A label restating the input just before a candidate (`Input:`, `Set 2:`): an echo (rule 1),
# even when the model misquotes the input.
INPUT_LABEL = re.compile(
    r"(?i)\b(?:input|unsorted(?:\s+list)?|original(?:\s+list)?|set\s*[12]|list\s*[12])"
    r"\s*[:=][\s`*]*$"
)
# Code around a candidate on its line: an assignment or a call (rule 4).
CODE = re.compile(r"(?:[=(]|\breturn|\bprint)\s*$")
CODE_WINDOW = 200
# A fenced block (one the token limit left open runs to the end) and signs that it is a program.
FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
PROGRAM = re.compile(
    r"\bdef |\bprint\(|\breturn\b|\bimport |\bfor \w+ in |^\s*\w+\s*=", re.MULTILINE
)


@dataclass(frozen=True)
class Candidate:
    """One possible answer in a reply, with what the choice rule needs to know about it."""

    value: Any
    start: int  # where it begins in the reply
    complete: bool = True
    labelled: bool = False
    code: bool = False
    echo: bool = False

    def rank(self) -> tuple[bool, bool, bool, bool, int]:
        return (not self.echo, self.complete, self.labelled, not self.code, self.start)


def choose(candidates: Iterable[Candidate]) -> Candidate | None:
    """The best candidate under the module's rule (None when there is none)."""
    return max(candidates, key=Candidate.rank, default=None)


def labelled(text: str, start: int) -> bool:
    """Does an answer label end just before `start` (only spaces, `*` or a fence between)?"""
    return LABEL.search(text[max(0, start - 80) : start]) is not None


def restates_input(text: str, start: int) -> bool:
    """Does an input label (`Input:`, `Set 1:`) end just before `start`?"""
    return INPUT_LABEL.search(text[max(0, start - 40) : start]) is not None


def in_code(text: str, start: int) -> bool:
    """Is the candidate at `start` code: assigned, passed, returned or printed on its line, or
    anywhere in a fenced block that is a program (a fence holding just a list is a value)?"""
    # only the line's last CODE_WINDOW characters: a reply of thousands of lists on one line
    # made this quadratic
    line_start = text.rfind("\n", max(0, start - CODE_WINDOW), start) + 1
    if CODE.search(text, max(line_start, start - CODE_WINDOW), start):
        return True
    return any(begin <= start < end for begin, end in _programs(text))


@lru_cache(maxsize=8)
def _programs(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of the reply's fenced blocks that are programs, found once per reply (not once
    per candidate: thousands of candidates in a fence made that quadratic)."""
    if "```" not in text:
        return ()
    return tuple(
        (fence.start(1), max(fence.end(1), fence.start(1) + 1))
        for fence in FENCE.finditer(text)
        if PROGRAM.search(fence.group(1)) is not None
    )
