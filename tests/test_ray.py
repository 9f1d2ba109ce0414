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


def test_eval_on_ray_routes_kinds_as_a_local_eval_does(cluster, capsys, tmp_path):
    """`--model-for` specs travel to the workers: each pair's merges go to the routed model
    and the results (spend per model included) are a local eval's."""
    routed = ("--model", "sim:error=2", "--model-for", "merge=sim:error=0")
    code, _out, err = run_cli(capsys, *eval_args(tmp_path / "ray", *routed, "--ray", "auto"))
    assert code == 0, err
    assert run_cli(capsys, *eval_args(tmp_path / "local", *routed))[0] == 0
    on_ray = results(tmp_path / "ray")
    assert on_ray == results(tmp_path / "local")
    strong = "sim:profile=gpt-3.5-paper,latency=0,error=0,seed=0"
    got = [r for r in on_ray if r["scheme"] == "got"]
    assert got and all(r["spend_by_model"][strong]["kinds"] == ["merge"] for r in got)


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


# A user's task on Ray: the workers are processes of their own, started before the test moved
# to its folder, so they have neither the driver's working directory nor its import path, nor
# the task the driver loaded. Each source runs there as it runs here.

ROWS = [{"id": f"r{i}", "input": [(5 * i + j) % 13 for j in range(8)]} for i in range(3)]


def user_eval(task: str, out: str, base_url: str, *extra: str) -> list[str]:
    return [
        "eval", task, "--data", "rows.jsonl", "--schemes", "got", "--graph", "mine.yaml",
        "--out", out, "--no-progress", "--model", "openai:m", "--base-url", base_url,
        "--max-retries", "0", *extra,
    ]  # fmt: skip


def user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> str:
    """The user's folder (the working directory from now on): the data file, a graph file and
    the task, as a module here, a plugin on the import path or a task file; returns its name."""
    import uuid

    from tests.task_helpers import EVENS_MODULE, write_module, write_plugin
    from thoughtgraph import schemes

    monkeypatch.chdir(tmp_path)
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    unique = uuid.uuid4().hex[:8]
    if source == "module":
        write_module(tmp_path, f"user_tasks_{unique}")
        task = f"user_tasks_{unique}:EvensTask"
    elif source == "plugin":
        (tmp_path / "site").mkdir()
        package = f"tg_plugin_{unique}"
        write_plugin(tmp_path / "site", package, {f"evens-{unique}": f"{package}:make_task"},
                     EVENS_MODULE)  # fmt: skip
        monkeypatch.syspath_prepend(str(tmp_path / "site"))
        task = f"evens-{unique}"
    else:  # a task file, given by a path relative to the user's folder
        (tmp_path / "tasks").mkdir()
        (tmp_path / "tasks" / "evens.yaml").write_text(
            "name: evens-file\ndescription: Keep the even numbers of the list, in order.\n"
            "answer:\n  type: integers\nsplit:\n  by: items\n  part_size: 2\n"
            "join: concatenate\nscore:\n  by: reference\n"
        )
        (tmp_path / "rows.jsonl").write_text(
            "".join(json.dumps({**row, "reference": [n for n in row["input"] if n % 2 == 0]})
                    + "\n" for row in ROWS)
        )  # fmt: skip
        task = "tasks/evens.yaml"
    from thoughtgraph.tasks import get_task

    name = get_task(task).name
    graph = schemes.build("got", name, len(ROWS[0]["input"]), parts=4)
    (tmp_path / "mine.yaml").write_text(graph.model_copy(update={"name": "mine"}).to_yaml())
    return task


