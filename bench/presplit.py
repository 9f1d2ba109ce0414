"""Work before the first call, by input size: it must grow linearly (issue 11, item 8).

    .venv/bin/python bench/presplit.py

Times `prepare` (parse the input, build the graph) for keyword counting texts of 16 KB to 1 MB
and sorting lists of 1,000 to 100,000 numbers, and prints each time with its ratio to the
previous size: a linear step shows a ratio near the size ratio (4 for keywords, 10 for sorting),
a quadratic one its square. Prints figures; asserts nothing.
"""

from __future__ import annotations

import random
import time

from thoughtgraph.solving.solve import prepare

COUNTRIES = ["Peru", "Chile", "France", "Japan", "Kenya", "Brazil"]


def keyword_text(size: int) -> str:
    rng, parts, total = random.Random(0), [], 0
    while total < size:
        one = f"Mr. Li went from {rng.choice(COUNTRIES)} to {rng.choice(COUNTRIES)} in 1999."
        parts.append(one)
        total += len(one) + 1
    return " ".join(parts)[:size]


def timed(task: str, problem: object) -> float:
    started = time.perf_counter()
    prepare(task, problem)
    return time.perf_counter() - started


def main() -> None:
    print("keyword-counting: text size, seconds, ratio to previous")
    previous = None
    for size in (16_384, 65_536, 262_144, 1_048_576):
        seconds = timed("keyword-counting", keyword_text(size))
        ratio = f"{seconds / previous:5.1f}x" if previous else "     -"
        print(f"  {size:>9,} chars  {seconds:8.3f} s  {ratio}")
        previous = seconds
    print("sorting: numbers, seconds, ratio to previous")
    previous = None
    for count in (1_000, 10_000, 100_000):
        seconds = timed("sorting", random.Random(1).choices(range(10), k=count))
        ratio = f"{seconds / previous:5.1f}x" if previous else "     -"
        print(f"  {count:>9,} items  {seconds:8.3f} s  {ratio}")
        previous = seconds


if __name__ == "__main__":
    main()
