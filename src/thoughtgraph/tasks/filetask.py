"""The task a task file declares (tasks/taskfile.py): split, join, parse and score by its keys.

A problem is a `FileProblem`: the units code splits (items, sentences, paragraphs or lines)
and, when the row gave one, its reference answer. Parts are spans of the row's units; a part's
reference is derived from the row's when `answer.from_input` says every answer item is taken
from the input (the names of a paragraph are the row's names that the paragraph holds), else a
part is not checked in code and only the whole answer is (its merge and refine see the row's
reference). Without a reference, a reference-scored task still runs: its answers are checked
only as far as code can without one (`from_input`: every item must be in the input), and
`unchecked` says so for the CLI.
"""

from __future__ import annotations

import itertools
import json
import math
import numbers
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard, cast

from thoughtgraph.errors import InputError
from thoughtgraph.io.imports import first_line, import_string
from thoughtgraph.tasks.answers import (
    EMPTY_BODY,
    Candidate,
    alone_on_line,
    choose_in,
    in_code,
    instruction_words,
    labelled,
    restates_input,
)
from thoughtgraph.tasks.base import BaseTask, ParseError, check_parts, mean_score
from thoughtgraph.tasks.filetask_prompts import prompts_for
from thoughtgraph.tasks.keywords import split_sentences
from thoughtgraph.tasks.score import Score
from thoughtgraph.tasks.scorer import ScorerFailed, raised_at
from thoughtgraph.tasks.sorting import parse_int_list
from thoughtgraph.tasks.taskfile import TaskFileSpec, parse_task_file, read_task_file

MAX_LISTED_ERRORS = 20
_JOINERS = {"items": None, "sentences": " ", "paragraphs": "\n\n", "lines": "\n"}
_DEFAULT_FORMATS = {
    "integers": "a JSON list of integers, such as [4, 8, 15]",
    "strings": 'a JSON list of strings, such as ["first", "second"]',
    "counts": 'a JSON object mapping each name to its count, such as {"first": 2, "second": 1}',
    "text": "plain text, with nothing before or after it",
}


Item = int | str
"""A unit of an input split by items, or an item of a list answer: a whole number or a string
(an input split otherwise has texts for units)."""
FileAnswer = str | Sequence[Item] | dict[str, int]
"""An answer of a task file, as `answer.type` says: a text, a list of integers or strings, or
counts (a name -> its count)."""


@dataclass(frozen=True, eq=False)  # compared by identity: a reference may be a list
class FileProblem:
    """A row's problem, or a span of it: its units and, when known, their reference answer.

    `start` is where the span begins in the row's units and `row` the row's problem (None: this
    is the row's problem), so a merge of every part is recognised as the row again (and gets
    its reference back)."""

    units: tuple[Item, ...]
    reference: FileAnswer | None = None
    start: int = 0
    row: FileProblem | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.units)

    @property
    def whole(self) -> FileProblem:
        return self.row or self