@pytest.mark.parametrize("source", ["module", "plugin", "file"])
def test_a_users_task_data_and_graph_run_on_ray_as_they_run_here(
    cluster, capsys, tmp_path, monkeypatch, source
):
    from tests.task_helpers import ScriptedServer, play_evens

    task = user_folder(tmp_path, monkeypatch, source)
    with ScriptedServer(play_evens) as server:
        code, out, err = run_cli(capsys, *user_eval(task, "ray", server.base_url, "--ray", "local"))
        assert code == 0, err
        on_ray = len(server.requests)
        assert on_ray > 0
        assert run_cli(capsys, *user_eval(task, "here", server.base_url))[0] == 0
    assert results(tmp_path / "ray") == results(tmp_path / "here")
    rows = results(tmp_path / "ray")
    assert {(r["scheme"], r["sample"]) for r in rows} == {
        (s, row["id"]) for s in ("got", "mine") for row in ROWS
    }
    assert all(r["error"] == 0 for r in rows), rows  # the workers scored with the user's task
    assert sum(r["requests"] for r in rows) == on_ray  # the workers sent every request
    assert "| mine |" in out


WORKER_FAILS = {
    # the module imports here only (a dependency the workers' machines lack)
    "import": "import os\nif os.getpid() != {pid}:\n    raise RuntimeError('no such library')\n",
    # it imports, but reading a problem fails in a worker: the pair's own one line comes back
    "problem": "import os\nfrom thoughtgraph.errors import InputError\n"
    "_parse = EvensTask.parse_input\n"
    "def parse_input(self, raw):\n    if os.getpid() != {pid}:\n"
    "        raise InputError('cannot read the problem here')\n    return _parse(self, raw)\n"
    "EvensTask.parse_input = parse_input\n",
}


@pytest.mark.parametrize("how", sorted(WORKER_FAILS))
def test_a_task_a_worker_cannot_load_or_run_is_one_line_and_no_request(
    cluster, capsys, tmp_path, monkeypatch, how
):
    import textwrap

    from tests.task_helpers import EVENS_MODULE, ScriptedServer, play_evens

    task = user_folder(tmp_path, monkeypatch, "module")
    module = tmp_path / (task.split(":")[0] + ".py")
    tail = WORKER_FAILS[how].replace("{pid}", str(os.getpid()))
    module.write_text(textwrap.dedent(EVENS_MODULE) + "\n" + tail)
    with ScriptedServer(play_evens) as server:
        code, _out, err = run_cli(
            capsys, *user_eval(task, "ray", server.base_url, "--ray", "local")
        )
        assert len(server.requests) == 0
    lines = err.splitlines()
    assert code == 2 and lines[-1].startswith("error: "), err
    assert [line for line in lines if "error" in line.lower()] == lines[-1:], err  # no traceback
    if how == "import":
        assert "a Ray worker cannot load the evaluation" in lines[-1]
        assert lines[-1].endswith("raised RuntimeError: no such library")
    else:
        assert lines[-1] == "error: cannot read the problem here"
    written = tmp_path / "ray" / "results.jsonl"
    assert not written.exists() or not written.read_text().strip()  # no pair's result


def test_the_python_api_runs_a_task_object_and_several_sizes_on_ray(
    cluster, capsys, tmp_path, monkeypatch
):
    """`thoughtgraph.evaluate(..., ray="local")`: a task object (pickled to the workers, its
    class imported there from the driver's folder) on data rows, and `eval --size 8,16 --ray`
    on one cluster, each writing what the same run writes here."""
    import thoughtgraph
    from tests.task_helpers import ScriptedServer, play_evens
    from thoughtgraph.errors import InputError
    from thoughtgraph.tasks import get_task

    task = get_task(user_folder(tmp_path, monkeypatch, "module"))  # the object, not its name
    with ScriptedServer(play_evens) as server:
        common = {
            "schemes": "got", "graphs": ["mine.yaml"], "model": "openai:m",
            "model_options": {"base_url": server.base_url, "max_retries": 0},
        }  # fmt: skip
        found = thoughtgraph.evaluate(task, ROWS, ray="local", out=tmp_path / "ray", **common)
        assert found.folder == tmp_path / "ray" and all(r.error == 0 for r in found.results)
        thoughtgraph.evaluate(task, ROWS, out=tmp_path / "here", **common)
        paid = len(server.requests)
        task.lock = __import__("threading").Lock()  # now nothing can pickle it
        with pytest.raises(InputError, match="cannot be sent to Ray workers"):
            thoughtgraph.evaluate(task, ROWS, ray="local", out=tmp_path / "no", **common)
        assert len(server.requests) == paid  # refused before any request
    assert results(tmp_path / "ray") == results(tmp_path / "here")

    sizes = ["eval", "sorting", "--size", "8,16", "--samples", "2", "--schemes", "io,got"]
    assert run_cli(capsys, *sizes, "--out", str(tmp_path / "s-ray"), "--ray", "local")[0] == 0
    assert run_cli(capsys, *sizes, "--out", str(tmp_path / "s-here"))[0] == 0
    for size in ("size-8", "size-16"):
        assert results(tmp_path / "s-ray" / size) == results(tmp_path / "s-here" / size)


