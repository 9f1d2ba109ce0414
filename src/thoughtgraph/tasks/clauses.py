"""Clauses and their word overlap: what can be measured about merging documents, in code.

A document is read as clauses (its lines, cut into sentences; list markers and headings that
end in ":" dropped). A clause's *words* are its lower-case content words, crudely stemmed. Clause
`a` is *covered* by clause `b` when most of `a`'s words are in `b`.

- retained: a source clause is retained when some clause of the merge covers it;
- repeated: a clause of the merge repeats an earlier one that covers it;
- the ideal merge (`merge_clauses`) keeps each source clause unless a kept one covers it.

This is a lexical proxy: it sees shared words, not shared meaning, so two clauses that say the
same thing in different words count as different information. The paper scores document merging
with a model instead (see `docmerge.py`); the simulated model and the code check use this proxy.
"""

from __future__ import annotations

import re
from functools import lru_cache

COVER = 0.7  # share of a clause's words another clause must hold to cover it
_MARKER = re.compile(r"^\s*(?:\(?\d+[.)]|\(?[a-z][.)]|[-*•]|#+)\s+")
_SENTENCE = re.compile(r"(?<=[a-z0-9\])\"'][.;!?])\s+(?=[\"'(\[]?[A-Z])")
_WORD = re.compile(r"[a-z0-9$]+(?:[.,][0-9]+)*")
_STOP = frozenset(
    {
        "a",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "by",
        "for",
        "from",
        "has",
        "have",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "other",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "under",
        "upon",
        "was",
        "were",
        "will",
        "with",
        "within",
        "which",
        "who",
        "whom",
        "shall",
        "may",
        "can",
        "all",
        "also",
        "each",
        "per",
    }
)


@lru_cache(maxsize=8192)
def clauses(text: str) -> tuple[str, ...]:
    """The clauses of a text, in order: lines cut into sentences, markers and headings dropped."""
    out = []
    for line in text.splitlines():
        line = _MARKER.sub("", line.strip())
        for sentence in _SENTENCE.split(line):
            sentence = sentence.strip()
            if not sentence or sentence.endswith(":") or len(words(sentence)) < 2:
                continue
            out.append(sentence)
    return tuple(out)


@lru_cache(maxsize=65536)
def words(clause: str) -> frozenset[str]:
    """The content words of a clause, lower case and crudely stemmed."""
    return frozenset(_stem(w) for w in _WORD.findall(clause.lower()) if w not in _STOP)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def covers(big: str, small: str) -> bool:
    """Does clause `big` hold most of the words of clause `small`?"""
    want = words(small)
    return bool(want) and len(want & words(big)) >= COVER * len(want)


def merge_clauses(texts: list[str] | tuple[str, ...]) -> list[str]:
    """The ideal merge: every clause of `texts` in order, unless a clause already kept covers it."""
    kept: list[str] = []
    for text in texts:
        for clause in clauses(text):
            if not any(covers(k, clause) for k in kept):
                kept.append(clause)
    return kept


def missing(sources: list[str] | tuple[str, ...], merged: str) -> list[str]:
    """Source clauses that no clause of the merge covers (each distinct one once)."""
    have = clauses(merged)
    lost: list[str] = []
    for clause in merge_clauses(sources):
        if not any(covers(h, clause) for h in have):
            lost.append(clause)
    return lost


def repeats(merged: str) -> list[tuple[str, str]]:
    """(clause, the earlier clause it repeats) for every clause of the merge that repeats one."""
    seen: list[str] = []
    found = []
    for clause in clauses(merged):
        earlier = next((s for s in seen if covers(s, clause)), None)
        if earlier is None:
            seen.append(clause)
        else:
            found.append((clause, earlier))
    return found


def measures(sources: list[str] | tuple[str, ...], merged: str) -> tuple[float, float]:
    """(redundancy, retention) on the paper's 0-10 scales, higher is better.

    Redundancy 10: nothing is said twice; 0: at least half of the clauses repeat earlier ones.
    Retention 10: every source clause is retained; 0: none is.
    """
    ideal = merge_clauses(sources)
    total = len(clauses(merged))
    repeated = len(repeats(merged))
    redundancy = 10.0 * max(0.0, 1.0 - 2.0 * repeated / total) if total else 0.0
    retention = 10.0 * (1 - len(missing(sources, merged)) / len(ideal)) if ideal else 10.0
    return redundancy, retention
