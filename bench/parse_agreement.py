"""How often the parser reads a real reply as a careful person labelled it, by split and source.

    .venv/bin/python bench/parse_agreement.py [--corpus DIR] [--show] [--time] [--splits S,...]
        [--second]

Reads the hand-labelled replies in tests/fixtures/real_answers/ (each entry's `expected`
answer, or `parse_error: true` when the reply holds no answer, labelled before the parser saw
it): SmolLM2-135M's replies to thoughtgraph's own prompts (the folder's *.json) and a sample of
gpt-3.5-turbo's and Llama-3-70B-Instruct's replies from the Tree of Problems release
(`top/*.json`, their prompts rebuilt from the release's templates), and parses each with its
task's `parse_reply`, given the problem where the entry has it. Entries with a `split` (`tune`:
the rules were shaped with them in view; `heldout`: not looked at while shaping the rules) are
counted per split; older entries count as `older`. Prints, per split and source: agreement,
and the three ways to disagree: *invented* (no answer in the reply, the parser gave one: the
worst, it gets scored), *missed* (an answer the parser did not find) and *misread* (another
answer than the label). `--time` also prints the parser's time per reply (best of 5 passes).
`--second` also prints, for the batches labelled a second time, blind and independently
(`second/labels.json`): how the two labellings agree, how the parser agrees with each, and how
it agrees on the replies both labellings read alike; a parser cannot be shown to agree with
careful readers more often than they agree with each other.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from thoughtgraph.tasks import ParseError, get_task

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real_answers"
SPLITS = ("tune", "heldout", "older")
OUTCOMES = ("agree", "invented", "missed", "misread")


def cases(corpus: Path) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(task, source, entry name, entry with its `prompt`) for every labelled reply."""
    for path in sorted(corpus.glob("*.json")) + sorted(corpus.glob("top/*.json")):
        data = json.loads(path.read_text())
        name = path.stem if path.parent == corpus else f"top-{path.stem}"
        for index, case in enumerate(data["answers"]):
            source = case.get("model", "SmolLM2-135M")
            yield data["task"], source, f"{name}-{index}", with_prompt(data, case)


def with_prompt(corpus: dict[str, Any], case: dict[str, Any]) -> dict[str, Any]:
    """The entry with its prompt: given, or its template (`prompt_of`) filled with `fields`."""
    if "prompt" in case:
        return case
    template = corpus["templates"][case["prompt_of"]].strip()
    return {**case, "prompt": template.format(**case["fields"])}


def read(task_name: str, case: dict[str, Any]) -> Any:
    """The parser's reading of the entry's reply (raises ParseError)."""
    task = get_task(task_name)
    problem = task.parse_input(case["input"]) if "input" in case else None
    return task.parse_reply(case["answer"], problem, case["prompt"])


def verdict(task_name: str, case: dict[str, Any]) -> tuple[str, Any]:
    """("agree" | "invented" | "missed" | "misread", what the parser gave)."""
    try:
        got: Any = read(task_name, case)
    except ParseError as exc:
        got = f"ParseError: {exc}"
        return ("agree" if case.get("parse_error") else "missed"), got
    if case.get("parse_error"):
        return "invented", got
    return ("agree" if got == case["expected"] else "misread"), got


def outcome(label: Any, got: Any) -> str:
    """How `got` stands to `label` (None: no answer): agree, invented, missed or misread."""
    if got == label:
        return "agree"
    if label is None:
        return "invented"
    return "missed" if got is None else "misread"


def labelled(case: dict[str, Any], task: str) -> Any:
    """An entry's (or a second labelling's) answer, None for none; a set's numbers ascending."""
    if case.get("parse_error"):
        return None
    value = case["expected"]
    return sorted(set(value)) if task == "set-intersection" else value


