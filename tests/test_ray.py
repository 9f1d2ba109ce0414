"""`eval --ray` and `tune --ray` on a local Ray cluster the test starts (loopback only, 2 CPUs):
the same results.jsonl and the same study as a local run, and a rerun pays nothing twice."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from .conftest import run_cli
from .fake_openai import FakeOpenAI
from .test_tune import tune_args

ray = pytest.importorskip("ray", reason="ray is not installed: pip install -e '.[ray]'")
optuna = pytest.importorskip("optuna", reason="optuna is not installed: pip install -e '.[tune]'")

pytestmark = pytest.mark.slow  # a local Ray cluster starts (tens of seconds)


@pytest.fixture(scope="module")
def cluster():
    """A private two-worker cluster on 127.0.0.1; `--ray auto` in the CLI joins it."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"):
        os.environ.pop(name, None)
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1"
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        logging_level=logging.ERROR,
        log_to_driver=False,
    )
    yield
    ray.shutdown()


def results(folder: Path) -> list[dict]:
    """results.jsonl in a fixed order, without the wall-clock time (which differs run to run)."""
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("wall_seconds")
    return sorted(rows, key=lambda r: (r["scheme"], r["sample"]))


def eval_args(out: Path, *extra: str) -> list[str]:
    return [
        "eval",
        "sorting",
        "--samples",
        "3",
        "--schemes",
        "io,got,got_paper",
        "--out",
        str(out),
        *extra,
    ]


def test_eval_on_ray_writes_what_a_local_eval_writes(cluster, capsys, tmp_path):
    code, _out, err = run_cli(capsys, *eval_args(tmp_path / "ray", "--ray", "auto"))
    assert code == 0, err
    assert run_cli(capsys, *eval_args(tmp_path / "local"))[0] == 0
    assert results(tmp_path / "ray") == results(tmp_path / "local")
    assert len(results(tmp_path / "ray")) == 9
    assert ray.is_initialized()  # a cluster the command joined is left running


def test_eval_on_ray_shares_the_answer_cache_and_a_rerun_pays_nothing(cluster, capsys, tmp_path):
    cache = tmp_path / "answers.sqlite"
    with FakeOpenAI(error=0.5) as server:
        args = eval_args(
            tmp_path / "ray",
            "--model",
            "openai:gpt-4o-mini",
            "--base-url",
            server.base_url,
            "--cache",
            str(cache),
            "--ray",
            "auto",
        )
        code, _out, err = run_cli(capsys, *args)
        assert code == 0, err
        paid = len(server.requests)
        first = results(tmp_path / "ray")
        assert paid > 0 and sum(r["requests"] for r in first) == paid  # the workers did the work
        (tmp_path / "ray" / "results.jsonl").unlink()  # forget the results, keep the cache
        assert run_cli(capsys, *args)[0] == 0
        assert len(server.requests) == paid  # every answer came from the cache the workers wrote
        again = results(tmp_path / "ray")
    assert [r["error"] for r in again] == [r["error"] for r in first]


def trials(out: Path) -> list[tuple]:
    study = optuna.load_study(study_name="thoughtgraph-tune", storage=f"sqlite:///{out}/study.db")
    return [(t.number, t.state.name, t.params, t.values) for t in study.trials]


def test_tune_on_ray_makes_the_study_a_local_tune_makes(cluster, capsys, tmp_path):
    code, _out, err = run_cli(capsys, *tune_args(tmp_path / "ray", "--ray", "auto"))
    assert code == 0, err
    assert run_cli(capsys, *tune_args(tmp_path / "local"))[0] == 0
    assert trials(tmp_path / "ray") == trials(tmp_path / "local")
    assert len(trials(tmp_path / "ray")) == 4
    table = (tmp_path / "ray" / "front.md").read_text()
    assert table == (tmp_path / "local" / "front.md").read_text()
    # resumed on Ray: nothing more to do, nothing run again
    assert run_cli(capsys, *tune_args(tmp_path / "ray", "--ray", "auto"))[0] == 0
    assert trials(tmp_path / "ray") == trials(tmp_path / "local")


def test_eval_on_ray_keeps_the_whole_evaluations_call_budget(cluster, capsys, tmp_path):
    out = tmp_path / "ray"
    code, _out, _err = run_cli(capsys, *eval_args(out, "--max-requests", "30", "--ray", "auto"))
    assert code == 1  # the budget ran out before every pair finished
    paid = sum(r["requests"] for r in results(out))
    assert 0 < paid <= 30  # workers ran under shares of one ledger, never past the cap


@pytest.mark.parametrize("command", ["eval", "tune"])
def test_an_address_with_no_cluster_is_one_error_line_before_anything_runs(
    capsys, tmp_path, command
):
    import socket

    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    argv = [command, "sorting", "--out", str(tmp_path / "x"), "--ray", f"127.0.0.1:{port}"]
    code, _out, err = run_cli(capsys, *argv)
    assert code == 2 and err.endswith(
        f"error: --ray 127.0.0.1:{port}: no Ray cluster answers there (Connection refused)\n"
    )
    assert (
        not (tmp_path / "x" / "study.db").exists()
        and not (tmp_path / "x" / "results.jsonl").exists()
    )
