"""Sorting integers with duplicates: the paper's first use case and the spec's example.

Score is the paper's error scope (section 5.1): adjacent pairs out of order plus, for every
value, how far its count in the answer is from its count in the input. 0 means perfectly sorted.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache
from itertools import pairwise
from typing import Any, cast

from thoughtgraph.errors import InputError, shown
from thoughtgraph.io.strictload import read_json
from thoughtgraph.tasks.answers import (
    EXAMPLE,
    PARAGRAPH,
    Candidate,
    alternatives,
    choose_in,
    in_code,
    in_other_input,
    labelled,
    looped,
    names_format,
    nested,
    operand,
    other_input_spans,
    printer,
    quoted,
    recounted,
    restates_input,
    tagged,
    within,
)
from thoughtgraph.tasks.base import BaseTask, FirstNumberScore, ParseError
from thoughtgraph.tasks.intlists import show_ints
from thoughtgraph.tasks.score import Score
from thoughtgraph.tasks.sorting_prompts import PROMPTS

_LIST = re.compile(r"\[([^\[\]]*)\]")
_OPEN = re.compile(r"\[([^\[\]]*)\Z")  # a list the token limit cut off
_INT = re.compile(r"[+-]?\d+(?:\.0*)?")
_INT_TOKEN = re.compile(r"[+-]?\d+")
# A line of two or more bare integers, after an optional short label (`Sorted result: 1, 2`).
# A `-` right before a digit is the first number's sign, not a bullet.
# Numbers are parted by a comma, a semicolon or a space: with the parting optional, a long run of
# digits could be cut 2^n ways and a 30-digit number before other text hung the parser.
# A closing bracket after the last number (`16, 25}`, `1, 4, 2]`) is stray when nothing opened
# it (`_stray`): the line is still its numbers.
_BARE_LINE = re.compile(
    r"(?m)^(?:[ \t>*`]|-(?![\d+-]))*(?:[A-Za-z][\w ]{0,30}[:=][ \t]*)?"
    r"([+-]?\d+(?:(?:[ \t]*[,;][ \t]*|[ \t]+)[+-]?\d+)+)[ \t]*(?P<close>[\]})])?[ \t]*[.`]*[ \t]*$"
)
_OPENER = {"]": "[", "}": "{", ")": "("}
# One number on a numbered (`1. 5`, `2) 7`) or bulleted (`- 9`, `* 9`) line.
_NUMBERED = re.compile(
    r"(?m)^[ \t]*(?:(?P<index>\d+)[.)]|[-*\u2022])[ \t]+(?P<value>[+-]?\d+)[ \t]*[.,]?[ \t]*$"
)
# A reply that is exactly one list on one line: optionally in a code fence holding nothing else,
# optionally after a bare answer label (`Output:`, `Answer:`, `Here is the result:`), before the
# fence or inside it. Nothing else in it can be another candidate, code, an example, a restated
# input, a fragment or an alternative, so the careful rules cannot change its reading
# (`_plain_list`; tests/test_plain_reply.py).
_PLAIN_LABEL = r"(?:(?:here(?: is|'s) (?:the|my) )?(?:output|answer|result)[ \t]*:\s*)?"
_PLAIN = re.compile(
    rf"\s*{_PLAIN_LABEL}(?:```(?:json|python|text|plaintext)?[ \t]*\n\s*)?{_PLAIN_LABEL}"
    r"\[([^\[\]\n`]*)\][ \t]*(?:\n\s*```)?\s*",
    re.IGNORECASE,
)
_SINGLE = re.compile(r"\s*(?:[A-Za-z][\w ]{0,30}[:=]\s*)?([+-]?\d+)\s*\.?\s*")
# One number alone on the reply's first line, more lines after it (`1` then remarks): it opens
# the reply alone, where an answer stands.
_OPENING_NUMBER = re.compile(
    r"[ \t]*([+-]?\d+)[ \t]*\n(?![ \t]*[+-]?\d+[ \t]*[,.]?[ \t]*(?:\n|\Z))"
)
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)  # a split's JSON object, first brace to last
_DIGIT_RUNS = re.compile(r"(\d+)")
# the scanner `json.loads` runs (the C one): (value, end) for the JSON value at an index
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
MAX_LISTED_ORDER_ERRORS = 20
_PERFECT = Score(0.0, ())


class SortingTask(FirstNumberScore, BaseTask[list[int], list[int]]):
    """Sort a list of integers in ascending order, keeping every duplicate."""

    name = "sorting"
    score_name = "error scope"
    part_size = 8
    prompts = PROMPTS

    def parse_input(self, raw: object) -> list[int]:
        items = _input_items(raw)
        if not items:
            raise InputError("the input list is empty: give at least one integer")
        return items

    def describe(self, problem: list[int]) -> str:
        return (
            f"Sort a list of {len(problem)} integers in ascending order, keeping every duplicate: "
            "the result must contain exactly the same numbers as the input, each as many times."
        )

    def format(self) -> str:
        return "a list of integers in square brackets, ascending, such as [0, 1, 1, 4, 9]"

    def render(self, value: list[int]) -> str:
        return show_ints(value)

    def parse(self, text: str) -> list[int]:
        return parse_int_list(text, self.format())

    def parse_reply(self, text: str, problem: list[int] | None, prompt: str) -> list[int]:
        """`parse`, knowing the prompt: a list that only repeats the prompt is an echo, except
        the input when it is already sorted (then repeating it is the right answer)."""
        # lazy: only the careful reader asks (a plain reply is read without sorting the input)
        ready = (p for p in [problem] if isinstance(p, list) and p == sorted(p))
        return parse_int_list(text, prompt or self.format(), answers=ready)

    def score(self, problem: list[int], content: list[int]) -> Score:
        return error_scope(problem, content)

    def reference(self, problem: list[int]) -> list[int]:
        return sorted(problem)

    def parse_split(self, text: str, parts: int) -> list[list[int]]:
        """The model's split: a JSON object of lists ("List 1", "List 2", ...), in key order."""
        match = _OBJECT.search(text)
        if not match:
            raise ParseError("the split answer holds no JSON object")
        data = _json_object(match.group(0))
        lists = [v for _, v in sorted(data.items(), key=lambda kv: _natural_key(str(kv[0])))]
        if len(lists) != parts or not all(isinstance(v, list) for v in lists):
            raise ParseError(f"the split answer does not hold {parts} lists")
        try:  # a list of JSON integers is its own reading (`_as_int` keeps an int as it is)
            return [
                list(v) if set(map(type, v)) <= {int} else [_as_int(x, i) for i, x in enumerate(v)]
                for v in lists
            ]
        except InputError as exc:
            raise ParseError(str(exc)) from None


