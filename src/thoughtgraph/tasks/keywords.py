"""Keyword counting: the paper's third use case (section 5.3): how often is each country named?

The problem is a text kept as its sentences, so code can split it into passages of whole
sentences (or one sentence each, the paper's GoTx). An answer is a dictionary country -> count;
a merge adds two dictionaries. Score: the sum over countries of |counted - true|, where the true
counts come from `countries.count_countries` on the text the thought answers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from thoughtgraph.errors import InputError
from thoughtgraph.tasks.answers import (
    EMPTY_BODY,
    LABEL,
    Candidate,
    alone_on_line,
    choose_in,
    conditional,
    in_code,
    in_other_input,
    instruction_words,
    labelled,
    other_input_spans,
    printer,
    tagged,
)
from thoughtgraph.tasks.base import BaseTask, FirstNumberScore, ParseError
from thoughtgraph.tasks.countries import COUNTRIES, as_written, canonical, count_countries, folded
from thoughtgraph.tasks.keywords_prompts import PROMPTS
from thoughtgraph.tasks.score import Score

_OBJECT = re.compile(r"\{([^{}]*)\}")
_ONLY_EMPTY = re.compile(r"\s*(?:```\w*\s*)?\{\s*\}\s*(?:```)?\s*")
_OPEN_OBJECT = re.compile(r"\{([^{}]*)\Z")  # an object the token limit cut off
# A count is a whole number (`2` or `2.0`): `2.5` is none (read as 2, a wrong answer could
# score as right). A name is at most 60 characters (the longest country has 32): unbounded, every
# letter of a long answer cut off inside `{` started a scan to its end (16k chars: seconds).
_PAIR = re.compile(
    r"""["']?([A-Za-z][^"':{}\[\],\n]{0,60}?)["']?\s*[:=]\s*["']?(\d+)(?:\.0+)?(?!\d|\.\d)"""
)
# A field name in camel case (`ContentTypeId`, `dataType`): no country is spelled so.
_FIELD = re.compile(r"[A-Za-z][a-z]+(?:[A-Z][a-z0-9]+)+")
_LINE_PAIR = re.compile(
    r"(?m)^\s*(?:[-*•]\s*)?([A-Z][A-Za-z .'-]{0,60}?)\s*(?::|-|–)\s*(\d+)[ \t]*[.,;]?[ \t]*$"
)
# "No country is named": said in words (a bare `None` is Python's, not an answer).
_NONE = re.compile(r"(?i)\bno (?:countr(?:y|ies)|country names?)\b(?! other)|\A\s*none\.?\s*\Z")
# A line restating the text to count in (`Text: ...`): the model's own when not the prompt's.
_TEXT_LINE = re.compile(r"(?im)^[ \t>*]*(?:text|input|sentence)[ \t]*:[ \t]*(\S.{0,39})")
_END = re.compile(r"[.!?]+[\"')\]]*\s*")
_START = re.compile(r"[\"'(\[]?[A-Z0-9]")
_LAST_WORD = re.compile(r"(\w+)$")
_KNOWN = frozenset(COUNTRIES)
_ECHO_SPAN = 16  # characters each side of a "no country" that, found in the prompt, echo it
_WINDOW = 32  # longer than any abbreviation: a longer word cut at the window is still no match
_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "st", "vs", "etc", "inc", "ltd", "co", "jr", "sr"}


def split_sentences(text: str) -> tuple[str, ...]:
    """Sentences of a text: a cut after . ! or ? (and closing quotes) before a capital or a digit,
    except after a one-letter initial (`U.S.`) or a common abbreviation (`Mr.`)."""
    pieces, start = [], 0
    for match in _END.finditer(text):
        if not _START.match(text, match.end()):
            continue
        # the word before the stop, found in a short window: searching the whole text before
        # each stop made splitting quadratic (256 KB took minutes)
        word = _LAST_WORD.search(text, max(0, match.start() - _WINDOW), match.start())
        if word and (
            (len(word.group(1)) == 1 and word.group(1).isupper())
            or word.group(1).lower() in _ABBREVIATIONS
        ):
            continue
        pieces.append(text[start : match.end()].strip())
        start = match.end()
    pieces.append(text[start:].strip())
    return tuple(p for p in pieces if p)


