"""The collector runs less often during a run, and the process's own settings come back after."""

from __future__ import annotations

import gc
import threading

import pytest

import thoughtgraph
from thoughtgraph.engine.gcpause import RUN_THRESHOLD, fewer_collections


@pytest.fixture(autouse=True)
def _keep_thresholds():
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def test_a_run_raises_the_first_threshold_and_puts_the_callers_back():
    gc.set_threshold(700, 11, 12)
    seen: list[tuple[int, ...]] = []

    def model(prompt: str) -> str:
        seen.append(gc.get_threshold())
        return "[1, 2, 3]"

    thoughtgraph.solve("sorting", [3, 2, 1], model=model, scheme="io")
    assert seen and all(t == (RUN_THRESHOLD, 11, 12) for t in seen)
    assert gc.get_threshold() == (700, 11, 12)


def test_a_higher_threshold_of_the_callers_own_is_kept():
    gc.set_threshold(RUN_THRESHOLD * 2, 10, 10)
    with fewer_collections():
        assert gc.get_threshold() == (RUN_THRESHOLD * 2, 10, 10)
    assert gc.get_threshold() == (RUN_THRESHOLD * 2, 10, 10)


def test_collection_switched_off_by_the_caller_stays_off():
    gc.set_threshold(0, 10, 10)
    with fewer_collections():
        assert gc.get_threshold()[0] == 0
    assert gc.get_threshold() == (0, 10, 10)


def test_overlapping_runs_restore_only_when_the_last_one_ends():
    gc.set_threshold(500, 10, 10)
    first, second = fewer_collections(), fewer_collections()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert gc.get_threshold()[0] == RUN_THRESHOLD  # the second run is still going
    second.__exit__(None, None, None)
    assert gc.get_threshold() == (500, 10, 10)


def test_runs_in_threads_leave_the_thresholds_as_they_found_them():
    gc.set_threshold(600, 10, 10)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            thoughtgraph.solve("sorting", [5, 4, 3, 2, 1], model="sim:error=0", scheme="io")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert gc.get_threshold() == (600, 10, 10)


def test_an_error_in_the_run_still_restores_them():
    gc.set_threshold(650, 10, 10)
    with pytest.raises(thoughtgraph.InputError):
        thoughtgraph.solve("sorting", "not a list", model="sim")
    assert gc.get_threshold() == (650, 10, 10)