def _natural_key(text: str) -> list[int | str]:
    return [int(tok) if tok.isdigit() else tok for tok in _DIGIT_RUNS.split(text)]


def _input_items(raw: object) -> list[int]:
    if isinstance(raw, str):
        text = raw.strip()
        if text.startswith("{"):
            raise InputError(
                "the input must be a list of integers such as [3, 1, 2], not an object"
            )
        if text.startswith("["):
            try:
                raw = read_json(text)
            except ValueError:  # not JSON, nested too deeply, an integer too long to read
                if not text.endswith("]"):
                    raise InputError(
                        "the input list is not closed (cut off, or a ] missing): write it as "
                        "[3, 1, 2]"
                    ) from None
                if "[" in text[1:]:
                    raise InputError(
                        "the input is not a flat list: write it as [3, 1, 2]"
                    ) from None
                text = text[1:-1]  # not JSON, but maybe [3, 1, x]: report the bad item below
        if isinstance(raw, str):
            tokens = [tok for tok in re.split(r"[\s,;]+", text) if tok]
            return [_as_int(tok, i) for i, tok in enumerate(tokens)]
    if not isinstance(raw, list | tuple):
        raise InputError(f"the input must be a list of integers, got {type(raw).__name__}")
    return [_as_int(item, i) for i, item in enumerate(raw)]


def _as_int(item: object, index: int) -> int:
    if isinstance(item, int) and not isinstance(item, bool):
        return item
    if isinstance(item, str) and re.fullmatch(r"[+-]?\d+", item.strip()):
        try:
            return int(item)
        except ValueError:
            raise InputError(
                f"input item {index + 1} is too long a number ({len(item)} digits)"
            ) from None
    raise InputError(f"input item {index + 1} is not an integer: {shown(item)}")