class KeywordCountingTask(FirstNumberScore, BaseTask[tuple[str, ...], dict[str, int]]):
    """Count how many times each country is named in a text."""

    name = "keyword-counting"
    part_size = 4  # sentences per passage in the spec's `got`
    prompts = PROMPTS

    def parse_input(self, raw: object) -> tuple[str, ...]:
        if isinstance(raw, str):
            sentences = split_sentences(raw.strip())
        elif isinstance(raw, list | tuple) and all(isinstance(s, str) for s in raw):
            sentences = tuple(s.strip() for s in raw if s.strip())
        else:
            raise InputError(f"the input must be a text, got {type(raw).__name__}")
        if not sentences:
            raise InputError("the text is empty: give at least one sentence")
        return sentences

    def describe(self, problem: tuple[str, ...]) -> str:
        return (
            f"Count how many times each country is named in a text of {len(problem)} sentences: "
            "give every country named at least once with the number of times it is named, "
            "spelled as in the text."
        )

    def format(self) -> str:
        return 'a JSON object mapping each country to its count, such as {"Peru": 2, "Chile": 1}'

    def render(self, value: tuple[str, ...] | dict[str, int]) -> str:
        if isinstance(value, dict):
            return json.dumps(value)
        if isinstance(value, list | tuple):
            return " ".join(value)
        return str(value)

    def parse(self, text: str) -> dict[str, int]:
        return parse_counts(text, self.format(), places=True)

    def parse_reply(
        self, text: str, problem: tuple[str, ...] | None, prompt: str
    ) -> dict[str, int]:
        """`parse`, knowing the prompt: a dictionary that only repeats one of the prompt's
        examples is an echo (tasks/answers.py)."""
        return parse_counts(text, prompt or self.format(), places=True)

    def score(self, problem: tuple[str, ...], content: dict[str, int]) -> Score:
        return count_errors(self.render(problem), content)

    def matches_reference(
        self,
        problem: tuple[str, ...],
        content: dict[str, int] | None,
        reference: dict[str, int] | None = None,
    ) -> bool | None:
        """Equal counts under our spelling of each country: the answer keeps the model's
        (`{"egypt": 2}`), the check reads it as the score does (`count_errors`)."""
        if reference is None:
            return None
        return content is not None and folded(content) == folded(reference)

    def score_unparsed(self, problem: tuple[str, ...], reason: str) -> Score:
        return Score(float(sum(self.reference(problem).values()) + 1), (reason,))

    def join_answers(self, counts: list[dict[str, int]]) -> dict[str, int]:
        """Counts of passages, added in code: what a merge does, for when every merge failed."""
        total: dict[str, int] = {}
        for answer in counts:
            for country, count in answer.items():
                total[country] = total.get(country, 0) + count
        return total

    def reference(self, problem: tuple[str, ...]) -> dict[str, int]:
        return count_countries(self.render(problem))

    def parse_split(self, text: str, parts: int) -> list[tuple[str, ...]]:
        """The model's passages: a JSON object of strings ("Passage 1": "...", ...), in order."""
        passages = _json_strings(text)
        if len(passages) != parts:
            raise ParseError(f"the split answer does not hold {parts} passages")
        return [split_sentences(p) for p in passages]


def _json_strings(text: str) -> list[str]:
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if not match:
        raise ParseError("the split answer holds no JSON object")
    try:
        data = json.loads(match.group(0), strict=False)
    except json.JSONDecodeError:
        pairs = re.findall(r'"[^"]*"\s*:\s*"((?:[^"\\]|\\.)*)"', match.group(0))
        if not pairs:
            raise ParseError("the split answer is not valid JSON") from None
        return [json.loads(f'"{p}"', strict=False) for p in pairs]
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ParseError("the split answer must map names to passages of text")
    return list(data.values())


