"""Document merging: the paper's fourth use case (section 5.4): four overlapping NDAs into one.

No code can tell whether a merged contract keeps the *meaning* of its sources, so the paper
scores a merge with the model: redundancy (0-10, 10 = nothing said twice) and retention (0-10,
10 = everything kept), each sampled 3 times and averaged, combined by their harmonic mean;
higher is better. `combine_scores` implements that rule for the `score` op's model scorer.

`score` (the code check every thought gets) is a lexical proxy (`clauses.py`): source clauses
no clause of the merge covers, plus clauses that repeat an earlier one. It lets the spec's `got`
run (its loops need an error count, lower is better), but it sees words, not meaning; the
paper-style graphs (`io`, `cot`, `tot`, `got_paper` for this task) rank thoughts by the model's
score instead.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from thoughtgraph.errors import InputError
from thoughtgraph.io.strictload import RefusedDocument, read_json
from thoughtgraph.tasks import clauses as lexical
from thoughtgraph.tasks.answers import Candidate, choose, labelled
from thoughtgraph.tasks.base import BaseTask, ParseError, unrated
from thoughtgraph.tasks.clauses import clauses, covers, merge_clauses, missing, repeats
from thoughtgraph.tasks.docmerge_prompts import PROMPTS
from thoughtgraph.tasks.score import Score

_MERGED = re.compile(r"<merged>(.*?)(?:(</merged>)|\Z)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?P<language>[\w+-]*)\s*\n?(.*?)```", re.DOTALL)
# A fence in a programming or markup language holds code, whatever its lines say (```html
# `<nda_create ajax?`): a contract is prose, fenced bare or as text or markdown.
_CODE_LANGUAGES = frozenset(
    {"html", "xml", "css", "javascript", "js", "typescript", "ts", "python", "py", "java", "c"}
    | {"cpp", "csharp", "go", "rust", "ruby", "php", "bash", "sh", "shell", "sql", "json", "yaml"}
)
# The reply presenting its document on a line of its own ("Here's the NDA:", "Here is the merged
# agreement:"): with no <Merged> block or fence, what follows is the merge, not the words before.
_PRESENTED = re.compile(
    r"(?im)^[ \t*]*here(?:'s|\s+is)\b[^\n:]{0,60}?\b(?:nda|agreement|document|merge)s?\b"
    r"[^\n:]{0,30}:[ \t*]*$"
)
_OUTPUT = re.compile(r"(?i)^\s*(?:output|merged nda|answer)\s*:\s*")
_DOCS = re.compile(r"<Doc\d+>\s*(.*?)\s*</Doc\d+>", re.DOTALL)
_NUMBER = r"\d+(?:\.\d+)?"
_WORD = re.compile(r"[A-Za-z]{2,}")
_TAG = re.compile(r"</?\w+>")
# The prompt's inputs (the documents, a part, the versions, the previous merge, a retry's errors,
# which quote clauses of the documents), each opened at a line's start (the instruction names
# the tags in words: "the NDA documents in <documents>"): what is left is the instruction.
_INPUTS = re.compile(
    r"^[ \t]*<(documents|Doc\d+|part|S|versions|errors|a|b|original|current)>.*?</\1>",
    re.DOTALL | re.MULTILINE,
)
# A line only a program has (contract prose says "return" and "=", but not at a line's start
# in lower case, after a Python name).
_PROGRAM = re.compile(
    r"(?m)^[ \t]*(?:def \w+\(|class \w+|import \w|from [\w.]+ import |print\(|return\b|"
    r"[a-z_]\w*[ \t]*=[^=])"
)
MAX_LISTED_ERRORS = 20
RESTATED_WORDS = 5


class DocMergeTask(BaseTask[tuple[str, ...], str]):
    """Merge several overlapping NDAs into one that keeps everything and says it once."""

    name = "doc-merge"
    score_name = "lexical errors (a proxy: the model scores the merge)"
    rating_scale = 10
    rating_note = (
        "the paper's Figure 8 measure: the model rates the final merge for redundancy and "
        "retention (3 samples each, averaged), combined by their harmonic mean"
    )
    proxy_name = "lexical proxy errors"
    proxy_note = (
        "the code's word-overlap check (source clauses lost plus clauses said twice, lower is "
        "better); they see words, not meaning"
    )
    part_size = 2  # documents per part in the spec's `got`
    prompts = PROMPTS

    def parse_input(self, raw: object) -> tuple[str, ...]:
        documents = _documents(raw)
        if len(documents) < 1 or not all(d.strip() for d in documents):
            raise InputError("give at least one non-empty document")
        documents = [d.strip() for d in documents]
        for number, document in enumerate(documents, start=1):
            if not clauses(document):  # nothing to merge: the reference merge would be empty
                shown = document if len(document) <= 40 else document[:39] + "…"
                raise InputError(
                    f"document {number} ({shown!r}) holds no clause to merge: each document "
                    "needs at least one sentence of two or more content words"
                )
        return tuple(documents)

    def describe(self, problem: tuple[str, ...]) -> str:
        return (
            f"Merge {len(problem)} NDA documents into a single NDA that keeps every piece of "
            "information they contain and states each piece only once."
        )

    def format(self) -> str:
        return "the merged NDA as plain text between the tags <Merged> and </Merged>"

    def render(self, value: tuple[str, ...] | str) -> str:
        if isinstance(value, list | tuple):
            return "\n".join(f"<Doc{i}>\n{doc}\n</Doc{i}>" for i, doc in enumerate(value, 1))
        return str(value)

    def join(self, problems: list[tuple[str, ...]]) -> tuple[str, ...]:
        """The documents of all the problems, each once, in order (merges of alternative
        answers to the same documents do not double them)."""
        return tuple(dict.fromkeys(doc for problem in problems for doc in problem))

    def parse(self, text: str) -> str:
        return parse_document(text, self.format())

    def parse_reply(self, text: str, problem: tuple[str, ...] | None, prompt: str) -> str:
        """`parse`, knowing the prompt: a block that only repeats the prompt is an echo."""
        return parse_document(text, prompt or self.format())

    def score(self, problem: tuple[str, ...], content: str) -> Score:
        return clause_errors(problem, content)

    def score_unparsed(self, problem: tuple[str, ...], reason: str) -> Score:
        return Score(float(len(merge_clauses(problem)) + 1), (reason,))

    def reference(self, problem: tuple[str, ...]) -> str:
        """One ideal merge under the lexical proxy (not the only right answer)."""
        return "\n".join(merge_clauses(problem))

    def parse_score(self, text: str) -> float:
        """One scorer answer -> the harmonic mean of its two numbers."""
        redundancy, retention = parse_two_scores(text)
        return harmonic(redundancy, retention)

    def combine_scores(self, texts: list[str]) -> Score:
        """The paper's rule: average each score over the samples, then the harmonic mean."""
        pairs = []
        for text in texts:
            try:
                pairs.append(parse_two_scores(text))
            except ParseError:
                continue
        if not pairs:
            return unrated(texts)
        redundancy = sum(p[0] for p in pairs) / len(pairs)
        retention = sum(p[1] for p in pairs) / len(pairs)
        note = (
            f"model score: redundancy {redundancy:.1f}/10 (10: nothing said twice), "
            f"retention {retention:.1f}/10 (10: everything kept), over {len(pairs)} samples"
        )
        return Score(harmonic(redundancy, retention), (note,))