def parse_int_list(
    text: str,
    prompt: str = "",
    *,
    unordered: bool = False,
    answers: Iterable[Iterable[int]] = (),
) -> list[int]:
    """The answer list in a model's reply, chosen by the rule of `tasks.answers`.

    Candidates: bracketed lists, a list cut off at the end of the reply (`[1, 2, 3`), lines of
    bare numbers (`1, 2, 3` or `1 2 3`, after an optional label), numbered or bulleted lines
    holding one number each, and a reply that is a single number. A candidate that also appears
    in `prompt` (the format example, a few-shot example, the input) is an echo; with `unordered`
    (sets), one that holds the same numbers in another order is one too. A list in `answers`
    is never an echo: the prompt holds it, but it is also what the model was asked for (an
    input that is already sorted, a set that is its own intersection). The prompt's own inputs
    (its tagged lists) tell a restated input from another input the model made up; code,
    lists for another input, restated inputs and pieces of nested lists are never the answer.
    """
    if not isinstance(text, str):
        raise ParseError("the answer is not text")
    plain = _plain_list(text)
    if plain is not None:
        return plain
    return careful_int_list(text, prompt, unordered=unordered, answers=answers)


def _plain_list(text: str) -> list[int] | None:
    """The reply's list when the reply is exactly one list (`[0, 1, 2]`, in a fence, after
    `Output:`), read without the careful scans; None when the careful reader must decide.

    The careful reader reads such a reply the same way: its one candidate is usable (no code,
    example, restated input, fragment or alternative can be in it), so it is chosen, an echo of
    the prompt too (an echo is passed over only for another candidate), and a reply holding
    nothing but a list asks for no input. The fast path only skips the work, the prompt's
    lists included."""
    if _bare(text):  # the commonest reply of all, `[0, 1, 2]` alone: read without the regex
        read = _int_array(text)  # as `_items` reads its body, without copying the text twice
        return read if read is not None else _items(text[1:-1])
    match = _PLAIN.fullmatch(text)
    return None if match is None else _items(match.group(1))


def _bare(text: str) -> bool:
    """`text` is one bracketed list and nothing else, on one line: what `_PLAIN` matches with
    no label, fence or space around it (its body then is everything between the brackets)."""
    return (
        text[:1] == "["
        and text[-1:] == "]"
        and text.count("[") == 1
        and text.count("]") == 1
        and "\n" not in text
        and "`" not in text
    )


def careful_int_list(
    text: str,
    prompt: str = "",
    *,
    unordered: bool = False,
    answers: Iterable[Iterable[int]] = (),
) -> list[int]:
    """`parse_int_list` without the fast path: every candidate found and every rule applied."""
    if not isinstance(text, str):
        raise ParseError("the answer is not text")
    found = int_list_candidates(text)
    if not found:
        raise ParseError("the answer contains no list of integers")
    echoes = _echoes(prompt, unordered)
    asked = {tuple(sorted(a) if unordered else a) for a in answers}
    if asked:
        echoes = echoes - asked
    real = _real_inputs(prompt, unordered)
    inner = nested(text) | looped(text)
    keyed = []
    statements = []
    for start, end, value, complete in found:
        key = tuple(sorted(value) if unordered else value)
        # a list of its own said to become something is an input the reply made up (the real
        # one is a statement anyway; with no prompt nothing tells them apart)
        own = bool(real) and key not in real and operand(text, end)
        restated = own or restates_input(text, start)
        if restated or key in real:  # the model states an input: the real one or its own
            if key in real or not real:  # no prompt: cannot tell
                statements.append((start, True))
            elif not _copied_short(value, prompt):  # the real one copied in part: neither
                statements.append((start, False))
        keyed.append((start, end, value, complete, key, restated))
    if unordered:  # a set problem is two sets: one made-up `Set 1:` alone is a step
        statements = _paired(text, statements, {k[0]: k[1] for k in keyed if k[5]})
    if statements and keyed and len(keyed[-1][2]) == 1 and _opening(text, keyed[-1][0]):
        keyed.pop()  # a number before the reply states the problem is no result for it
    others = other_input_spans(text, statements, prompt)
    offered = alternatives(text, [(start, end) for start, end, *_ in keyed])
    elsewhere = _printed_elsewhere(text, keyed, real, echoes)
    made_up = _own_values(text, keyed, statements, others, real | frozenset(asked), prompt)
    best = choose_in(
        text,
        [
            Candidate(
                value,
                start,
                complete,
                labelled(text, start),
                code=in_code(text, start, end),
                echo=key in echoes,
                other_input=in_other_input(others, text, start, prompt, key in echoes)
                or start in elsewhere
                or key in made_up
                or names_format(text, start, key in echoes)
                or recounted(text, start),
                restated=restated,
                fragment=start in inner,
                alternative=start in offered,
                end=end,
            )
            for start, end, value, complete, key, restated in keyed
        ],
        prompt,
    )
    if best is None:
        raise ParseError(
            "the answer states no list of integers (only code, examples for other inputs, "
            "the input restated or pieces of nested lists)"
        )
    return list(best.value)