def second_labelling(entries: list[tuple[str, str, str, dict[str, Any]]], corpus: Path) -> None:
    """The two labellings of the batches labelled twice, and the parser beside each."""
    second = json.loads((corpus / "second" / "labels.json").read_text())["labels"]
    rows: dict[str, list[tuple[Any, Any, Any]]] = {}
    for task, _, _, case in entries:
        other = second.get(case.get("id", ""))
        if other is None:
            continue
        try:
            got: Any = read(task, case)
        except ParseError:
            got = None
        if task == "set-intersection" and got is not None:
            got = sorted(set(got))
        batch = case.get("collected", "")[:11]
        rows.setdefault(batch, []).append((labelled(case, task), labelled(other, task), got))
    print("\nthe batches labelled twice, blind and independently (second/labels.json):\n")
    print(
        "| batch | replies | the second labelling against the first | parser vs first "
        "| parser vs second |"
    )
    print("|---|---:|---|---|---|")
    consensus = []
    for batch, triples in sorted(rows.items()):
        cells = [
            _cell([outcome(a, b) for a, b, _ in triples]),
            _cell([outcome(a, p) for a, _, p in triples]),
            _cell([outcome(b, p) for _, b, p in triples]),
        ]
        print(f"| {batch} | {len(triples)} | " + " | ".join(cells) + " |")
        alike = [(a, p) for a, b, p in triples if a == b]
        consensus.append(f"| {batch} | {len(alike)} | {_cell([outcome(a, p) for a, p in alike])} |")
    print("\nthe parser on the replies both labellings read alike:\n")
    print("| batch | replies | parser vs both |\n|---|---:|---|")
    print("\n".join(consensus))


def _cell(results: list[str]) -> str:
    c = Counter(results)
    return (
        f"{c['agree']} ({100 * c['agree'] / len(results):.1f}%), {c['invented']} invented, "
        f"{c['missed']} missed, {c['misread']} misread"
    )


def timing(entries: list[tuple[str, str, str, dict[str, Any]]]) -> float:
    """The parser's time per reply in microseconds, best of 5 passes over the corpus (the
    per-prompt caches warm after the first)."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for task, _, _, case in entries:
            with contextlib.suppress(ParseError):
                read(task, case)
        best = min(best, time.perf_counter() - start)
    return 1e6 * best / len(entries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--show", action="store_true", help="Print every disagreement.")
    parser.add_argument("--time", action="store_true", help="Print the time per reply.")
    parser.add_argument(
        "--second", action="store_true", help="Print the batches labelled twice (blind)."
    )
    parser.add_argument(
        "--splits", default=",".join(SPLITS), help="Count only these splits (comma-separated)."
    )
    args = parser.parse_args()
    wanted = set(args.splits.split(","))
    entries = [e for e in cases(args.corpus) if e[3].get("split", "older") in wanted]
    counts: dict[tuple[str, str], Counter[str]] = {}
    for task, source, name, case in entries:
        split = case.get("split", "older")
        result, got = verdict(task, case)
        counts.setdefault((split, source), Counter())[result] += 1
        counts[(split, source)][f"task:{task}"] += 1
        if args.show and result != "agree":
            label = "no answer" if case.get("parse_error") else case["expected"]
            print(f"{split} {name}: {result}: label {label!r}, parser {got!r}")
    print("| split | source | replies | agree | invented | missed | misread | tasks |")
    print("|---|---|---|---|---|---|---|---|")
    for (split, source), c in sorted(
        counts.items(), key=lambda kv: (SPLITS.index(kv[0][0]), kv[0][1])
    ):
        total = sum(c[k] for k in OUTCOMES)
        tasks = ", ".join(
            f"{k.split(':', 1)[1]} {v}" for k, v in sorted(c.items()) if k.startswith("task:")
        )
        print(
            f"| {split} | {source} | {total} | {c['agree']} ({100 * c['agree'] / total:.1f}%) "
            f"| {c['invented']} | {c['missed']} | {c['misread']} | {tasks} |"
        )
    if args.second:
        second_labelling(entries, args.corpus)
    if args.time:
        plain = [e for e in entries if e[3]["answer"].strip()[:1] in "[{"]
        print(
            f"\nparse time per reply: {timing(entries):.0f} µs over all {len(entries)}; "
            f"{timing(plain):.0f} µs over the {len(plain)} that are a bare list or object"
        )


if __name__ == "__main__":
    main()