def _documents(raw: object) -> list[str]:
    """A list of documents, {"documents": [...]}, their JSON, <DocN> blocks or `---` lines."""
    if isinstance(raw, str):
        text = raw.strip()
        if text.startswith(("[", "{")):
            try:
                raw = read_json(text)
            except RefusedDocument as exc:  # nested too deeply, a number too long
                raise InputError(f"the input cannot be read: {exc}") from None
            except json.JSONDecodeError:
                raise InputError("the input looks like JSON but is not valid JSON") from None
        elif _DOCS.search(text):
            return _DOCS.findall(text)
        else:
            return [d for d in re.split(r"(?m)^\s*-{3,}\s*$", text) if d.strip()]
    if isinstance(raw, dict):
        raw = raw.get("documents")
    if not isinstance(raw, list | tuple) or not all(isinstance(d, str) for d in raw):
        raise InputError('the input must be a list of documents (strings) or {"documents": [...]}')
    return list(raw)


def parse_document(text: str, prompt: str = "") -> str:
    """The merged document, chosen among the reply's candidates by the rule of `tasks.answers`:
    each <Merged> block (one left open by the token limit counts, as cut off), each fenced
    block that is not a program, each holding at least a word; the whole reply only when there
    is neither. A candidate found
    verbatim in `prompt` (a document copied, the words between the format's tags) is an
    echo."""
    if not isinstance(text, str):
        raise ParseError("the answer is not text")
    candidates, blocks = [], _document_candidates(text)
    for start, body, complete, language in blocks:
        body = _OUTPUT.sub("", body.strip()).strip()
        if _WORD.search(_TAG.sub("", body)):  # `<Merged>.</Document>` holds no word of its own
            echo = body in prompt
            code = language in _CODE_LANGUAGES or _PROGRAM.search(body) is not None
            candidates.append(
                Candidate(
                    body,
                    start,
                    complete,
                    labelled(text, start),
                    code=code,
                    echo=echo,
                    restated=restates_instruction(body, prompt),
                )
            )
    best = choose(candidates)
    whole = "" if blocks else _OUTPUT.sub("", _presented(text).strip()).strip()
    if whole and restates_instruction(whole, prompt):
        raise ParseError("the answer only restates the instruction: no merged document")
    body = best.value if best is not None else whole
    if not body:
        raise ParseError("the answer holds no merged document")
    return str(body)


