"""Collect real answers from a local server for the parser corpus (tests/fixtures/real_answers).

    python bench/collect_answers.py --out answers.jsonl [--per-task 3] [--base-url URL]

Sends each task's `io` and `cot` prompts for the first samples of its dataset (sorting at 8
numbers, set intersection at 32, keyword counting, doc merge) and writes one JSON line per
answer: task, prompt name, prompt, answer, finish reason. The answers are then labelled by hand
with the parse expected and why (tests/test_real_answers.py checks them).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from openai import OpenAI

from thoughtgraph.evaluation.datasets import load_dataset
from thoughtgraph.tasks import get_task

DATASETS = {
    "sorting": "sorting_008",
    "set-intersection": "set_intersection_032",
    "keyword-counting": "countries",
    "doc-merge": "documents",
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", default="http://127.0.0.1:8088/v1")
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--per-task", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=200)
    parser.add_argument("--tasks", default=",".join(DATASETS))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    client = OpenAI(base_url=args.base_url, api_key="x", timeout=900, max_retries=0)
    for name in args.tasks.split(","):
        task = get_task(name)
        samples = load_dataset(DATASETS[name])[: args.per_task]
        for index, sample in enumerate(samples):
            kind = "io" if index % 2 == 0 else "cot"
            prompt = task.prompts[kind].render({"input": task.render(sample.input)})
            answer = client.chat.completions.create(
                model=args.model,
                messages=[{"role": "user", "content": prompt}],
                max_tokens=args.max_tokens,
            )
            row = {
                "task": name,
                "prompt_name": kind,
                "sample": sample.id,
                "prompt": prompt,
                "answer": answer.choices[0].message.content,
                "finish_reason": answer.choices[0].finish_reason,
            }
            with args.out.open("a") as out:
                out.write(json.dumps(row) + "\n")
            print(name, kind, repr(row["answer"][:100]), flush=True)


if __name__ == "__main__":
    main()