class FileTask(BaseTask[FileProblem, FileAnswer]):
    """A Task declared by a task file. It defines no `parse_split` (no reader for a model's
    split; `BaseTask` gives none either): a graph that splits by the model is refused before any
    call (`check_graph`), instead of paying for a split that the code split replaces."""

    def __init__(self, spec: TaskFileSpec, source: str = "") -> None:
        self.spec = spec
        self.source = source
        self.name = spec.name
        self.part_size = spec.split.part_size
        self.part_count = spec.split.parts
        self.prompts = prompts_for(spec)
        scored_by = spec.score.by
        self.score_name = {
            "reference": "errors against the reference",
            "function": f"errors ({spec.score.function})",
            "model": "errors code can check (the model rates answers)",
        }[scored_by]
        self._function = (
            _scoring_function(spec.score.function, Path(source).parent if source else None)
            if spec.score.function
            else None
        )
        self.rating_scale = spec.score.scale
        self.rating_note = (
            f"the model's rating of the final answer against the task file's rubric "
            f"({spec.score.samples} sample{'s' if spec.score.samples != 1 else ''} averaged)"
        )
        self.proxy_name = "errors code can check"
        self.proxy_note = "what code can check without a reference: " + (
            "answer items that are not in the input"
            if spec.answer.from_input
            else "nothing for this task, so they are 0 on every run"
        )
        # Does code check anything of an answer? Not for a model-rated answer whose items need
        # not come from the input: the spec's `got` (driven by code's errors) then never
        # regenerates, merges again or refines, and `tune` does not search those knobs.
        self.checks_in_code = scored_by != "model" or spec.answer.from_input
        self.unit_names = self._unit_name() + "s"  # the solve header's "4 paragraphs"
        self.paper_config = _paper_config(spec.score.samples if scored_by == "model" else 0)

    # --- input --------------------------------------------------------------------------
    def parse_input(self, raw: object) -> FileProblem:
        reference = None
        if isinstance(raw, str) and raw.lstrip().startswith("{"):
            raw = _input_object(raw)
        if isinstance(raw, Mapping):
            unknown = set(raw) - {"input", "reference"}
            if "input" not in raw or unknown:
                raise InputError(
                    'an input object must be {"input": ..., "reference": ...} (reference optional)'
                )
            reference = raw.get("reference")
            raw = raw["input"]
        units = self._units(raw)
        if not units:
            raise InputError("the input is empty: give at least one " + self._unit_name())
        problem = FileProblem(units)
        return problem if reference is None else self.with_reference(problem, reference)

    def with_reference(self, problem: FileProblem, reference: object) -> FileProblem:
        """The row's problem carrying its reference (a JSON text or the value), checked against
        `answer.type`: an unreadable reference is one `InputError`, before any call."""
        text = isinstance(reference, str) and self.spec.answer.type == "text"
        if isinstance(reference, str) and not text and reference.lstrip().startswith(("[", "{")):
            reference = _json(reference, "the reference")
        return FileProblem(problem.units, self._checked_reference(reference))

    def _units(self, raw: object) -> tuple[Item, ...]:
        by = self.spec.split.by
        if isinstance(raw, list | tuple):
            if by != "items" and not all(isinstance(u, str) for u in raw):
                raise InputError(f"split by {by}: give the input as text (or a list of texts)")
            _check_items(raw)
            units = tuple(u.strip() if isinstance(u, str) else u for u in raw)
            return tuple(u for u in units if u != "")
        if not isinstance(raw, str):
            raise InputError(f"the input must be text or a list, got {type(raw).__name__}")
        text = raw.strip()
        if by == "items":
            if text.startswith("["):
                items = _json(text, "the input")
                if not isinstance(items, list):
                    raise InputError("the input must be a JSON list of whole numbers or strings")
                _check_items(items)
                return tuple(items)
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            return tuple(int(x) if re.fullmatch(r"-?\d+", x) else x for x in lines)
        if by == "sentences":
            return split_sentences(text)
        if by == "paragraphs":
            return tuple(p.strip() for p in re.split(r"\n[ \t]*\n", text) if p.strip())
        return tuple(line.strip() for line in text.splitlines() if line.strip())

    def _unit_name(self) -> str:
        return {"items": "item", "sentences": "sentence", "paragraphs": "paragraph"}.get(
            self.spec.split.by, "line"
        )

    def _checked_reference(self, reference: object) -> FileAnswer:
        kind = self.spec.answer.type
        if kind == "integers" and _list_of(reference, int):
            return list(reference)
        if kind == "strings" and _list_of(reference, str):
            return list(reference)
        if kind == "counts" and _counts_map(reference):
            return {k: int(v) for k, v in reference.items() if int(v) > 0}
        if kind == "text" and isinstance(reference, str):
            return reference
        wanted = _DEFAULT_FORMATS[kind]
        given = (
            f"the text {_show(reference)[:60]}"
            if isinstance(reference, str)
            else _json_kind(reference)
        )
        raise InputError(f"the reference must be {wanted}; got {given}")

    # --- prompts ------------------------------------------------------------------------
    def describe(self, problem: FileProblem) -> str:
        return self.spec.description.strip()

    def format(self) -> str:
        return (self.spec.format or _DEFAULT_FORMATS[self.spec.answer.type]).strip()

    def render(self, value: FileProblem | FileAnswer) -> str:
        if isinstance(value, FileProblem):
            joiner = _JOINERS[self.spec.split.by]
            units = value.units
            if joiner is None:
                return json.dumps(list(units), ensure_ascii=False)
            return joiner.join(str(u) for u in units)
        if isinstance(value, list | tuple | dict):
            return json.dumps(value if isinstance(value, dict) else list(value), ensure_ascii=False)
        return str(value)

    # --- parts --------------------------------------------------------------------------
    def split(self, problem: FileProblem, parts: int) -> list[FileProblem]:
        check_parts(parts, len(problem))
        size, extra = divmod(len(problem), parts)
        chunks, start = [], problem.start
        for index in range(parts):
            end = start + size + (1 if index < extra else 0)
            chunks.append(self._span(problem.whole, start, end))
            start = end
        return chunks

    def join(self, problems: list[FileProblem]) -> FileProblem:
        """The span the problems cover together: the row itself when they are all its parts
        (alternative answers to one span count once)."""
        row = problems[0].whole
        spans = sorted({(p.start, p.start + len(p)) for p in problems})
        if all(p.whole is row for p in problems) and all(
            a[1] == b[0] for a, b in itertools.pairwise(spans)
        ):
            return self._span(row, spans[0][0], spans[-1][1])
        distinct = {id(p): p for p in problems}.values()
        units = tuple(u for p in distinct for u in p.units)
        return FileProblem(units)

    def _span(self, row: FileProblem, start: int, end: int) -> FileProblem:
        if start == 0 and end == len(row):
            return row
        units = row.units[start:end]
        reference = None
        if row.reference is not None and self.spec.answer.from_input:
            reference = self._part_reference(row.reference, units)
        return FileProblem(units, reference, start, row)

    def _part_reference(self, reference: FileAnswer, units: tuple[Item, ...]) -> FileAnswer:
        """The row's reference restricted to what `units` hold (answers come from the input)."""
        if self.spec.split.by == "items":
            have = Counter(self._key(u) for u in units)
            if isinstance(reference, dict):
                return {k: have[self._key(k)] for k in reference if have[self._key(k)]}
            kept = []
            for item in reference:
                if have[self._key(item)] > 0:
                    have[self._key(item)] -= 1
                    kept.append(item)
            return kept
        text = self.render(FileProblem(units))
        if isinstance(reference, dict):
            return {k: n for k in reference if (n := self._occurrences(k, text))}
        return [item for item in reference if self._occurrences(item, text)]

    # --- answers ------------------------------------------------------------------------
    def parse(self, text: str) -> FileAnswer:
        return self.parse_reply(text, None, "")

    def parse_reply(self, text: str, problem: FileProblem | None, prompt: str) -> FileAnswer:
        kind = self.spec.answer.type
        if kind == "integers":
            return parse_int_list(text, prompt or self.format())
        if kind == "strings":
            return parse_string_list(text, prompt or self.format())
        if kind == "counts":
            return parse_count_map(text, prompt or self.format())
        return parse_text(text)

    def join_answers(self, contents: list[FileAnswer]) -> FileAnswer:
        """Answers joined in code, as `join` says (for a merge whose every attempt failed)."""
        how = self.spec.join
        if how == "add":
            total: Counter[str] = Counter()
            for counts in contents:
                total.update(cast(dict[str, int], counts))  # `add` joins counts (taskfile.py)
            return dict(total)
        texts = [c for c in contents if isinstance(c, str)]
        if len(texts) == len(contents):
            return "\n\n".join(texts)
        joined = [item for content in contents for item in content]
        if how == "union":
            return list({self._key(item): item for item in reversed(joined)}.values())[::-1]
        return joined

    # --- scores -------------------------------------------------------------------------
    def score(self, problem: FileProblem, content: FileAnswer) -> Score:
        if self._function is not None:
            return self._scored_by_function(problem, content)
        if self.spec.score.by == "reference" and problem.reference is not None:
            return self.reference_errors(problem.reference, content)
        return self.input_errors(problem, content)

    def score_unparsed(self, problem: FileProblem, reason: str) -> Score:
        reference = problem.reference
        size = sum(reference.values()) if isinstance(reference, dict) else len(reference or ())
        return Score(float(max(size, len(problem)) + 1), (reason,))

    def reference(self, problem: FileProblem) -> FileAnswer | None:
        """The row's reference answer (None when the row gave none)."""
        return problem.reference

    def matches_reference(
        self,
        problem: FileProblem,
        content: FileAnswer | None,
        reference: FileAnswer | None = None,
    ) -> bool | None:
        """Is `content` the reference, as this task compares answers (case, order)? The
        reference is the problem's (`with_reference`), the same a caller passes. None when
        there is no reference (`ground_truth` records it as unknown)."""
        if problem.reference is None:
            return None
        if content is None:
            return False
        if self.spec.answer.type == "text":
            return " ".join(str(content).split()) == " ".join(str(problem.reference).split())
        return self.reference_errors(problem.reference, content).value == 0

    def unchecked(self, problem: FileProblem) -> str | None:
        """Why the whole answer cannot be fully checked in code for this problem, or None."""
        if self.spec.score.by == "reference" and problem.reference is None:
            checks = (
                "only that every item is in the input was checked"
                if self.spec.answer.from_input
                else "nothing was checked in code"
            )
            return (
                f"task {self.name!r} is scored against a reference and this input has none: "
                f'{checks} (give {{"input": ..., "reference": ...}} or a --data row)'
            )
        return None

    def parse_score(self, text: str) -> float:
        """One rating, read as a careful person would: the number after the last `Score:`
        (or `Rating:`) label, else an `N/scale` or `N out of scale`, else a reply that is only a
        number; clipped to 0..scale. Any other number in the reply (a date, an amount the model
        repeated from the answer) is no rating: `ParseError`."""
        scale = self.spec.score.scale
        found = (
            _LABELLED_SCORE.findall(text)
            or re.findall(rf"(-?\d+(?:\.\d+)?)\s*(?:/|out of)\s*{scale}\b", text)
            or _ONLY_NUMBER.findall(text)
        )
        if not found:
            raise ParseError("the reply holds no rating (no `Score:` line)")
        return min(float(scale), max(0.0, float(found[-1])))

    def combine_scores(self, texts: list[str]) -> Score:
        """The mean of the ratings that could be read, with a note of how many there were."""
        score = mean_score(self, texts)
        if score.errors:
            return score
        read = sum(1 for text in texts if _readable(self, text))
        note = (
            f"model rating {score.value:.1f}/{self.spec.score.scale}, the mean of "
            f"{read} rating{'s' if read != 1 else ''}"
            + (f" ({len(texts) - read} unreadable)" if read < len(texts) else "")
        )
        return Score(score.value, (note,))

    def reference_errors(self, reference: FileAnswer, content: FileAnswer) -> Score:
        """Missing, extra and (for an ordered answer) out-of-order items, as instructions."""
        if self.spec.answer.type == "counts":  # both are counts: the reference checked, the
            # content parsed as answer.type says
            return self._count_errors(
                cast(dict[str, int], reference), cast(dict[str, int], content)
            )
        want = Counter(self._key(item) for item in reference)
        have = Counter(self._key(item) for item in content)
        shown = {self._key(item): item for item in [*reference, *content]}
        errors: list[str] = []
        total = 0
        for key in dict.fromkeys([*want, *have]):
            short, extra = want[key] - have[key], have[key] - want[key]
            if short > 0:
                total += short
                errors.append(f"{_show(shown[key])} is missing: add it" + _times(short, "more"))
            elif extra > 0:
                total += extra
                where = "does not belong in the answer" if not want[key] else "is listed too often"
                errors.append(f"{_show(shown[key])} {where}: remove it" + _times(extra, "fewer"))
        if self.spec.answer.ordered:
            order: dict[Any, int] = {}
            for index, item in enumerate(reference):
                order.setdefault(self._key(item), index)
            placed = [(i, item) for i, item in enumerate(content) if self._key(item) in order]
            for (i, a), (j, b) in itertools.pairwise(placed):
                if order[self._key(a)] > order[self._key(b)]:
                    total += 1
                    errors.append(
                        f"{_show(b)} must come before {_show(a)} (positions {i + 1} and {j + 1})"
                    )
        return Score(float(total), _listed(errors))

    def _count_errors(self, reference: dict[str, int], content: dict[str, int]) -> Score:
        want: dict[Item, tuple[Item, int]] = {self._key(k): (k, v) for k, v in reference.items()}
        have: dict[Item, int] = {}
        for named, count in content.items():
            have[self._key(named)] = have.get(self._key(named), 0) + count
        errors, total = [], 0
        for key in dict.fromkeys([*want, *have]):
            name, count = want.get(key, (key, 0))
            got = have.get(key, 0)
            if count == got:
                continue
            total += abs(count - got)
            if count == 0:
                errors.append(f"{_show(name)} does not belong in the answer: remove it")
            elif got == 0:
                errors.append(f"{_show(name)} is missing: its count is {count}")
            else:
                errors.append(f"the count of {_show(name)} is {count}, not {got}")
        return Score(float(total), _listed(errors))

    def input_errors(self, problem: FileProblem, content: FileAnswer) -> Score:
        """What code can check without a reference: with `from_input`, that every item of the
        answer is in the problem (and, for counts of a text, how often it appears there)."""
        if not self.spec.answer.from_input:
            return Score(0.0)
        errors, total = [], 0
        if self.spec.split.by == "items":
            have = Counter(self._key(u) for u in problem.units)
            names = content.items() if isinstance(content, dict) else Counter(content).items()
            for item, count in names:
                if count > have[self._key(item)]:
                    total += count - have[self._key(item)]
                    errors.append(
                        f"{_show(item)} is in the input {have[self._key(item)]} times, not {count}"
                    )
            return Score(float(total), _listed(errors))
        text = self.render(problem)
        if isinstance(content, dict):
            for name, count in content.items():
                found = self._occurrences(name, text)
                if found != count:
                    total += abs(found - count)
                    errors.append(f"{_show(name)} appears {found} times in the text, not {count}")
        else:
            for item in dict.fromkeys(content):
                if not self._occurrences(item, text):
                    total += 1
                    errors.append(f"{_show(item)} does not appear in the text: remove it")
        return Score(float(total), _listed(errors))

    def _scored_by_function(self, problem: FileProblem, content: FileAnswer) -> Score:
        assert self._function is not None
        try:
            value = self._function(content, problem)
        except Exception as exc:
            raise ScorerFailed(
                f"score.function {self.spec.score.function} raised {first_line(exc)} "
                f"({raised_at(exc)})"
            ) from None
        if isinstance(value, Score):
            return value
        errors: tuple[str, ...] = ()
        if isinstance(value, tuple | list) and len(value) == 2 and _number(value[0]):
            value, given = value
            # one error as a str is one error, not one per character
            errors = (given,) if isinstance(given, str) else tuple(str(e) for e in given or ())
        if not _number(value):
            raise ScorerFailed(
                f"score.function {self.spec.score.function} returned {type(value).__name__}: "
                "return an error count, (count, [errors]) or a thoughtgraph Score"
            )
        count = float(value)
        if not math.isfinite(count) or count < 0:
            raise ScorerFailed(
                f"score.function {self.spec.score.function} returned {count:g}: an error count "
                "is a number from 0 up (0: no error)"
            )
        return Score(count, errors)

    def _key(self, item: Item) -> Item:
        if isinstance(item, str):
            item = " ".join(item.split())
            return item if self.spec.answer.case_sensitive else item.casefold()
        return item

    def _occurrences(self, item: Item, text: str) -> int:
        """How often `item` appears in `text` as whole words."""
        needle = " ".join(str(item).split())
        if not needle:
            return 0
        flags = 0 if self.spec.answer.case_sensitive else re.IGNORECASE
        words = r"\s+".join(re.escape(w) for w in needle.split(" "))
        return len(re.findall(rf"(?<!\w){words}(?!\w)", text, flags))