def _own_values(
    text: str,
    keyed: list[tuple[Any, ...]],
    statements: list[tuple[int, bool]],
    others: tuple[tuple[int, int], ...],
    real: frozenset[tuple[int, ...]],
    prompt: str = "",
) -> frozenset[tuple[int, ...]]:
    """The values the reply itself gives as another problem's: an input of its own it states
    (`cut-set 1 = [30, 8, 21]` beside a made-up `Set 2`), or a value it calls an example
    ("such as [0, 1, 2]"). The same value elsewhere in the reply is that value again (a list
    stated twice is one list), not a result for the real input, wherever it stands, under
    `Output:` too. What a made-up input gives (`Input: [9, 4]`, `Output: [4, 9]`) is not one:
    a reply may state its answer, then an example with the same output. None of the problem's
    inputs or answers is one, nor is the prompt's own example given back with the prompt's
    words ('the problem statement was "..., such as [3, 11, 14]."'): the prompt's, not the
    reply's."""
    if not others or not real:
        return frozenset()  # nothing for another input, or no input known: nothing to repeat
    made_up = {start for start, is_real in statements if not is_real}
    examples = other_input_spans(text, (), prompt) if EXAMPLE.search(text) else ()
    return frozenset(
        key
        for start, _, _, _, key, _ in keyed
        if key not in real
        and (start in made_up or (within(examples, start) and not quoted(text, start, prompt)))
    )


def _printed_elsewhere(
    text: str,
    keyed: list[tuple[Any, ...]],
    real: frozenset[tuple[int, ...]],
    echoes: frozenset[tuple[int, ...]] = frozenset(),
) -> frozenset[int]:
    """The starts of candidates that are what a program prints (`answers.printer`) when the
    program states none of the problem's inputs: it works on data of its own (`numbers = [23,
    89, ...]`, `range(8)`), so its output is for another input, not this answer. A program
    that turns to one of the prompt's examples after its input (a list of the prompt that is
    not its input: the format example passed to the call, `sort_list([0, 1, 1, 4, 9],
    numbers)`) works on that example too (`_example_last`). Without the prompt's inputs
    nothing tells, and nothing is set aside."""
    lowered = text.lower()
    if not real or ("```" not in text and "<script" not in lowered and "<code" not in lowered):
        return frozenset()  # no program, or no input known: a plain reply pays nothing
    inputs = sorted(k[0] for k in keyed if k[4] in real)  # where the real inputs are stated
    examples = sorted(k[0] for k in keyed if k[4] in echoes and k[4] not in real)
    found = set()
    for start, end, *_ in keyed:
        span = printer(text, start, end)
        if span is not None and (
            not _inside(inputs, span) or _example_last(text, inputs, examples, span)
        ):
            found.add(start)  # no input inside, or the prompt's example: another input's
    return frozenset(found)


def _last_inside(starts: list[int], span: tuple[int, int]) -> int | None:
    """The last of the (sorted) `starts` inside `span`, if any."""
    index = bisect_left(starts, span[1]) - 1
    return starts[index] if index >= 0 and starts[index] >= span[0] else None


