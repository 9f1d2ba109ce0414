"""How low the wall of `got` on 32,768 numbers can go on one thread: a model of the merge tree.

    .venv/bin/python bench/merge_schedule.py [--per-call-us 200] [--per-number-us 0.43]
        [--issue-share 0.55] [--parts 4096] [--latency 0.05] [--target 2.0]

The run (`bench/scale.py`'s) is 4,096 parts and 4,095 pairwise merges, 13 model rounds deep, on
the simulated model at 0.05 s a request. Each call costs the one thread CPU twice: when it is
issued (its prompt, the model's answer, the books) and when its answer is read (the reader, the
score, what it makes ready); its answer comes `latency` after it was issued. The model is a
list-scheduling of those jobs on one CPU under several priority orders (asyncio's is first in,
first out); it prints each order's wall / floor at the given per-call cost, and the per-call CPU
at which FIFO reaches `--target`.

What it shows: the top of a balanced merge tree is a chain of thin levels (under one latency's
worth of CPU each) that waits on its last subtree, so the wall is about the CPU of the broad
bottom levels plus eight latencies, and no order of the same work does better than FIFO by more
than a few percent. The per-call figures to give it are measured: in-run CPU / 8,191 calls of
a `bench/scale.py` run (130-200 us a call on this machine, by its phase), the per-number cost
from the last merge's time beyond its latency. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import heapq
from collections.abc import Callable

Policy = Callable[[str, int, int, int], object]  # (job, level, index, arrival) -> priority

POLICIES: dict[str, Policy] = {
    "first in, first out (asyncio)": lambda job, level, index, seq: seq,
    "lowest level first": lambda job, level, index, seq: (level, seq),
    "highest level first": lambda job, level, index, seq: (-level, seq),
    "parts first, then highest level": lambda job, level, index, seq: (
        job != "issue" or level > 0,
        -level,
        seq,
    ),
    "last-issued subtree first": lambda job, level, index, seq: (-((index + 1) << level), -level),
}


def makespan(
    policy: Policy, parts: int, latency: float, issue: list[float], read: list[float]
) -> float:
    """When the root's answer has been read: one CPU takes the job the policy ranks first of
    those available (an op's issue once its inputs are read; its read `latency` after its
    issue ended) and idles only when none is."""
    levels = parts.bit_length() - 1
    now, arrivals = 0.0, 0
    ready: list[tuple[object, int, str, int, int]] = []
    due: list[tuple[float, int, int]] = []
    done: set[tuple[int, int]] = set()

    def offer(job: str, level: int, index: int) -> None:
        nonlocal arrivals
        arrivals += 1
        heapq.heappush(ready, (policy(job, level, index, arrivals), arrivals, job, level, index))

    for index in range(parts):
        offer("issue", 0, index)
    while ready or due:
        while due and due[0][0] <= now:
            _, level, index = heapq.heappop(due)
            offer("read", level, index)
        if not ready:
            now = due[0][0]
            continue
        *_, job, level, index = heapq.heappop(ready)
        if job == "issue":
            now += issue[level]
            heapq.heappush(due, (now + latency, level, index))
            continue
        now += read[level]
        if level == levels:
            return now
        done.add((level, index))
        if (level, index ^ 1) in done:
            offer("issue", level + 1, index // 2)
    raise AssertionError("the root was never read")


def costs(
    parts: int, per_call: float, per_number: float, share: float
) -> tuple[list[float], list[float]]:
    """Each level's CPU per issue and per read: a call's fixed cost plus its list's length."""
    width = 32768 // parts
    whole = [per_call + per_number * width * 2**level for level in range(parts.bit_length())]
    return [share * c for c in whole], [(1 - share) * c for c in whole]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-call-us", type=float, default=200.0)
    parser.add_argument("--per-number-us", type=float, default=0.43)
    parser.add_argument("--issue-share", type=float, default=0.55)
    parser.add_argument("--parts", type=int, default=4096)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--target", type=float, default=2.0)
    args = parser.parse_args()
    floor = (args.parts.bit_length()) * args.latency
    print(
        f"command: .venv/bin/python bench/merge_schedule.py --per-call-us {args.per_call_us:g} "
        f"--per-number-us {args.per_number_us:g} --issue-share {args.issue_share:g} --parts "
        f"{args.parts} --latency {args.latency:g} --target {args.target:g}"
    )
    print(f"floor: {args.parts.bit_length()} rounds x {args.latency:g} s = {floor:.2f} s\n")

    def wall(per_call_us: float, policy: Policy) -> float:
        issue, read = costs(
            args.parts, per_call_us * 1e-6, args.per_number_us * 1e-6, args.issue_share
        )
        return makespan(policy, args.parts, args.latency, issue, read)

    issue, read = costs(
        args.parts, args.per_call_us * 1e-6, args.per_number_us * 1e-6, args.issue_share
    )
    cpu = sum((issue[level] + read[level]) * (args.parts >> level) for level in range(len(issue)))
    print("| order | wall s | wall / floor | CPU s |\n|---|---:|---:|---:|")
    for name, policy in POLICIES.items():
        shown = wall(args.per_call_us, policy)
        print(f"| {name} | {shown:.3f} | {shown / floor:.2f} | {cpu:.3f} |")
    fifo = POLICIES["first in, first out (asyncio)"]
    low, high = 1.0, args.per_call_us
    if wall(high, fifo) / floor <= args.target:
        print(f"\nFIFO is within {args.target:g} x the floor at {args.per_call_us:g} us a call")
        return
    for _ in range(30):
        middle = (low + high) / 2
        low, high = (middle, high) if wall(middle, fifo) / floor <= args.target else (low, middle)
    print(
        f"\nFIFO reaches {args.target:g} x the floor at {low:.0f} us of CPU a call "
        f"({low / args.per_call_us:.0%} of {args.per_call_us:g} us)"
    )


if __name__ == "__main__":
    main()