def _readable(task: FileTask, text: str) -> bool:
    try:
        task.parse_score(text)
    except ParseError:
        return False
    return True


def _scoring_function(spec: str, beside: Path | None) -> Callable[[Any, Any], Any]:
    """The function `score.function` names, imported from beside the task file first (a
    `myscore.py` next to it), then from the current directory and the Python path."""
    function = import_string(spec, "scoring function", beside)
    if not callable(function):
        raise InputError(f"score.function {spec} is a {type(function).__name__}, not a function")
    scorer: Callable[[Any, Any], Any] = function  # called as (problem, answer) -> its score
    return scorer


def _paper_config(score_samples: int) -> dict[int, dict[str, dict[str, Any]]]:
    """The schemes' configuration for a task file: GoT (`got_paper`) splits in code (a task file
    has no reader for a model's split); a model-scored task ranks by the model's rating (ToP
    rates its final merge), with the file's `score.samples` ratings an answer (0: scored in
    code)."""
    extra = {"score_samples": score_samples} if score_samples else {}
    config: dict[str, dict[str, Any]] = {name: dict(extra) for name in ("io", "cot", "cot_sc")}
    config["tot"] = {"k": 5, "levels": 2, **extra}
    config["tot2"] = {"k": 3, "levels": 4, **extra}
    config["got_paper"] = {"parts": 2, "split_by": "code", "sort_n": 3, "merge_n": 3, **extra}
    config["top"] = dict(extra)
    return {1: config}