def parse_counts(text: str, prompt: str = "", *, places: bool = False) -> dict[str, int]:
    """A model's count dictionary, chosen among the reply's candidates by the rule of
    `tasks.answers`: JSON or JSON-like objects, one cut off at the end of the reply, and runs of
    `Country: 2` lines. A dictionary that repeats one in `prompt` (the format example, a
    few-shot example) is an echo; one that a reply asking for its input restates is no answer.
    Repeated keys are added up (a model that lists a country twice has counted both); keys and
    counts are kept as written (`{"peru": 2}` is what the reply says: the score and the check
    read `peru` as `Peru`, `count_errors`; the reading does not), a count of 0 too
    (`"Saudi Arabia": 0`, which the score and the check read as naming nothing)."""
    if not isinstance(text, str):
        raise ParseError("the answer is not text")
    echoes = [  # under our spelling: the format example given back lower-cased is an echo too
        folded(c)
        for c in (_counts(_PAIR.findall(m.group(1))) for m in _OBJECT.finditer(prompt))
        if c
    ]
    own = tagged(prompt)
    statements = [  # `Text: ...` lines: the prompt's text restated, or a text made up
        (m.start(), not own or m.group(1).strip() in own) for m in _TEXT_LINE.finditer(text)
    ]
    others = other_input_spans(text, statements, prompt)
    elsewhere = _printed_elsewhere(text, own)
    candidates = []
    for start, end, value, complete in _count_candidates(text, places):
        echo = bool(value) and folded(value) in echoes
        candidates.append(
            Candidate(
                value,
                start,
                complete=complete,
                labelled=labelled(text, start),
                code=in_code(text, start, end),
                echo=echo,
                other_input=in_other_input(others, text, start, prompt, echo)
                or elsewhere(start)
                or (bool(value) and all(instruction_words(k, prompt) for k in value)),
                end=end,
            )
        )
    best = choose_in(text, candidates, prompt)
    if best is not None:
        return dict(best.value)
    if _says_none(text, prompt):
        return {}
    if "{" in text:
        raise ParseError("the answer's dictionary holds no country: count pairs")
    raise ParseError("the answer contains no dictionary of country counts")


_QUOTED = 24  # characters of a sentence of the text that, inside a program, quote it


def _printed_elsewhere(text: str, own: str) -> Callable[[int], bool]:
    """Is the candidate at a position what a program prints (`answers.printer`) when the
    program quotes no sentence of the prompt's text (`own`)? Then it counts data of its own
    (the format example's `{"Peru": 2, "Chile": 1}` in a string), and its output is for
    another input. A program quoting the text still answers; without the text, or without a
    program, nothing is set aside (a plain reply pays nothing)."""
    if not own or ("```" not in text and "<code" not in text.lower()):
        return lambda start: False
    openings = [s[:_QUOTED] for s in split_sentences(own) if len(s) >= _QUOTED]

    def printed(start: int) -> bool:
        span = printer(text, start)
        return span is not None and not any(o in text[span[0] : span[1]] for o in openings)

    return printed


def _says_none(text: str, prompt: str) -> bool:
    """Does the reply say that no country is named, in its own words? Not inside code (`# no
    countries found`), not asked in a condition ("check whether the text names no country"),
    nor in words echoed from the prompt: a retry's `<errors>the answer's dictionary holds no
    country: count pairs</errors>` copied back is the prompt's line, quoted or not (a quotation
    mark breaks one side, so the words on either side found in the prompt echo it)."""
    lowered = prompt.lower()
    return any(
        not in_code(text, m.start())
        and not conditional(text, m.start())
        and not _echoed(text, m.start(), m.end(), lowered)
        for m in _NONE.finditer(text)
    )


def _echoed(text: str, start: int, end: int, prompt: str) -> bool:
    """Are the phrase at `start:end` and the _ECHO_SPAN characters before it, or after it, in
    the (lower-cased) prompt? A side shorter than the span (the reply's start or end) tells
    nothing: "No country is named." opening a reply is the model's own."""
    before = start >= _ECHO_SPAN and text[start - _ECHO_SPAN : end].lower() in prompt
    after = end + _ECHO_SPAN <= len(text) and text[start : end + _ECHO_SPAN].lower() in prompt
    return before or after


def _empty_answer(text: str, match: re.Match[str]) -> bool:
    """Is this `{}` (or `{"None"}`: none named) an answer ("no country named") rather than
    code (`f"{i} {}"`, `x = {}`)? Only when it is labelled, is the whole reply or stands on a
    line of its own (code on its line or in a program is told apart later, as for every
    candidate)."""
    if not EMPTY_BODY.fullmatch(match.group(1)):
        return False
    return (
        labelled(text, match.start())
        or _ONLY_EMPTY.fullmatch(text) is not None
        or alone_on_line(text, match.start(), match.end())
    )


