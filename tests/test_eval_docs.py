"""docs/evaluation.md shows the simulated model's figures and tables: every number in its
tables is recomputed here from the committed results (docs/eval-data/*.results.jsonl.gz)."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from thoughtgraph.evaluation.measures import settings
from thoughtgraph.evaluation.report import summarise
from thoughtgraph.evaluation.runner import PairResult

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "evaluation.md").read_text()
SORTING = ["io", "cot", "tot", "tot2", "got_paper", "got"]
DOC_MERGE = ["io", "cot", "tot", "got_paper", "got"]


def load(name: str) -> list[PairResult]:
    path = ROOT / "docs" / "eval-data" / f"{name}.results.jsonl.gz"
    with gzip.open(path, "rt") as lines:
        return [PairResult(**json.loads(line)) for line in lines]


def table_after(marker: str, header: str) -> list[list[str]]:
    """The cells of the first table whose header starts with `header` after `marker`."""
    text = DOC[DOC.index(marker) :]
    block = text[text.index(header) :].split("\n\n", 1)[0]
    rows = [line for line in block.splitlines()[2:] if line.startswith("|")]
    return [[c.strip() for c in row.strip("|").split("|")] for row in rows]


@pytest.mark.parametrize("size", [32, 64, 128])
def test_the_sorting_tables_are_what_the_results_say(size):
    results = load(f"sorting-{size}")
    assert len(results) == 600 and {r.model for r in results} == {results[0].model}
    assert all(r.simulated for r in results)
    expected = [
        [
            r.scheme,
            settings(r.scheme, "sorting", size),
            f"{r.median:g}",
            f"{r.q1:g}-{r.q3:g}",
            str(r.solved),
            f"{r.mean_requests:.1f}",
            f"{r.mean_completions:.1f}",
            f"{r.mean_tokens:,.0f}",
        ]
        for r in summarise(results, SORTING, "sorting")
    ]
    assert table_after(f"**P = {size}**", "| scheme |") == expected


def test_the_doc_merge_table_is_what_the_results_say():
    results = load("doc-merge")
    assert len(results) == 250 and all(r.solved is None for r in results)
    expected = [
        [
            r.scheme,
            settings(r.scheme, "doc-merge", 4),
            f"{r.median:.2f}",
            f"{r.q1:.2f}-{r.q3:.2f}",
            f"{r.median_proxy_errors:g}",
            f"{r.mean_requests:.1f}",
            f"{r.mean_completions:.1f}",
            f"{r.mean_tokens:,.0f}",
        ]
        for r in summarise(results, DOC_MERGE, "doc-merge")
    ]
    assert table_after("### Document merging", "| scheme |") == expected


def test_both_figures_are_shown_and_small():
    for name in ("eval-sorting-sim.png", "eval-doc-merge-sim.png"):
        assert re.search(rf"!\[[^\]]+\]\({re.escape(name)}\)", DOC)
        path = ROOT / "docs" / name
        assert path.read_bytes()[:4] == b"\x89PNG" and path.stat().st_size < 150_000