_LABELLED_SCORE = re.compile(r"(?i)\b(?:score|rating)\b[^0-9\n]{0,20}(-?\d+(?:\.\d+)?)")
_ONLY_NUMBER = re.compile(r"^\s*\**(-?\d+(?:\.\d+)?)\**\s*\.?\s*$")
_STRING_LIST = re.compile(r"\[([^\[\]]*)(\]|\Z)", re.DOTALL)
# a single-quoted item runs past an apostrophe inside a word ('O'Brien', 'it's'); typographic
# quotes (“Ada”) are quotes too
_QUOTED = re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\n]|\'(?=\w))*)\'|“([^”\n]*)”')
_MARKED = re.compile(r"(\*\*|__|`)(.+?)\1\s*(?:[(:,\-–—].*)?")
_BULLET = re.compile(r"(?m)^[ \t]*(?:[-*•]|\d{1,4}[.)])[ \t]+(.+?)[ \t]*$")
_LABEL_LINE = re.compile(r"(?i)^\s*(?:final\s+)?(?:answer|output|result|summary)\s*:\s*")


def parse_string_list(text: str, prompt: str = "") -> list[str]:
    """A list of strings in a reply, chosen by the rule of `tasks.answers`: JSON-like lists
    (quoted items; one cut off at the end), or a run of bulleted or numbered lines. A list that
    repeats one of the prompt's (its format example) is an echo."""
    if not isinstance(text, str):
        raise ParseError("the answer is not text")
    echoes = {tuple(v) for v, _, _ in _string_lists(prompt)}
    candidates = [
        Candidate(
            value,
            start,
            complete,
            labelled(text, start),
            in_code(text, start),
            echo=tuple(value) in echoes or restates_input(text, start),
        )
        for value, start, complete in _string_lists(text)
    ]
    for run in _bullet_runs(text):
        items = [item for item in (_bullet_item(m.group(1)) for m in run) if item]
        start = run[0].start()
        candidates.append(Candidate(items, start, True, labelled(text, start)))
    best = choose_in(text, candidates, prompt)
    if best is None:
        raise ParseError("the answer contains no list of strings")
    return list(best.value)


