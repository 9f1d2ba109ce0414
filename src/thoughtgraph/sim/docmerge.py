"""The simulated model on document-merging prompts, including the scorer's.

A merge is the ideal merge of `tasks/clauses.py` (every clause once), with slips: lose a clause
or say one again. The scorer measures redundancy and retention with the same clause overlap and
adds Gaussian noise (standard deviation `SCORE_NOISE` points at error 1), rounded to whole
numbers as models write them. The length of a merge is its number of clauses.
"""

from __future__ import annotations

import random
import re

from thoughtgraph.sim.jobs import Job, Slips, is_cot
from thoughtgraph.tasks.clauses import clauses, measures, merge_clauses

SCORE_NOISE = 1.0
_DOCS = re.compile(r"<Doc\d+>\s*(.*?)\s*</Doc\d+>", re.DOTALL)
_MERGED = re.compile(r"<Merged>(.*?)(?:</Merged>|$)", re.DOTALL)
_NEXT = r"(?=; add the missing|; remove the repeated|; and \d+ more|$)"
_ADD = re.compile(r'add the missing clause "(.*?)"' + _NEXT, re.DOTALL)
_REMOVE = re.compile(
    r'remove the repeated clause "(.*?)" \(it repeats "(.*?)"\)' + _NEXT, re.DOTALL
)


def read(prompt: str, found: dict[str, str]) -> Job | None:
    docs = _DOCS.findall(found.get("documents", "") or found.get("part", ""))
    if "<Redundancy>" in prompt and docs and "S" in found:
        return _score(docs, found["S"].strip())
    if "part" in found and docs:
        return _merge("part", docs)
    if "a" in found and "b" in found:
        return _merge("merge", [_text(found["a"]), _text(found["b"])])
    if "result" in found:
        return _job(
            "refine", apply_fixes(list(clauses(_text(found["result"]))), found.get("errors", ""))
        )
    if not docs:
        return None
    if "versions" in found:
        return _merge("merge", docs)
    return _merge("fix" if "S" in found else "cot" if is_cot(prompt) else "solve", docs)


def _text(body: str) -> str:
    found = _MERGED.findall(body)
    return (found[-1] if found else body).strip()


def _merge(kind: str, texts: list[str]) -> Job:
    return _job(kind, merge_clauses(texts), steps=kind == "cot")


def _job(kind: str, truth: list[str], steps: bool = False) -> Job:
    def write(slips: Slips, rng: random.Random, _error: float) -> str:
        body = "\n".join(slip_clauses(truth, slips, rng))
        lead = (
            "I grouped the clauses that say the same thing and kept one of each.\n"
            if steps
            else "Here is the merged NDA.\n"
            if rng.random() < 0.2
            else ""
        )
        return f"{lead}<Merged>\n{body}\n</Merged>"

    return Job("doc-merge", kind, len(truth), write)


def slip_clauses(truth: list[str], slips: Slips, rng: random.Random) -> list[str]:
    out = list(truth)
    for _ in range(slips.count):
        if not out:
            break
        i = rng.randrange(len(out))
        move = slips.mix.pick(rng, ("drop", "repeat"))
        if move == "drop":
            out.pop(i)
        elif move == "repeat":
            out.insert(rng.randrange(i, len(out)) + 1, out[i])  # said again, later
    return out


def _score(docs: list[str], merged: str) -> Job:
    redundancy, retention = measures(docs, _text(merged))

    def write(_slips: Slips, rng: random.Random, error: float) -> str:
        noisy = [
            min(10, max(0, round(v + rng.gauss(0, SCORE_NOISE * error))))
            for v in (redundancy, retention)
        ]
        return (
            f"The merged NDA repeats some clauses and leaves some out.\n"
            f"<Redundancy>{noisy[0]}</Redundancy>\n<Retained>{noisy[1]}</Retained>"
        )

    return Job("doc-merge", "score", 0, write)


def apply_fixes(items: list[str], errors: str) -> list[str]:
    """Act on the code check's errors: add the clauses it says are missing, drop repeats."""
    fixed = list(items)
    for match in _ADD.finditer(errors):
        fixed.append(match.group(1))
    for match in _REMOVE.finditer(errors):
        same = [i for i, c in enumerate(fixed) if c == match.group(1)]
        if same and len(same) + sum(c == match.group(2) for c in fixed) > 1:
            fixed.pop(same[-1])
    return fixed
