"""Collect real replies from a local server for the parser corpus (tests/fixtures/real_answers).

    python bench/collect_answers.py --out answers.jsonl [--per-task 3] [--offset 0]
        [--schemes io,cot] [--tasks sorting,...] [--datasets sorting=sorting_032,...]
        [--base-url URL] [--max-tokens 200] [--model openai:smollm2]

Runs `thoughtgraph solve TASK --dataset D --sample ID --scheme S --model SPEC` (no
cache, one request at a time, `--max-completion-tokens` = `--max-tokens`) for the dataset rows
`offset .. offset + per-task - 1` and every scheme, keeps each run's trace, and writes one JSON
line per reply the run's model calls got: task, scheme, dataset, sample, the call's kind (io,
cot, part, merge, refine, improve, ...), prompt, reply and its `id` (the first 10 hex digits of
sha1(prompt NUL reply), as the corpus's ids). So the prompts are exactly the ones a run sends:
`got` gives the spec's part, merge and refine prompts, `tot` the improve prompt. Replies to the
scoring prompt (`score`) are read by another parser and are left out. A rerun appends; a reply
already in OUT (same id) is not written twice. The runs' own output (their summaries say
what the parser made of the replies) goes to OUT.log, to be read only after labelling.

Nothing here parses a reply: the lines are labelled by hand (the parse a careful person reads,
or "no answer", and why) before the parser sees them; tests/fixtures/real_answers/README.md
says how. Needs a running server (`make local-model`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

DATASETS = {
    "sorting": "sorting_008",
    "set-intersection": "set_intersection_032",
    "keyword-counting": "countries",
    "doc-merge": "documents",
}
LEFT_OUT = {"score"}  # replies another parser reads
CLI = "import sys; from thoughtgraph.cli.main import main; sys.argv[0] = 'thoughtgraph'; main()"


def reply_id(prompt: str, answer: str) -> str:
    """The corpus's id of a reply: stable across reruns, independent of the parser."""
    return hashlib.sha1(f"{prompt}\0{answer}".encode()).hexdigest()[:10]


def solve(
    task: str, dataset: str, sample: int, scheme: str, args: Any, trace: Path, log: Path
) -> int:
    """One `thoughtgraph solve` run writing its trace (a failed run still has the replies it
    got); its output goes to `log` unread, so that what the parser made of a reply is not seen
    before the reply is labelled."""
    command = [
        sys.executable, "-c", CLI, "solve", task, "--dataset", dataset,
        "--sample", str(sample), "--scheme", scheme, "--model", args.model,
        "--concurrency", "1", "--no-cache", "--trace", str(trace),
    ]  # fmt: skip
    if args.model.startswith("openai"):
        command += ["--base-url", args.base_url, "--max-completion-tokens", str(args.max_tokens)]
        command += ["--timeout", "600"]
    if args.max_requests:
        command += ["--max-requests", str(args.max_requests)]
    with log.open("a") as stderr:  # the run's verdicts are the parser's: not shown here
        print(f"== {' '.join(command[3:])}", file=stderr, flush=True)
        return subprocess.run(command, stdout=subprocess.DEVNULL, stderr=stderr).returncode


def rows_of(trace: Path, task: str, dataset: str, sample: int, scheme: str) -> list[dict[str, Any]]:
    """One row per reply in the trace's calls (scoring calls left out)."""
    if not trace.exists():
        return []
    calls = json.loads(trace.read_text()).get("calls", [])
    rows = []
    for call in calls:
        if call["kind"] in LEFT_OUT:
            continue
        for text in call.get("texts") or []:
            if text is None:
                continue
            rows.append(
                {
                    "id": reply_id(call["prompt"], text),
                    "task": task,
                    "scheme": scheme,
                    "dataset": dataset,
                    "sample": sample,
                    "kind": call["kind"],
                    "prompt": call["prompt"],
                    "answer": text,
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8088/v1")
    parser.add_argument("--model", default="openai:smollm2", help="A model spec (sim: a dry run).")
    parser.add_argument("--per-task", type=int, default=3)
    parser.add_argument("--offset", type=int, default=0, help="The first dataset row used.")
    parser.add_argument("--schemes", default="io,cot")
    parser.add_argument("--max-tokens", type=int, default=200)
    parser.add_argument("--max-requests", type=int, default=0, help="Cap on a run's requests.")
    parser.add_argument("--tasks", default=",".join(DATASETS))
    parser.add_argument(
        "--datasets", default="", help="Other datasets, e.g. sorting=sorting_032 (comma-separated)"
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    datasets = dict(DATASETS)
    datasets.update(dict(pair.split("=", 1) for pair in args.datasets.split(",") if pair))
    log = args.out.with_name(args.out.name + ".log")
    seen = set()
    if args.out.exists():
        seen = {json.loads(line)["id"] for line in args.out.read_text().splitlines() if line}
    with tempfile.TemporaryDirectory() as tmp:
        for task in args.tasks.split(","):
            for sample in range(args.offset, args.offset + args.per_task):
                for scheme in args.schemes.split(","):
                    trace = Path(tmp) / f"{task}-{sample}-{scheme}.json"
                    print(f"{task} {datasets[task]} #{sample} {scheme}", flush=True)
                    solve(task, datasets[task], sample, scheme, args, trace, log)
                    fresh = rows_of(trace, task, datasets[task], sample, scheme)
                    with args.out.open("a") as out:
                        for row in fresh:
                            if row["id"] not in seen:
                                seen.add(row["id"])
                                out.write(json.dumps(row) + "\n")
                    print(f"  {len(fresh)} replies", flush=True)


if __name__ == "__main__":
    main()