def _bullet_runs(text: str) -> list[list[re.Match[str]]]:
    """The reply's bulleted or numbered lines in runs: a line of prose between two bullets
    ends a run (a model's numbered steps, then `Answer:` and its list, are two runs, and the
    steps are no items of the answer)."""
    runs: list[list[re.Match[str]]] = []
    for match in _BULLET.finditer(text):
        if runs and not text[runs[-1][-1].end() : match.start()].strip():
            runs[-1].append(match)
        else:
            runs.append([match])
    return runs


def _bullet_item(line: str) -> str:
    """A bulleted item without its quotes or markdown: `**Ada Lovelace** (mathematician)` is
    the marked name, its note after it no part of it."""
    marked = _MARKED.fullmatch(line.strip())
    if marked:
        return marked.group(2).strip()
    return line.strip().strip("\"'`*").strip()


def _string_lists(text: str) -> list[tuple[list[str], int, bool]]:
    found = []
    for match in _STRING_LIST.finditer(text):
        body = match.group(1)
        items = [
            _unescape(double) if double else single.replace("\\'", "'") or typographic
            for double, single, typographic in _QUOTED.findall(body)
        ]
        if items or not body.strip():
            value = [i.strip() for i in items if i.strip()]
            found.append((value, match.start(), bool(match.group(2))))
    return found


