"""Which dataset rows no reply of the parser corpus was drawn on: the rows a fresh held-out batch
may use.

    .venv/bin/python bench/unused_rows.py [--datasets sorting_016,sorting_032,...]

The corpus (tests/fixtures/real_answers) keeps each reply's prompt, not the row it came from,
so a row counts as used when its data is in some prompt: for a list dataset (sorting, set
intersection), any 8 numbers in a row of it, written as the prompts write lists (`got`'s parts
are such slices, io and cot prompts hold the whole list); for `countries`, any of its sentences
of 30 characters or more. Eight digits of 0-9 match a prompt by chance about once in a
thousand rows, so a row may be called used that is not, never the other way. Document merging
is left out: its documents share whole clauses, so no snippet tells its row. Prints the used
and unused rows of each dataset; asserts nothing.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests/fixtures/real_answers"
DATA = ROOT / "src/thoughtgraph/data"
SLICE = 8  # numbers: got's part of a 32-number list, and rare enough to tell a row
SENTENCE = 30  # characters: shorter sentences ("She agreed.") repeat across rows
LISTS = {"Unsorted", "SET1", "SET2"}  # the list columns of the sorting and set datasets


def prompts() -> str:
    """Every prompt of the corpus (the capable models' too), joined."""
    texts = []
    for path in sorted(CORPUS.rglob("*.json")):
        data = json.loads(path.read_text())
        answers = data.get("answers", []) if isinstance(data, dict) else []
        texts += [str(a.get("prompt") or "") for a in answers if isinstance(a, dict)]
    return "\n\0".join(texts)


def probes(row: dict[str, str]) -> Iterable[str]:
    """What of the row a prompt drawn on it holds."""
    for column in LISTS & row.keys():
        numbers = json.loads(row[column])
        for start in range(0, max(1, len(numbers) - SLICE + 1), SLICE):
            yield ", ".join(map(str, numbers[start : start + SLICE]))
    if "Text" in row:
        for sentence in re.split(r"(?<=[.!?])\s+", row["Text"]):
            if len(sentence.strip()) >= SENTENCE:
                yield sentence.strip()


def ranges(rows: Iterable[int]) -> str:
    """3, 4, 5, 9 -> "3-5, 9"."""
    spans: list[list[int]] = []
    for row in sorted(rows):
        if spans and row == spans[-1][1] + 1:
            spans[-1][1] = row
        else:
            spans.append([row, row])
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in spans) or "none"


def used_rows(
    name: str, corpus: str, probe: Callable[[dict[str, str]], Iterable[str]]
) -> tuple[set[int], int]:
    with (DATA / f"{name}.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    used = {int(row["ID"]) for row in rows if any(p in corpus for p in probe(row))}
    return used, len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--datasets",
        default="sorting_016,sorting_032,sorting_064,set_intersection_032,countries",
    )
    args = parser.parse_args()
    corpus = prompts()
    print(f"command: .venv/bin/python bench/unused_rows.py --datasets {args.datasets}")
    print("| dataset | rows | used | unused |\n|---|---:|---|---|")
    for name in args.datasets.split(","):
        used, total = used_rows(name.strip(), corpus, probes)
        print(f"| {name} | {total} | {ranges(used)} | {ranges(set(range(total)) - used)} |")


if __name__ == "__main__":
    main()
