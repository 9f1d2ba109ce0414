"""One evaluate path: the task resolved once per `evaluate()`, the options checked once."""

from __future__ import annotations

import builtins
import dataclasses
import pathlib
from pathlib import Path

import pytest

import thoughtgraph
from tests.task_helpers import play_people
from thoughtgraph.engine.options import RunOptions
from thoughtgraph.evaluation.session import EvalConfig

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "people"


def count_opens(monkeypatch: pytest.MonkeyPatch, watched: Path) -> list[str]:
    """Every opening of `watched` from now on (by `open` or `Path.open`), however it is loaded."""
    opened: list[str] = []
    path_open, plain_open = pathlib.Path.open, builtins.open

    def spy_path(self: Path, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if Path(self).resolve() == watched:
            opened.append("Path.open")
        return path_open(self, *args, **kwargs)  # type: ignore[call-overload]

    def spy_open(file: object, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if isinstance(file, str | Path) and Path(file).resolve() == watched:
            opened.append("open")
        return plain_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(pathlib.Path, "open", spy_path)
    monkeypatch.setattr(builtins, "open", spy_open)
    return opened


def test_one_evaluate_reads_its_task_file_once_whatever_the_number_of_pairs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """6 rows x 2 schemes, rows of two sizes: every plan, check and pair uses the task object
    resolved once (it used to be read again for every row checked and every pair: 18 times)."""
    task = EXAMPLE / "task.yaml"
    opened = count_opens(monkeypatch, task)
    found = thoughtgraph.evaluate(
        str(task), str(EXAMPLE / "data.jsonl"), schemes="io,got", model=play_people,
        out=tmp_path / "out",
    )  # fmt: skip
    assert len(found.results) == 6 * 2
    assert len(opened) == 1


def test_the_eval_config_holds_run_options_frozen_and_keyword_only() -> None:
    config = EvalConfig(run=RunOptions(concurrency=4), samples=3)
    assert config.run.concurrency == 4 and config.pairs == 4
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.samples = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        EvalConfig(RunOptions())  # type: ignore[misc]
    assert not hasattr(config, "concurrency")  # the run's options live in `run`, once
