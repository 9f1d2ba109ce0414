"""Processes sharing one `--cache` pay each request once (issue 19): requests paid for 1, 2, 4.

    .venv/bin/python bench/shared_cache.py

Starts the test suite's loopback server (tests/fake_openai.py: it answers sorting prompts
correctly after `latency` seconds and counts every request at arrival), then runs the same
`thoughtgraph solve` in 1, 2 and 4 processes at once on one fresh cache file, and two `eval`s
(each its own --out) on one cache, and prints the requests the server received for each. Before
claims, two identical solves paid 22 requests instead of 11 and two evals 75 for 42; the goal
is at most 10% more than one process. Prints figures; asserts nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fake_openai import FakeOpenAI  # noqa: E402

INPUT = str([(i * 37 + 11) % 50 for i in range(32)])  # 32 numbers: the got graph, 11 requests


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "thoughtgraph.cli.main", *args]


def env() -> dict[str, str]:
    drop = {"OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"}
    return {k: v for k, v in os.environ.items() if k not in drop} | {"NO_PROXY": "127.0.0.1"}


def paid(server: FakeOpenAI, commands: list[list[str]]) -> int:
    """Run the commands at once; the requests the server received while they ran."""
    before = len(server.requests)
    runs = [
        subprocess.Popen(c, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for c in commands
    ]
    for run in runs:
        _, err = run.communicate(timeout=600)
        if run.returncode != 0:
            raise RuntimeError(err.decode()[-500:])
    return len(server.requests) - before


def line(count: int, got: int, one: int) -> str:
    return f"  {count} process{'es' if count > 1 else '  '}: {got:4d}  ({got / one:.2f}x one)"


def main() -> None:
    with FakeOpenAI(latency=0.05) as server, tempfile.TemporaryDirectory() as tmp:
        model = ("--model", "openai:m", "--base-url", server.base_url, "--no-progress")

        def solve(cache: Path) -> list[str]:
            return cli("solve", "sorting", "--input", INPUT, *model, "--cache", str(cache))

        def evaluate(cache: Path, out: Path) -> list[str]:
            return cli(
                "eval", "sorting", "--size", "32", "--samples", "2", "--schemes", "io,cot,got",
                *model, "--cache", str(cache), "--out", str(out),
            )  # fmt: skip

        print("solve sorting (32 numbers, got), processes at once on one cache: requests paid")
        one = None
        for count in (1, 2, 4):
            cache = Path(tmp) / f"solve-{count}.sqlite"
            got = paid(server, [solve(cache) for _ in range(count)])
            one = one or got
            print(
                f"  {count} process{'es' if count > 1 else '  '}: {got:4d}  ({got / one:.2f}x one)"
            )
        print("eval sorting (2 samples x io,cot,got), each its own --out, one cache")
        one = None
        for count in (1, 2):
            cache = Path(tmp) / f"eval-{count}.sqlite"
            commands = [evaluate(cache, Path(tmp) / f"eval-{count}-{i}") for i in range(count)]
            got = paid(server, commands)
            one = one or got
            print(
                f"  {count} process{'es' if count > 1 else '  '}: {got:4d}  ({got / one:.2f}x one)"
            )


if __name__ == "__main__":
    main()