def _unescape(text: str) -> str:
    try:
        return str(json.loads(f'"{text}"'))
    except json.JSONDecodeError:
        return text


# A count map's pieces. A key is quoted (double: JSON escapes; single: an apostrophe inside a
# word, `'O'Brien'`, does not close it) or bare (`{tea: 2}`); a count is a whole number, quoted
# or written `2.0` as models do. A key may hold any character of any script: the built-in
# keyword parser, made for country names, reads `"Éire"` as "ire" and `"O'Brien"` as "Brien".
_COUNT_OBJECT = re.compile(r"\{([^{}]*)(\}|\Z)")
_COUNT_PAIR = re.compile(
    r"""\s*(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\n]|'(?=\w))*)'|([^\s"'{}:,][^{}:,\n]*?))"""
    r"""\s*[:=]\s*(["']?)(\d{1,9})(?:\.0+)?\4\s*(?:,\s*|\Z)"""
)
_COUNT_LINE = re.compile(
    r"(?m)^[ \t]*(?:(?:[-*•]|\d{1,4}[.)])[ \t]+)?[*_`\"']*([^\s:*_`\"'][^:\n]{0,199}?)[*_`\"']*"
    r"[ \t]*(?:(?<!\d):|:(?=[ \t])|=|[ \t][-–—][ \t])"  # `10:30` is a time, not a count
    r"[ \t]*\**(\d{1,9})\**(?:[ \t]+times?)?[ \t]*[.,;]?[ \t]*$"
)


