"""Choosing the answer in a real model's reply, when the reply holds several candidates.

Real models (see tests/fixtures/real_answers/) do not reply with just the answer. They ramble,
label it (`Output:`, `Answer:`, `Sorted result:`), put it in a code block, write it without
brackets or as numbered lines, get cut off by the token limit, and repeat things from the
prompt: its format example (`[0, 1, 1, 4, 9]`), its few-shot examples, the input itself. Each
task's parser finds every candidate in the reply; `choose` then applies one rule for all tasks:

1. A candidate that repeats something in the prompt (an *echo*: the format example, an example,
   the input) is used only when there is nothing else. The model was asked for something new.
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
from typing import Any

# A label announcing an answer, at the end of the text before a candidate (rule 3).
LABEL = re.compile(
    r"(?i)(?:\b(?:final\s+)?(?:output|answer|result|solution|intersection|counts?|"
    r"sorted(?:\s+(?:list|result|numbers|array|output|version))?|"
    r"merged(?:\s+(?:list|nda|document))?)\b[^\n:=]{0,12}[:=]|<merged>)[\s`*]*(?:\w+\n)?\s*$"
)
# Code around a candidate on its line: an assignment or a call (rule 4).
CODE = re.compile(r"(?:[=(]|\breturn|\bprint)\s*$")


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


def in_code(text: str, start: int) -> bool:
    """Is the candidate at `start` written as code (assigned, passed, returned or printed)?"""
    line_start = text.rfind("\n", 0, start) + 1
    return CODE.search(text[line_start:start]) is not None