def restates_instruction(body: str, prompt: str) -> bool:
    """Is every clause of `body` the prompt's instruction given back (covered by a clause of
    the prompt outside its documents, in other words or a few changed: "Merge 4 NDA documents
    into a single NDA that keeps every piece of information it contains ...")? Then it is the
    task restated, not a merge: a reply with one clause of its own is still its merge attempt.
    So is one whose every clause gives the instruction's order back (`_ordered`). A body of
    fewer than RESTATED_WORDS content words otherwise says too little to tell ("NDA text")."""
    said = clauses(body)
    asked = _instruction(prompt)
    if not said or not asked:
        return False
    if all(any(_ordered(a, c) for a in asked) for c in said):
        return True
    if sum(len(lexical.words(c)) for c in said) < RESTATED_WORDS:
        return False
    return all(any(covers(a, c) for a in asked) for c in said)


def _ordered(instruction: str, clause: str) -> bool:
    """Does `clause` give the instruction's order back: open with its verb ("Merge") and name
    two more of its words ("Merge the NDA documents with this document.")? However it goes on
    ("... that includes only the original NDA"), it tells the reader what to do, it merges
    nothing."""
    verb, opening = instruction.split(None, 1)[0].lower(), clause.split(None, 1)[0].lower()
    shared = lexical.words(instruction) & lexical.words(clause)
    return verb == opening and len(shared - lexical.words(verb)) >= 2


@lru_cache(maxsize=64)
def _instruction(prompt: str) -> tuple[str, ...]:
    """The clauses of the prompt's instruction: the prompt without its inputs (`_INPUTS`)."""
    return clauses(_INPUTS.sub(" ", prompt))


def _document_candidates(text: str) -> list[tuple[int, str, bool, str]]:
    """(start, body, complete, fence language) of each <Merged> block and each fence."""
    found = [(m.start(1), m.group(1), m.group(2) is not None, "") for m in _MERGED.finditer(text)]
    found += [(m.start(2), m.group(2), True, m["language"].lower()) for m in _FENCE.finditer(text)]
    return found


def _presented(text: str) -> str:
    """The reply from the line presenting its document on ("Here's the NDA:"), the last such
    line with words after it; the whole reply when it has none (a reply ending on "Here is a
    copy of the document:" presents nothing, and its words so far are its attempt)."""
    last = None
    for found in _PRESENTED.finditer(text):
        if _WORD.search(text, found.end()):
            last = found
    return text if last is None else text[last.end() :]


def parse_two_scores(text: str) -> tuple[float, float]:
    """(redundancy, retention) from a scorer's answer: tags first, then `Redundancy: 7` lines."""
    values = []
    for tag, words in (("Redundancy", "redundan"), ("Retained", "retain|retention")):
        found = (
            re.findall(rf"<{tag}>\s*(-?{_NUMBER})", text, re.IGNORECASE)
            # the word's ending is bounded (`\w{0,20}`): unbounded, a reply of one long word
            # was read in quadratic time
            or re.findall(rf"(?i)(?:{words})\w{{0,20}}[^:\n]{{0,40}}:\s*(-?{_NUMBER})", text)
            or re.findall(rf"(?i)(?:{words})\w{{0,20}}[^0-9\n]{{0,30}}?({_NUMBER})", text)
        )
        if not found:
            raise ParseError(f"the score answer holds no {tag.lower()} score")
        values.append(min(10.0, max(0.0, float(found[-1]))))
    return values[0], values[1]


def harmonic(a: float, b: float) -> float:
    return 0.0 if a + b == 0 else 2 * a * b / (a + b)


def clause_errors(documents: tuple[str, ...] | list[str], merged: str) -> Score:
    """The lexical proxy as an error count: clauses lost plus clauses said twice."""
    lost = missing(documents, merged)
    twice = repeats(merged)
    errors = [f'add the missing clause "{c}"' for c in lost]
    errors += [f'remove the repeated clause "{c}" (it repeats "{e}")' for c, e in twice]
    if len(errors) > MAX_LISTED_ERRORS:
        errors = [*errors[:MAX_LISTED_ERRORS], f"and {len(errors) - MAX_LISTED_ERRORS} more"]
    return Score(float(len(lost) + len(twice)), tuple(errors))