_BLANK_REST = re.compile(r"\s*\Z")
_FENCE_ONLY = re.compile(r"[\s`]*(?:json)?[\s`]*")


def parse_count_map(text: str, prompt: str = "") -> dict[str, int]:
    """A mapping of names to counts in a reply, chosen by the rule of `tasks.answers`: objects
    (JSON, or as models write them: single quotes, bare keys, a trailing comma, quoted counts;
    one cut off at the end), or a run of `Name: 3` lines (bulleted or numbered). An object with
    a piece that is no `name: count` pair is not read at all: part of it would be an invented
    answer. Repeated names are added up, a count of 0 kept as written. One that repeats an
    object of the prompt (its format example) is an echo."""
    if not isinstance(text, str):
        raise ParseError("the answer is not text")
    echoes = [value for value, _, _, _ in _count_objects(prompt)]
    candidates = [
        Candidate(
            value,
            start,
            complete,
            labelled(text, start),
            in_code(text, start, end),
            echo=bool(value) and value in echoes,
            other_input=bool(value) and all(instruction_words(k, prompt) for k in value),
            end=end,
        )
        for value, start, end, complete in [*_count_objects(text), *_count_lines(text)]
    ]
    best = choose_in(text, candidates, prompt)
    if best is None:
        raise ParseError("the answer contains no mapping of names to counts")
    return dict(best.value)


def _count_objects(text: str) -> list[tuple[dict[str, int], int, int, bool]]:
    found = []
    for match in _COUNT_OBJECT.finditer(text):
        body, complete = match.group(1), bool(match.group(2))
        pairs = [] if complete and EMPTY_BODY.fullmatch(body) else _count_pairs(body, complete)
        if pairs is None or (not pairs and not _lone_empty(text, match)):
            continue
        found.append((_added(pairs), match.start(), match.end(), complete))
    return found


def _count_pairs(body: str, complete: bool) -> list[tuple[str, int]] | None:
    """Every `key: count` pair of an object's body, or None when a piece of it is none (an
    object cut off at the end keeps the pairs before the cut)."""
    pairs: list[tuple[str, int]] = []
    at = 0
    while _BLANK_REST.match(body, at) is None:
        match = _COUNT_PAIR.match(body, at)
        if match is None:
            return pairs if not complete and pairs else None
        double, single, bare = match.group(1), match.group(2), match.group(3)
        key = _unescape(double) if double is not None else single if single is not None else bare
        pairs.append((key.strip(), int(match.group(5))))
        at = match.end()
    return pairs


def _lone_empty(text: str, match: re.Match[str]) -> bool:
    """Is this `{}` (or `{"None"}`) an answer ("nothing to count"): labelled, the whole reply,
    or on a line of its own (code is told apart later, as for every candidate)?"""
    if labelled(text, match.start()) or alone_on_line(text, match.start(), match.end()):
        return True
    rest = text[: match.start()] + text[match.end() :]
    return _FENCE_ONLY.fullmatch(rest) is not None


