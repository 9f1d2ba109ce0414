"""How often the parser reads a real reply as a careful person labelled it, by split.

    .venv/bin/python bench/parse_agreement.py [--corpus DIR] [--show]

Reads the hand-labelled replies in tests/fixtures/real_answers/ (each entry's `expected`
answer, or `parse_error: true` when the reply holds no answer, labelled before the parser saw
it) and parses each with its task's `parse_reply`. Entries with a `split` (`tune`: the rules
were shaped with them in view; `heldout`: not looked at while shaping the rules) are counted
per split; older entries count as `older`. Prints, per split: agreement, and the three ways to
disagree: *invented* (no answer in the reply, the parser gave one: the worst, it gets scored),
*missed* (an answer the parser did not find) and *misread* (another answer than the label).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from thoughtgraph.tasks import ParseError, get_task

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real_answers"


def verdict(task_name: str, case: dict[str, Any]) -> tuple[str, Any]:
    """("agree" | "invented" | "missed" | "misread", what the parser gave)."""
    task = get_task(task_name)
    try:
        got: Any = task.parse_reply(case["answer"], None, case["prompt"])
    except ParseError as exc:
        got = f"ParseError: {exc}"
        return ("agree" if case.get("parse_error") else "missed"), got
    if case.get("parse_error"):
        return "invented", got
    return ("agree" if got == case["expected"] else "misread"), got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--show", action="store_true", help="Print every disagreement.")
    args = parser.parse_args()
    counts: dict[str, Counter[str]] = {}
    for path in sorted(args.corpus.glob("*.json")):
        corpus = json.loads(path.read_text())
        for index, case in enumerate(corpus["answers"]):
            split = case.get("split", "older")
            result, got = verdict(corpus["task"], case)
            counts.setdefault(split, Counter())[result] += 1
            counts[split][f"task:{corpus['task']}"] += 1
            if args.show and result != "agree":
                label = "no answer" if case.get("parse_error") else case["expected"]
                print(f"{split} {path.stem}-{index}: {result}: label {label!r}, parser {got!r}")
    print("| split | replies | agree | invented | missed | misread | tasks |")
    print("|---|---|---|---|---|---|---|")
    for split in ("tune", "heldout", "older"):
        c = counts.get(split)
        if not c:
            continue
        total = sum(c[k] for k in ("agree", "invented", "missed", "misread"))
        tasks = ", ".join(
            f"{k.split(':', 1)[1]} {v}" for k, v in sorted(c.items()) if k.startswith("task:")
        )
        print(
            f"| {split} | {total} | {c['agree']} ({100 * c['agree'] / total:.0f}%) "
            f"| {c['invented']} | {c['missed']} | {c['misread']} | {tasks} |"
        )


if __name__ == "__main__":
    main()
