"""Set intersection: the paper's second use case (section 5.2).

The problem is two sets of integers; the answer lists every number found in both, once. GoT
splits the *second* set into parts and intersects each part with the whole first set, so every
sub-problem carries the first set along. Merging is a union: the parts of the second set are
disjoint, so their intersections are too.

Score (the paper's error scope): X1 numbers that should not be there + X2 numbers missing +
Xd duplicates. An answer's content is its numbers in ascending order (duplicates kept), so two
answers with the same numbers in another order are the same answer.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from thoughtgraph.errors import InputError, shown
from thoughtgraph.io.strictload import RefusedDocument, read_json
from thoughtgraph.tasks.answers import conditional, in_code
from thoughtgraph.tasks.base import BaseTask, FirstNumberScore, ParseError, chunks
from thoughtgraph.tasks.intlists import show_ints
from thoughtgraph.tasks.score import Score
from thoughtgraph.tasks.sets_prompts import PROMPTS
from thoughtgraph.tasks.sorting import SortingTask, parse_int_list

_BRACED = re.compile(r"\{([-\d,\s]*)\}")
# "No number is in both", said in words (a bare `None` is Python's, and code is no answer).
_NONE = re.compile(
    r"(?i)\b(?:no (?:common )?(?:numbers?|elements?|values?) (?:in common|are in both|is in both)"
    r"|no common (?:numbers?|elements?|values?)|nothing in common|have none in common"
    r"|(?:intersection|result|answer|output) is (?:an? |the )?empty|empty intersection)\b"
    r"|\A\s*none\.?\s*\Z"
    r"""|[{\[]\s*["']?none["']?\s*[}\]]"""  # `{"None"}`, `[None]`: a set naming none
)
# Two to four lists side by side on a line of their own (after an optional label): a merge
# written as its inputs appended, `[], [14, 24, 20]`: their numbers, one answer.
_APPENDED = re.compile(
    r"(?m)^([ \t>*`]*(?:[A-Za-z][\w ]{0,30}:[ \t]*)?)"
    r"(\[[^\[\]\n]*\](?:[ \t]*,[ \t]*\[[^\[\]\n]*\]){1,3})([ \t]*[.`]*[ \t]*)$"
)
_ONE_LIST = re.compile(r"\[([^\[\]\n]*)\]")
_LISTS = SortingTask()  # reads a JSON object of integer lists
_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


@dataclass(frozen=True)
class SetProblem:
    """Two sets of integers (kept in input order). `len` is the size of the second set: the
    one GoT splits."""

    set1: tuple[int, ...]
    set2: tuple[int, ...]
    shown1: str | None = field(default=None, compare=False, repr=False)
    """Set 1 as prompts show it, rendered once and shared by every part of a split (each part
    carries the whole first set: rendering it per part made building 6,250 prompts quadratic)."""

    def __len__(self) -> int:
        return len(self.set2)

    def set1_text(self) -> str:
        if self.shown1 is None:
            object.__setattr__(self, "shown1", show_ints(self.set1))  # a cache, not a change
        assert self.shown1 is not None
        return self.shown1

    def with_set2(self, set2: Iterable[int]) -> SetProblem:
        """A sub-problem: `set2` against this whole first set (its text shared, not redone)."""
        return SetProblem(self.set1, tuple(set2), self.set1_text())

    def intersection(self) -> list[int]:
        first = set(self.set1)
        return sorted({x for x in self.set2 if x in first})


class SetIntersectionTask(FirstNumberScore, BaseTask[SetProblem, list[int]]):
    """List every number that is in both sets, once."""

    name = "set-intersection"
    score_name = "error scope"
    part_size = 8
    prompts = PROMPTS

    def parse_input(self, raw: object) -> SetProblem:
        problem = _as_problem(raw)
        if not problem.set1 or not problem.set2:
            raise InputError("both sets must hold at least one integer")
        return problem

    def describe(self, problem: SetProblem) -> str:
        return (
            f"Find the intersection of two sets of integers (Set 1 has {len(problem.set1)} "
            f"numbers, Set 2 has {len(problem.set2)}): list every number that is in both sets, "
            "each once, in any order."
        )

    def format(self) -> str:
        return "a list of integers in square brackets, such as [3, 11, 14]"

    def render(self, value: SetProblem | list[int]) -> str:
        if isinstance(value, SetProblem):
            return f"Set 1: {value.set1_text()}\nSet 2: {show_ints(value.set2)}"
        return show_ints(value)

    def brief(self, value: SetProblem | list[int]) -> str:
        """A part as traces show it: its own second set, and the first set by size only (it
        is the input's, shown once there; the prompts carry it whole)."""
        if isinstance(value, SetProblem) and value.shown1 is not None:
            return f"Set 1: the input's first set ({len(value.set1)} numbers)\nSet 2: " + show_ints(
                value.set2
            )
        return self.render(value)

    def split(self, problem: SetProblem, parts: int) -> list[SetProblem]:
        """Contiguous chunks of the second set, each with the whole first set."""
        return [problem.with_set2(chunk) for chunk in chunks(problem.set2, parts)]

    def join(self, problems: list[SetProblem]) -> SetProblem:
        set2: list[int] = []
        for problem in problems:
            set2.extend(problem.set2)
        return problems[0].with_set2(set2)

    def parse(self, text: str) -> list[int]:
        return parse_set(text, self.format())

    def parse_reply(self, text: str, problem: SetProblem | None, prompt: str) -> list[int]:
        """`parse`, knowing the prompt: a list that only repeats Set 1, Set 2 or an example is
        an echo (tasks/answers.py), except a set that is itself the intersection."""
        answers: list[tuple[int, ...]] = []
        if isinstance(problem, SetProblem):
            common = set(problem.set1) & set(problem.set2)
            answers = [s for s in (problem.set1, problem.set2) if set(s) == common]
        return parse_set(text, prompt or self.format(), answers)

    def score(self, problem: SetProblem, content: list[int]) -> Score:
        return intersection_errors(problem, content)

    def score_unparsed(self, problem: SetProblem, reason: str) -> Score:
        return Score(float(len(problem.intersection()) + 1), (reason,))

    def reference(self, problem: SetProblem) -> list[int]:
        return problem.intersection()

    def parse_split(self, text: str, parts: int) -> list[list[int]]:
        """The model's split of the second set: a JSON object of lists, read as sorting's is."""
        return _LISTS.parse_split(text, parts)

    def parts_from_split(self, problem: SetProblem, pieces: list[list[int]]) -> list[SetProblem]:
        return [problem.with_set2(piece) for piece in pieces]


def _as_problem(raw: object) -> SetProblem:
    """Accept a SetProblem, {"set1": [...], "set2": [...]}, [[...], [...]] or their JSON."""
    if isinstance(raw, SetProblem):
        return raw
    if isinstance(raw, str):
        try:
            raw = read_json(raw)
        except RefusedDocument as exc:  # nested too deeply, a number too long
            raise InputError(f"the input cannot be read: {exc}") from None
        except json.JSONDecodeError:
            raise InputError(
                'write the input as {"set1": [1, 2], "set2": [2, 3]} or [[1, 2], [2, 3]]'
            ) from None
    if isinstance(raw, dict):
        missing = {"set1", "set2"} - set(raw)
        if missing:
            raise InputError(
                f"the input object needs the keys set1 and set2 (missing "
                f"{', '.join(sorted(missing))})"
            )
        first, second = raw["set1"], raw["set2"]
    elif isinstance(raw, list | tuple) and len(raw) == 2 and not any(_number(x) for x in raw):
        first, second = raw
    else:
        raise InputError(
            'the input must be two sets: {"set1": [...], "set2": [...]} or [[...], [...]]'
        )
    return SetProblem(_ints(first, "set1"), _ints(second, "set2"))


def _number(item: object) -> bool:
    """An item that is a number, not a set (`[1, 2]` is one list, not two sets)."""
    return isinstance(item, int | float | str) and not isinstance(item, bool)


def _ints(items: object, name: str) -> tuple[int, ...]:
    if not isinstance(items, list | tuple):
        raise InputError(f"{name} must be a list of integers, got {type(items).__name__}")
    out = []
    for index, item in enumerate(items):
        if isinstance(item, bool) or not isinstance(item, int | str):
            raise InputError(f"{name} item {index + 1} is not an integer: {shown(item)}")
        if isinstance(item, str) and not re.fullmatch(r"\s*[+-]?\d+\s*", item):
            raise InputError(f"{name} item {index + 1} is not an integer: {shown(item)}")
        out.append(int(item))
    if len(set(out)) != len(out):
        dup = next(x for x, n in Counter(out).items() if n > 1)
        raise InputError(f"{name} is a set: {dup} appears more than once")
    return tuple(out)


def parse_set(text: str, prompt: str = "", answers: Iterable[Iterable[int]] = ()) -> list[int]:
    """The answer's numbers, ascending (duplicates kept so the score can count them).

    Copes with what `parse_int_list` copes with (code fences, `Output:`, prose), with sets
    written in braces (`{3, 11}`), with a merge written as its lists appended on one line
    (`[], [14, 24, 20]`: their numbers) and with answers saying there is no common number (in
    words, or `{"None"}`). A list
    that repeats one in `prompt` (in any order) is an echo, chosen only when nothing else is,
    unless it is in `answers` (a set that is its own intersection).
    """
    if not isinstance(text, str):
        raise ParseError("the answer is not text")
    try:
        braced = _BRACED.sub(r"[\1]", text)
        if "]," in braced:
            braced = _APPENDED.sub(_appended, braced)
        prompt = _BRACED.sub(r"[\1]", prompt)
        return sorted(parse_int_list(braced, prompt, unordered=True, answers=answers))
    except ParseError as exc:
        if any(
            not in_code(text, m.start()) and not conditional(text, m.start())
            for m in _NONE.finditer(text)
        ):
            return []
        raise exc from None


def _appended(match: re.Match[str]) -> str:
    """`[], [14, 24]` -> `[14, 24]`: the lists of a line written side by side, as one."""
    items = [body.strip() for body in _ONE_LIST.findall(match.group(2))]
    return match.group(1) + "[" + ", ".join(i for i in items if i) + "]" + match.group(3)


def intersection_errors(problem: SetProblem, output: list[int]) -> Score:
    """The paper's error scope for set intersection, with errors a model can act on."""
    first, second = set(problem.set1), set(problem.set2)
    want = first & second
    counts = Counter(output)
    errors: list[str] = []
    extra = sorted(set(counts) - want)
    for value in extra:
        where = (
            "either set"
            if value not in first | second
            else ("Set 1" if value not in first else "Set 2")
        )
        errors.append(f"{value} is not in {where}: remove it")
    missing = sorted(want - set(counts))
    errors.extend(f"missing {value} (it is in both sets)" for value in missing)
    duplicates = 0
    for value in sorted(v for v, n in counts.items() if n > 1):
        duplicates += counts[value] - 1
        times = _WORDS[counts[value]] if counts[value] < len(_WORDS) else str(counts[value])
        errors.append(f"{value} is listed {times} times: list it once")
    return Score(float(len(extra) + len(missing) + duplicates), tuple(errors))