def _count_candidates(text: str, places: bool) -> list[tuple[int, int, dict[str, int], bool]]:
    """(start, end, counts, complete) for every object naming places and every run of
    `Country: N` lines. An object whose keys are no place (`{"count": 2}`, `{"id": 1}`) is data
    about something else: no candidate, unless the model labels it its answer (`Output:
    {"country": 1}`, a wrong answer, still an answer) (with `places`: counts of countries; a
    task counting other things takes every key). An object naming a place keeps every key."""
    keep = _places if places else _every
    found: list[tuple[int, int, dict[str, int], bool]] = []
    for match in _OBJECT.finditer(text):
        start, end = _unescaped(text, match.start(), match.end())
        if _nested(text, start):  # a field of a made-up structure, not the counts
            continue
        pairs = _PAIR.findall(match.group(1))
        if pairs and (keep(pairs) or labelled(text, start)):
            found.append((start, end, _counts(pairs), True))
        elif not pairs and _empty_answer(text, match):
            found.append((match.start(), match.end(), {}, True))
    cut = _OPEN_OBJECT.search(text)
    if cut and _nested(text, cut.start()):
        cut = None
    if cut and keep(_PAIR.findall(cut.group(1))):
        found.append((cut.start(), cut.end(), _counts(_PAIR.findall(cut.group(1))), False))
    run_start, run_end = -1, -1
    run_pairs: list[tuple[str, str]] = []
    for match in _LINE_PAIR.finditer(text):
        if run_start >= 0 and text[run_end : match.start()].count("\n") <= 1:
            run_pairs.append((match.group(1), match.group(2)))
        else:
            if keep(run_pairs):
                found.append((run_start, run_end, _counts(keep(run_pairs)), True))
            run_start, run_pairs = match.start(), [(match.group(1), match.group(2))]
        run_end = match.end()
    if keep(run_pairs):
        found.append((run_start, run_end, _counts(keep(run_pairs)), True))
    return found


def _nested(text: str, start: int) -> bool:
    """Is the object opening at `start` inside another one (more `{` than `}` before it), or an
    element of a list open in its paragraph (more `[` than `]`)? A count object nested in a
    made-up structure (`{"output": {"Chile": 2}}`, `data = [{"China": 2}, {"Italy": 3}]`) is a
    piece of it, not the counts (braces doubled around it are its own: `_unescaped`)."""
    if text.count("{", 0, start) > text.count("}", 0, start):
        return True
    para = max(text.rfind("\n\n", 0, start), 0)
    return text.count("[", para, start) > text.count("]", para, start)


def _unescaped(text: str, start: int, end: int) -> tuple[int, int]:
    """The object's span with doubled braces around it (`{{"USA": 2}}`, a format string's
    escaping copied) taken as its own: one brace, not an object nesting it."""
    if text[start - 1 : start] == "{" and text[end : end + 1] == "}":
        return start - 1, end + 1
    return start, end


def _every(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return pairs


def _places(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The pairs whose name could be a place: a country we know, or a capitalised name (a
    model may count a region or misspell a country: a wrong answer, still an answer). A
    lower-case key (`count`, `total`, `country_name`) names a field, not a place: an object of
    such keys alone is data about something else, unless the model labels it its answer. An
    object naming a place is read whole, every key as written (`"country": 1` beside
    `"Peru": 2` is part of the answer: dropping it would score the answer better than it is).
    A name in camel case (`ContentTypeId`, `CategoryId`) is a field too: no place is written
    so. An answer label (`The answer is: 2`, `Output: 3`) names no place: a number so labelled
    counts nothing."""
    return [
        (n, c)
        for n, c in pairs
        if canonical(n) in _KNOWN
        or (
            n.strip()[:1].isupper()
            and not _FIELD.fullmatch(n.strip())
            and not LABEL.search(n + ":")
        )
    ]


def _counts(pairs: list[tuple[str, str]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name, number in pairs:
        key = as_written(name)
        counts[key] = counts.get(key, 0) + int(number)
    return counts


def count_errors(text: str, counted: dict[str, int]) -> Score:
    """Sum over countries of |counted - true|, with errors a model can act on. The counts are
    read under our spelling of each country (`folded`: `peru` is `Peru`, `the Netherlands`
    `Netherlands`)."""
    truth = count_countries(text)
    counted = folded(counted)
    errors: list[str] = []
    total = 0
    for country in [*truth, *(c for c in counted if c not in truth)]:
        want, have = truth.get(country, 0), counted.get(country, 0)
        if want == have:
            continue
        total += abs(want - have)
        if want == 0:
            errors.append(f"{country} is not named in the text: remove it")
        elif have == 0:
            errors.append(f"{country} is named {_times(want)} but is missing")
        else:
            errors.append(f"{country} is named {_times(want)}, not {have}")
    return Score(float(total), tuple(errors))


def _times(n: int) -> str:
    return "1 time" if n == 1 else f"{n} times"