def _example_last(text: str, inputs: list[int], examples: list[int], span: tuple[int, int]) -> bool:
    """Does the program turn to the prompt's example after its last input, on a later line
    (`numbers = [...]`, then `sort_list([0, 1, 1, 4, 9], numbers)`)? An example before the
    input (a test of the function: `assert sort_list([4, 1, 0, 9, 1]) == [0, 1, 1, 4, 9]`) or
    beside it on its line (a comment) leaves the input what the program prints the result of."""
    example = _last_inside(examples, span)
    last_input = _last_inside(inputs, span)
    return (
        example is not None
        and last_input is not None
        and example > last_input
        and "\n" in text[last_input:example]
    )


def _inside(starts: list[int], span: tuple[int, int]) -> bool:
    """Does one of the (sorted) `starts` fall inside `span`?"""
    first = bisect_left(starts, span[0])
    return first < len(starts) and starts[first] < span[1]


@lru_cache(maxsize=64)
def _echoes(prompt: str, unordered: bool) -> frozenset[tuple[int, ...]]:
    """The prompt's lists, read once per prompt: every answer to it (n > 1, retries, a judge
    re-reading) checks against the same set."""
    echoes = prompt_lists(prompt)
    if unordered:
        return frozenset(tuple(sorted(e)) for e in echoes)
    return frozenset(echoes)


@lru_cache(maxsize=64)
def _real_inputs(prompt: str, unordered: bool) -> frozenset[tuple[int, ...]]:
    """The lists inside the prompt's own tags (<input>, <part>, <a>, ...): the inputs of this
    problem, not of the few-shot examples around them."""
    return _echoes(tagged(prompt), unordered)


COPIED_AT_LEAST = 4  # numbers of an input copied in order before a restatement is taken as it


def _copied_short(value: list[int], prompt: str) -> bool:
    """Is a restated list one of the prompt's input lists copied as far as the model got: its
    opening numbers in order (at least `COPIED_AT_LEAST`), the last one perhaps cut short with
    the copy (`..., 38, 4` for `..., 38, 43, ...`)? Then the reply restates the real problem,
    not one of its own: it opens no stretch about another input, and closes none (a made-up
    `Set 1:` beside it still states another problem)."""
    head = tuple(value[:-1])
    if len(head) < COPIED_AT_LEAST:
        return False
    return any(
        len(numbers) > len(head) and numbers[: len(head)] == head
        for numbers in prompt_lists(tagged(prompt))  # the prompt's own inputs, as written
    )


def prompt_lists(prompt: str) -> set[tuple[int, ...]]:
    """Every bracketed integer list in the prompt (what an answer must not merely repeat)."""
    found = set()
    for match in _LIST.finditer(prompt):
        items = _items(match.group(1))
        if items:
            found.add(tuple(items))
    return found


# An output given right after a restated input, on its line (`Input: [3, 11], Output: [0, 2]`).
_PAIRED_OUTPUT = re.compile(
    r"(?i)[ \t]*[,;]?[ \t]*(?:and[ \t]+)?(?:the[ \t]+)?(?:output|result)[ \t]*[:=]"
)


def _opening(text: str, start: int) -> bool:
    """Is the candidate at `start` the number alone on the reply's first line?"""
    opening = _OPENING_NUMBER.match(text)
    return opening is not None and opening.start(1) == start


def _paired(
    text: str, statements: list[tuple[int, bool]], restated: dict[int, int]
) -> list[tuple[int, bool]]:
    """The statements of a set reply that can state another problem: the real input, a made-up
    set with another restated set in its paragraph (`Set 1: [...]` and `Set 2: [...]`), or a
    made-up input with its output on its line (`Input: [3, 11, 14], Output: [0, 289]`: an
    example pair). A lone made-up `Set 1: [50, 29]` in a model's steps states no problem, and
    what follows it (its `Output:`) still answers the real one."""
    starts = sorted(restated)
    order = {start: i for i, start in enumerate(starts)}
    kept = []
    for start, real in statements:
        i = order.get(start)
        near = [] if i is None else starts[max(0, i - 1) : i] + starts[i + 1 : i + 2]
        if (
            real
            or any(_same_paragraph(text, start, other) for other in near)
            or (i is not None and _PAIRED_OUTPUT.match(text, restated[start]) is not None)
            or (i is not None and _other_set_stated(text, start))
        ):
            kept.append((start, real))
    return kept


