"""Documented limits: bounded reads, refused FIFOs and devices, capped sizes, linear splitting.

Each case used to run until memory ran out, hang, or take minutes before the first call.
"""

from __future__ import annotations

import io
import os
import re
import threading

import pytest

import thoughtgraph
from thoughtgraph.errors import InputError, ThoughtgraphError
from thoughtgraph.io import bounds
from thoughtgraph.tasks import keywords

from .conftest import run_cli

DEV_ZERO = "/dev/zero"
needs_dev_zero = pytest.mark.skipif(not os.path.exists(DEV_ZERO), reason="needs /dev/zero")
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")


class Endless(io.TextIOBase):
    """A stream that never ends (like /dev/zero or `yes |`), counting what was read."""

    def __init__(self) -> None:
        self.read_chars = 0

    def read(self, size: int = -1) -> str:
        assert size > 0, "an endless stream must be read in bounded chunks"
        self.read_chars += size
        return "1" * size


def test_an_endless_stream_is_refused_after_the_limit():
    stream = Endless()
    with pytest.raises(InputError, match="standard input is larger than 8 MB"):
        bounds.read_bounded(stream, bounds.MAX_INPUT_BYTES, "standard input")
    assert stream.read_chars <= bounds.MAX_INPUT_BYTES + 64 * 1024


@needs_dev_zero
def test_input_file_dev_zero_is_refused_with_one_line(capsys):
    code, out, err = run_cli(capsys, "solve", "sorting", "--input-file", DEV_ZERO)
    assert (code, out) == (2, "")
    assert err == f"error: input file {DEV_ZERO} is larger than 8 MB, the most thoughtgraph reads\n"


@needs_dev_zero
def test_trace_view_of_a_device_is_refused(capsys):
    code, _, err = run_cli(capsys, "trace", "view", DEV_ZERO)
    assert (code, err) == (2, f"error: cannot read trace {DEV_ZERO}: not a regular file\n")


@needs_fifo
@pytest.mark.parametrize("command", ["graph", "trace"])
def test_a_fifo_is_refused_not_waited_on(tmp_path, capsys, command):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    args = (
        ["solve", "sorting", "--input", "[3, 1, 2]", "--graph", str(fifo)]
        if command == "graph"
        else ["trace", "view", str(fifo)]
    )
    outcome: list[tuple[int, str, str]] = []
    worker = threading.Thread(target=lambda: outcome.append(run_cli(capsys, *args)), daemon=True)
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive():  # the old code blocks in open(): free it, then fail
        with open(fifo, "w"):
            pass
        worker.join()
        pytest.fail("a FIFO with no writer made the command wait")
    code, _, err = outcome[0]
    what = "graph file" if command == "graph" else "trace"
    assert (code, err) == (2, f"error: cannot read {what} {fifo}: not a regular file\n")


def test_a_graph_file_past_the_limit_is_refused_unread(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bounds, "MAX_GRAPH_FILE_BYTES", 1000)
    big = tmp_path / "big.json"
    big.write_text(" " * 1001 + "{}")
    code, _, err = run_cli(capsys, "solve", "sorting", "--input", "[2, 1]", "--graph", str(big))
    assert code == 2
    assert (
        err == f"error: graph file {big} is larger than 1,000 bytes, the most thoughtgraph reads\n"
    )


def test_graph_size_past_the_limit_is_refused(capsys):
    code, out, err = run_cli(capsys, "graph", "got_paper", "--size", "1000000")
    assert (code, out) == (2, "")
    assert err == "error: size must be at most 100,000, got 1,000,000\n"
    assert run_cli(capsys, "graph", "got", "--size", str(bounds.MAX_ITEMS))[0] == 0


def test_a_problem_past_the_item_limit_is_refused_before_any_work():
    with pytest.raises(InputError, match=r"the input has 100,001 items; the most is 100,000"):
        thoughtgraph.solve("sorting", [1] * (bounds.MAX_ITEMS + 1), max_requests=0)


def test_an_input_text_past_the_limit_is_refused(capsys, monkeypatch):
    monkeypatch.setattr("thoughtgraph.cli.main.MAX_INPUT_BYTES", 8)
    code, _, err = run_cli(capsys, "solve", "sorting", "--input", "[1, 2, 3, 4]")
    assert (code, err) == (
        2,
        "error: --input is larger than 8 bytes, the most thoughtgraph reads\n",
    )


def test_sim_latency_past_the_limit_is_refused(capsys):
    code, _, err = run_cli(
        capsys, "solve", "sorting", "--input", "[2, 1]", "-m", "sim:latency=1e12"
    )
    assert (code, err) == (2, "error: sim option latency is at most 600 seconds, got 1e+12\n")


class WindowSpy:
    """Stands in for keywords' last-word pattern: records how much text each lookup scans."""

    def __init__(self) -> None:
        self.pattern = re.compile(r"(\w+)$")
        self.widest = 0
        self.lookups = 0

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        end = len(text) if endpos is None else endpos
        self.widest = max(self.widest, end - pos)
        self.lookups += 1
        return self.pattern.search(text, pos, end)


def test_sentence_splitting_looks_back_a_bounded_window(monkeypatch):
    """Linear splitting: each sentence end looks at a few characters, not the whole text
    before it (that made 256 KB take minutes); bench/presplit.py prints the timings."""
    spy = WindowSpy()
    monkeypatch.setattr(keywords, "_LAST_WORD", spy)
    text = "Mr. Smith went from Peru to Chile. Dr. Who saw the U.S. Army. " * 2000
    sentences = keywords.split_sentences(text)
    assert len(sentences) == 4000  # abbreviations and initials still do not end a sentence
    assert sentences[:2] == ("Mr. Smith went from Peru to Chile.", "Dr. Who saw the U.S. Army.")
    assert spy.lookups >= 4000 and spy.widest <= 64


def test_limits_are_documented():
    from pathlib import Path

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    for figure in ("8 MB", "4 MB", "256 MB", "100,000", "600 s"):
        assert figure in readme, figure


def test_errors_are_one_line_thoughtgraph_errors():
    with pytest.raises(ThoughtgraphError):
        thoughtgraph.solve("sorting", [1, 2], "sim:latency=1e12")
