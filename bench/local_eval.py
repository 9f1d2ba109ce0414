"""A small real evaluation against a local server: sorting 8 and 16 numbers, io / cot / got.

    python bench/local_eval.py [--samples 10] [--out runs/local-eval] [--base-url URL]

Needs a running server (`make local-model`). Runs every (sample, size, scheme) one after the
other (the server answers one request at a time), appends one JSON line per run to
OUT/results.jsonl as it goes (a rerun skips what is there; answers come from OUT/answers.sqlite
when cached), then prints a table per size and scheme: mean error scope, clean runs, calls,
seconds and tokens per call. docs/local-models.md quotes its output.

`got` is the spec's scheme with 2 and 4 parts (`got/2`, `got/4`); each run is capped at
`--max-calls` paid calls so that one hopeless sample cannot take the whole time box.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import thoughtgraph
from thoughtgraph.evaluation.datasets import load_dataset
from thoughtgraph.models.openai import OpenAIModel

SCHEMES: dict[str, dict[str, Any]] = {
    "io": {"scheme": "io"},
    "cot": {"scheme": "cot"},
    "got/2": {"scheme": "got", "parts": 2},
    "got/4": {"scheme": "got", "parts": 4},
}


def run_one(sample: Any, options: dict[str, Any], args: Any) -> dict[str, Any]:
    # A model per run. (Measured before models/clients.py: one model reused across `solve`
    # calls, each its own event loop, printed "Event loop is closed" tracebacks on stderr.)
    model = OpenAIModel(
        args.model,
        base_url=args.base_url,
        api_key="x",
        max_tokens=args.max_tokens,
        timeout=600,
        max_retries=1,
    )
    start = time.perf_counter()
    result = thoughtgraph.solve(
        "sorting",
        sample.input,
        model=model,
        concurrency=1,
        max_requests=args.max_calls,
        cache=args.out / "answers.sqlite",
        **options,
    )
    seconds = time.perf_counter() - start
    summary = result.to_dict()
    keys = ("status", "stop_reason", "paid_calls", "cached_calls", "failed_calls")
    return {
        "error_scope": result.error_count,
        "clean": result.clean,
        **{key: summary.get(key) for key in keys},
        "prompt_tokens": summary.get("prompt_tokens", 0),
        "completion_tokens": summary.get("completion_tokens", 0),
        "seconds": round(seconds, 2),
        "output": result.output,
    }


def table(rows: list[dict[str, Any]]) -> None:
    print("| size | scheme | runs | mean error scope | clean | calls/run | s/call | tokens/call |")
    print("|---|---|---|---|---|---|---|---|")
    for size in sorted({r["size"] for r in rows}):
        for scheme in SCHEMES:
            mine = [r for r in rows if r["size"] == size and r["scheme"] == scheme]
            if not mine:
                continue
            calls = sum(r["paid_calls"] for r in mine)
            tokens = sum(r["prompt_tokens"] + r["completion_tokens"] for r in mine)
            seconds = sum(r["seconds"] for r in mine)
            print(
                f"| {size} | {scheme} | {len(mine)} "
                f"| {statistics.mean(r['error_scope'] for r in mine):.1f} "
                f"| {sum(r['clean'] for r in mine)}/{len(mine)} "
                f"| {calls / len(mine):.1f} | {seconds / max(calls, 1):.1f} "
                f"| {tokens / max(calls, 1):.0f} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", default="http://127.0.0.1:8088/v1")
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--sizes", default="8,16")
    parser.add_argument("--schemes", default=",".join(SCHEMES), help="e.g. io,cot,got/2")
    parser.add_argument("--max-calls", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=160)
    parser.add_argument("--out", type=Path, default=Path("runs/local-eval"))
    parser.add_argument("--report", action="store_true", help="Only print the table.")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results = args.out / "results.jsonl"
    rows = (
        [json.loads(line) for line in results.read_text().splitlines()] if results.exists() else []
    )
    done = {(r["size"], r["sample"], r["scheme"]) for r in rows}
    sizes = [int(s) for s in args.sizes.split(",")]
    datasets = {size: load_dataset(f"sorting_{size:03d}")[: args.samples] for size in sizes}
    for index in range(args.samples):
        for size in sizes if not args.report else []:
            sample = datasets[size][index]
            for scheme in args.schemes.split(","):
                options = SCHEMES[scheme]
                if (size, sample.id, scheme) in done:
                    continue
                row = {"size": size, "sample": sample.id, "scheme": scheme}
                row |= run_one(sample, options, args)
                rows.append(row)
                with results.open("a") as out:
                    out.write(json.dumps(row) + "\n")
                print(json.dumps(row), flush=True)
    table(rows)


if __name__ == "__main__":
    main()