# A set's label opening a line (`Set 2:`, `set-1 =`), its value readable or not.
_SET_LABEL = re.compile(r"(?im)^[ \t*>-]*set[ \t_-]*[12][ \t]*[:=]")


def _other_set_stated(text: str, start: int) -> bool:
    """Does another line of the paragraph of the set stated at `start` open with a set's label
    (`Set 2: [45, 17, 23, 0; 62, 11]`, a value no list reader reads)? Then the two state a
    problem, as two readable sets do."""
    line = text.rfind("\n", 0, start) + 1
    before = PARAGRAPH.search(text[max(0, line - 400) : line][::-1])
    lo = line - before.start() if before else max(0, line - 400)
    after = PARAGRAPH.search(text, start, start + 400)
    hi = after.start() if after else min(len(text), start + 400)
    return any(label.start() != line for label in _SET_LABEL.finditer(text, lo, hi))


def _same_paragraph(text: str, one: int, other: int) -> bool:
    return PARAGRAPH.search(text, min(one, other), max(one, other)) is None


def int_list_candidates(text: str) -> list[tuple[int, int, list[int], bool]]:
    """(start, end, numbers, complete) for every way the reply may hold a list of integers."""
    found: list[tuple[int, int, list[int], bool]] = []
    for match in _LIST.finditer(text):
        items = _items(match.group(1))
        if items is not None and not _subscript(text, match.start()):
            found.append((match.start(), match.end(), items, True))
    cut = _OPEN.search(text)
    if cut:
        items = _items(cut.group(1))
        if items:
            found.append((cut.start(), cut.end(), items, False))
    for match in _BARE_LINE.finditer(text):
        if match.group("close") and not _stray(text, match.start(), match.group("close")):
            continue  # the last line of a list or a call spread over lines: read as that
        numbers = [int(t) for t in _INT_TOKEN.findall(match.group(1))]
        found.append((match.start(1), match.end(1), numbers, True))
    found.extend(_numbered(text))
    single = None if found else _SINGLE.fullmatch(text)
    if single:
        found.append((single.start(1), single.end(1), [int(single.group(1))], True))
    elif not any(start == 0 for start, *_ in found):
        opening = _OPENING_NUMBER.match(text)
        if opening:
            found.append((opening.start(1), opening.end(1), [int(opening.group(1))], True))
    return found


def _stray(text: str, line: int, closing: str) -> bool:
    """Is the `closing` bracket ending the line at `line` stray: no bracket of its kind left
    open before the line (`16, 25}` alone; not the last line of `[0, 1,\n 2, 3]`)?"""
    opened = text.rfind(_OPENER[closing], 0, line)
    return opened < 0 or text.rfind(closing, opened, line) >= 0


def _subscript(text: str, start: int) -> bool:
    """`nums[0]`, `List[]`, `f(x)[1]`: an index or a type, not a list literal."""
    return start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_)]")


def _numbered(text: str) -> list[tuple[int, int, list[int], bool]]:
    """Runs of two or more lines `1. 5`, `2) 7`, `- 9`: one number per line."""
    runs: list[tuple[int, int, list[int], bool]] = []
    start, values, last_index, last_end = -1, [], 0, 0
    for match in _NUMBERED.finditer(text + "\n"):
        index, value = match.group("index"), int(match.group("value"))
        gap = text[last_end : match.start()]
        adjacent = start >= 0 and not gap.strip() and gap.count("\n") == 1
        follows = index is None or (index.isdigit() and int(index) == last_index + 1)
        if adjacent and follows:
            values.append(value)
        else:
            if len(values) >= 2:
                runs.append((start, last_end, values, True))
            start, values = match.start(), [value]
        last_index = int(index) if index and index.isdigit() else 0
        last_end = match.end()
    if len(values) >= 2:
        runs.append((start, last_end, values, True))
    return runs