def _count_lines(text: str) -> list[tuple[dict[str, int], int, int, bool]]:
    """Runs of `Name: 3` lines (at most one blank line between two)."""
    found: list[tuple[dict[str, int], int, int, bool]] = []
    run: list[tuple[str, int]] = []
    start = end = -1
    for match in _COUNT_LINE.finditer(text):
        if run and text[end : match.start()].count("\n") > 2:
            found.append((_added(run), start, end, True))
            run = []
        if not run:
            start = match.start()
        run.append((match.group(1).strip(), int(match.group(2))))
        end = match.end()
    if run:
        found.append((_added(run), start, end, True))
    return found


def _added(pairs: list[tuple[str, int]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for key, count in pairs:
        if key:  # a count of 0 kept as written: the checks read it as naming nothing
            counts[key] = counts.get(key, 0) + count
    return counts


def parse_text(text: str) -> str:
    """Free text: the reply without a leading `Answer:` label or a code fence around it."""
    if not isinstance(text, str):
        raise ParseError("the answer is not text")
    body = text.strip()
    fence = re.fullmatch(r"```[\w+-]*\s*\n?(.*?)```", body, re.DOTALL)
    if fence:
        body = fence.group(1).strip()
    body = _LABEL_LINE.sub("", body, count=1).strip()
    if not body:
        raise ParseError("the answer is empty")
    return body


_OBJECT_FORM = re.compile(r'\A\s*\{\s*"(?:input|reference)"')


def _input_object(text: str) -> Any:
    """`{"input": ..., "reference": ...}` as given on the command line, or the text itself: a
    text that merely starts with a brace (RTF, LaTeX, a JSON document to summarise) is the
    input, as any other text is. A broken object form is refused, not solved as text."""
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        if _OBJECT_FORM.match(text):
            return _json(text, "the input")  # its one-line error
        return text
    if isinstance(value, dict) and {"input", "reference"} & set(value):
        return value
    return text


def _json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} looks like JSON but is not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise InputError(f"{what} is nested too deeply") from None


def _json_kind(value: object) -> str:
    """What a value is, in JSON's words (for an error about it)."""
    if isinstance(value, list):
        kinds = sorted({_json_kind(v) for v in value})
        return "a list holding " + " and ".join(kinds) if kinds else "an empty list"
    if value is None:
        return "null"
    names = {bool: "a boolean", int: "a number", float: "a number", dict: "an object"}
    return next((n for t, n in names.items() if isinstance(value, t)), "text")


def _check_items(items: list[object] | tuple[object, ...]) -> None:
    """Items are whole numbers or strings: a null, a fraction, a list or an object among them
    cannot be compared with an answer's items (a nested list crashed the split)."""
    for number, item in enumerate(items, start=1):
        if not _scalar(item):
            raise InputError(
                f"the input must be a list of whole numbers or strings: item {number} is "
                + json.dumps(item, ensure_ascii=False, default=str)[:60]
            )


def _scalar(item: object) -> TypeGuard[Item]:
    return isinstance(item, str) or (isinstance(item, int) and not isinstance(item, bool))


def _list_of(value: object, kind: type[Item]) -> TypeGuard[list[Item]]:
    return isinstance(value, list) and all(
        isinstance(v, kind) and not isinstance(v, bool) for v in value
    )


def _counts_map(value: object) -> TypeGuard[dict[str, int]]:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
        for k, v in value.items()
    )


def _number(value: object) -> TypeGuard[numbers.Real]:
    """A real number, numpy's included (`np.int64(2)`), but not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _show(item: object) -> str:
    return json.dumps(item, ensure_ascii=False) if isinstance(item, str) else str(item)


def _times(n: int, word: str) -> str:
    return "" if n == 1 else f" ({n} {word} times)"


def _listed(errors: list[str]) -> tuple[str, ...]:
    if len(errors) > MAX_LISTED_ERRORS:
        errors = [*errors[:MAX_LISTED_ERRORS], f"and {len(errors) - MAX_LISTED_ERRORS} more"]
    return tuple(errors)


__all__ = ["FileProblem", "FileTask", "parse_count_map", "parse_string_list", "parse_text"]


def load_task_file(path: Path, text: str | None = None) -> FileTask:
    """The task a task file declares; one `InputError` line naming the key for any mistake.
    With `text`, the file's text as read elsewhere (a Ray worker gets its driver's file)."""
    spec = read_task_file(path) if text is None else parse_task_file(text, path)
    return FileTask(spec, source=str(path))