def test_tune_from_python_on_ray_takes_a_model_object(cluster, tmp_path):
    """`thoughtgraph.tune(model=<object>, ray=...)`: the object goes to the workers pickled and
    the study is the one a local tune with the same object makes."""
    import thoughtgraph
    from thoughtgraph.sim.model import SimulatedModel

    options = {"schemes": "got", "trials": 4, "pilot": 2, "holdout": 1}
    on_ray = thoughtgraph.tune(
        "sorting", "sorting_016", model=SimulatedModel(seed=1), ray="auto",
        out=tmp_path / "ray", **options,
    )  # fmt: skip
    local = thoughtgraph.tune(
        "sorting", "sorting_016", model=SimulatedModel(seed=1), out=tmp_path / "local", **options
    )
    assert on_ray.trials == 4
    assert trials(tmp_path / "ray") == trials(tmp_path / "local")
    assert on_ray.text == local.text.replace(str(tmp_path / "local"), str(tmp_path / "ray"))


def test_repeats_and_traces_on_ray_are_what_they_are_here(cluster, capsys, tmp_path):
    """Each repeat's pair runs on a worker with the repeat's seed, and each pair's trace comes
    back to the driver's folder, as a local run writes them."""
    extra = ("--samples", "2", "--repeats", "2", "--traces")
    code, _out, err = run_cli(capsys, *eval_args(tmp_path / "ray", *extra, "--ray", "local"))
    assert code == 0, err
    assert run_cli(capsys, *eval_args(tmp_path / "here", *extra))[0] == 0
    rows = results(tmp_path / "ray")
    assert len(rows) == 3 * 2 * 2 and {r["repeat"] for r in rows} == {0, 1}
    assert sorted(rows, key=str) == sorted(results(tmp_path / "here"), key=str)
    for row in rows:
        trace = json.loads((tmp_path / "ray" / row["trace"]).read_text())
        here = json.loads((tmp_path / "here" / row["trace"]).read_text())
        assert trace["result"]["output"] == here["result"]["output"]


def test_tune_on_ray_runs_a_users_task_as_it_runs_here(cluster, capsys, tmp_path, monkeypatch):
    """The tune's setup travels as an evaluation's plan does (the same `shipping.pack` of the
    task, tested above for task files and plugins too): its trials on the workers load the
    user's module from the driver's folder and make the study a local tune makes."""
    from tests.task_helpers import ScriptedServer, play_evens

    task = user_folder(tmp_path, monkeypatch, "module")
    with ScriptedServer(play_evens) as server:
        args = [
            "tune", task, "--data", "rows.jsonl", "--trials", "2", "--pilot", "2",
            "--holdout", "1", "--schemes", "got", "--model", "openai:m", "--base-url",
            server.base_url, "--max-retries", "0",
        ]  # fmt: skip
        code, _out, err = run_cli(capsys, *args, "--out", "ray", "--ray", "local")
        assert code == 0, err
        assert run_cli(capsys, *args, "--out", "here")[0] == 0
    assert trials(tmp_path / "ray") == trials(tmp_path / "here")
    assert all(state == "COMPLETE" for _n, state, _p, _v in trials(tmp_path / "ray"))
    # the workers (started elsewhere) wrote the answer caches into the driver's --out
    assert list((tmp_path / "ray" / "cache").glob("*.sqlite"))