def _items(body: str) -> list[int] | None:
    body = body.strip()
    if not body:
        return []
    fast = _int_array("[" + body + "]")  # the common case, at C speed: plain integers
    if fast is not None:
        return fast
    tokens = [tok.strip().strip("'\"") for tok in re.split(r"[,\s]+", body) if tok.strip()]
    if not all(_INT.fullmatch(tok) for tok in tokens):
        return _annotated(body)
    try:
        return [int(tok.split(".")[0]) for tok in tokens]
    except ValueError:  # a number too long to be an integer here: not a usable list
        return None


# An item with a note of its own after it (`49 (from Set 1)`): the number is the item.
_ANNOTATED_ITEM = re.compile(
    r"\s*([+-]?\d{1,40})\s*(\((?=[^()\[\]\n]{0,40}[A-Za-z])[^()\[\]\n]{1,40}\))?\s*"
)


def _annotated(body: str) -> list[int] | None:
    """A list whose items carry notes in words (`[49 (from Set 1), 67 (from Set 2)]`): its
    numbers, as a careful reader reads it; None unless every item is a number, at least one
    with a note (`[2 (6), 9]`, a number in parentheses, is no such note)."""
    matches = [_ANNOTATED_ITEM.fullmatch(item) for item in body.split(",")]
    if not all(matches) or not any(m.group(2) for m in matches if m):
        return None
    return [int(m.group(1)) for m in matches if m]


def _int_array(text: str) -> list[int] | None:
    """`text` read as one JSON array of integers only (not bools, floats), else None."""
    fast = _json_array(text)
    if fast is not None and set(map(type, fast)) <= {int}:
        return cast(list[int], fast)  # the check above proves it
    return None


def _json_array(text: str) -> list[object] | None:
    """`text` read as one JSON array, as `json.loads` reads it, or None where that raises a
    `ValueError` (not JSON, an integer beyond Python's 4,300-digit limit) or reads no array.
    The C scanner `json.loads` runs, called without its wrappers: a third of a plain reply's
    reading went to them."""
    try:
        value, end = _SCAN(text, 0)
    except (StopIteration, ValueError):
        return None
    return value if end == len(text) and type(value) is list else None


def _json_object(text: str) -> dict[str, Any]:
    """`text` (from its first brace to its last) read as `json.loads` reads it: the scanner
    alone (`_json_array`), a `ParseError` for what is not one JSON object. Other errors
    (an integer beyond Python's 4,300-digit limit, nesting past the stack) rise as they would
    from `json.loads`."""
    try:
        value, end = _SCAN(text, 0)
    except (StopIteration, json.JSONDecodeError):
        value, end = None, -1
    if end != len(text) or type(value) is not dict:
        raise ParseError("the split answer is not valid JSON")
    return cast(dict[str, Any], value)


def error_scope(expected: list[int], output: list[int]) -> Score:
    """The paper's error scope with error strings a model can act on."""
    if len(output) == len(expected) and output == sorted(expected):
        return _PERFECT  # the usual answer, told at C speed: sorted, so no pairs to walk
    errors: list[str] = []
    inversions = [(i, a, b) for i, (a, b) in enumerate(pairwise(output)) if a > b]
    for i, a, b in inversions[:MAX_LISTED_ORDER_ERRORS]:
        errors.append(f"{a} before {b} at positions {i + 1}-{i + 2}")
    if len(inversions) > MAX_LISTED_ORDER_ERRORS:
        errors.append(f"and {len(inversions) - MAX_LISTED_ORDER_ERRORS} more pairs out of order")
    want, have = Counter(expected), Counter(output)
    deviation = 0
    for value in sorted(want.keys() | have.keys()):
        diff = want[value] - have[value]
        deviation += abs(diff)
        if diff > 0:
            errors.append(f"missing {_count(diff, value)}")
        elif diff < 0:
            errors.append(_count(-diff, value, extra=True))
    return Score(float(len(inversions) + deviation), tuple(errors))


def _count(n: int, value: int, extra: bool = False) -> str:
    word = _WORDS[n] if n < len(_WORDS) else str(n)
    noun = f"{value}" if n == 1 else f"{value}s"
    return f"{word} extra {noun}" if extra else f"{word} {noun}"
