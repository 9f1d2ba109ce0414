"""`thoughtgraph.evaluate()` / `aevaluate()` and `thoughtgraph.tune()` / `atune()` for notebooks:
result objects with `to_pandas()`, Jupyter displays, and the CLI's files when given a folder."""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest

import thoughtgraph
from thoughtgraph.errors import InputError, ThoughtgraphError

from .fake_openai import FakeOpenAI

ROWS = [
    {"id": "a", "input": [5, 3, 1, 4], "reference": [1, 3, 4, 5]},
    {"id": "b", "input": [9, 1, 4, 1, 5, 9, 2, 6]},
]


def test_evaluate_on_rows_in_memory_returns_results_a_notebook_shows():
    results = thoughtgraph.evaluate("sorting", ROWS, schemes="io,got", model="sim:error=0")
    assert isinstance(results, thoughtgraph.EvalResults)
    assert [(r.scheme, r.sample) for r in results.results] == [
        ("io", "a"), ("io", "b"), ("got", "a"), ("got", "b"),
    ]  # fmt: skip
    assert results.folder is None and results.files == []  # nothing written without out
    assert [row.scheme for row in results.summary()] == ["io", "got"]
    markdown = results._repr_markdown_()
    assert "| io |" in markdown and "| got |" in markdown
    page = results._repr_html_()
    assert page.startswith("<div><strong>sorting on rows: 2 samples") and "<td>got</td>" in page


def test_to_pandas_one_row_per_pair_or_per_scheme():
    pytest.importorskip("pandas")
    results = thoughtgraph.evaluate("sorting", ROWS, schemes=["io"], model="sim:error=0")
    frame = results.to_pandas()
    assert list(frame["sample"]) == ["a", "b"] and list(frame["scheme"]) == ["io", "io"]
    assert {"error", "requests", "tokens", "solved"} <= set(frame.columns)
    summary = results.to_pandas(summary=True)
    assert list(summary["scheme"]) == ["io"] and "median_error" in summary.columns


def test_to_pandas_without_pandas_is_one_clear_line(monkeypatch):
    results = thoughtgraph.evaluate("sorting", ROWS[:1], schemes="io", model="sim:error=0")
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    with pytest.raises(InputError) as caught:
        results.to_pandas()
    assert str(caught.value) == "to_pandas() needs pandas: pip install 'thoughtgraph[pandas]'"


def test_evaluate_with_out_writes_the_clis_files_and_runs_graphs(tmp_path):
    graph = thoughtgraph.schemes.build("got", "sorting", 16)
    results = thoughtgraph.evaluate(
        "sorting", "sorting_016", schemes="io", graphs={"mine": graph}, samples=2,
        model="sim:error=0", out=tmp_path / "e",
    )  # fmt: skip
    assert results.schemes == ("io", "mine")
    names = {p.name for p in results.files}
    assert {"results.jsonl", "summary.md", "summary.csv"} <= names
    lines = (tmp_path / "e" / "results.jsonl").read_text().splitlines()
    assert {json.loads(x)["scheme"] for x in lines} == {"io", "mine"}
    assert json.loads((tmp_path / "e" / "eval.json").read_text())["dataset"] == "sorting_016"
    again = thoughtgraph.evaluate(
        "sorting", "sorting_016", schemes="io", graphs={"mine": graph}, samples=2,
        model="sim:error=0", out=tmp_path / "e",
    )  # fmt: skip
    assert len((tmp_path / "e" / "results.jsonl").read_text().splitlines()) == 4  # resumed
    assert [r.error for r in again.results] == [r.error for r in results.results]


@pytest.mark.anyio
async def test_aevaluate_against_the_loopback_server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI(error=0.0) as server:
        model = thoughtgraph.models.OpenAIModel(
            "gpt-4o-mini", base_url=server.base_url, max_retries=0
        )
        results = await thoughtgraph.aevaluate("sorting", ROWS, schemes="io", model=model)
        assert len(server.requests) == 2
        assert [r.solved for r in results.results] == [True, True]  # reference; own solver
        with pytest.raises(ThoughtgraphError, match=r'rows row 1: no "input"'):
            await thoughtgraph.aevaluate("sorting", [{"inp": [1]}], schemes="io", model=model)
        with pytest.raises(ThoughtgraphError, match="unknown scheme 'nope'"):
            await thoughtgraph.aevaluate("sorting", ROWS, schemes="io,nope", model=model)
        assert len(server.requests) == 2  # nothing more was sent for the bad calls


def test_evaluate_inside_a_running_loop_runs_in_a_helper_thread():
    import asyncio

    async def notebook_cell():
        return thoughtgraph.evaluate("sorting", ROWS[:1], schemes="io", model="sim:error=0")

    results = asyncio.run(notebook_cell())
    assert results.results[0].error == 0


def test_tune_returns_its_front_and_best_graph(tmp_path):
    pytest.importorskip("optuna")
    pytest.importorskip("pandas")
    found = thoughtgraph.tune(
        "sorting", "sorting_016", schemes="got", trials=3, pilot=2, holdout=1,
        out=tmp_path / "t",
    )  # fmt: skip
    assert isinstance(found, thoughtgraph.TuneResults)
    assert found.best.size == 16
    assert found.best.to_dict() in [graph.to_dict() for graph in found.front]
    assert (tmp_path / "t" / "best.yaml").is_file() and found.folder == tmp_path / "t"
    frame = found.to_pandas()
    assert "pick" in set(frame["mark"]) and "baseline" in set(frame["mark"])
    assert found._repr_markdown_().startswith("# tune sorting on sorting_016")
    # the picked graph runs in an evaluation beside the schemes
    results = thoughtgraph.evaluate(
        "sorting", "sorting_016", schemes="io", graphs={"best": found.best}, samples=1,
        model="sim:error=0",
    )  # fmt: skip
    assert results.schemes == ("io", "best")


@pytest.mark.anyio
async def test_atune_refuses_what_is_not_a_model_in_one_line():
    with pytest.raises(InputError, match="not a model: int"):
        await thoughtgraph.atune("sorting", model=42)  # type: ignore[arg-type]


def test_the_library_never_imports_the_cli():
    import subprocess

    code = (
        "import sys, thoughtgraph\n"
        "thoughtgraph.evaluate('sorting', [{'input': [2, 1]}], schemes='io', model='sim')\n"
        "import thoughtgraph.tuning.run, thoughtgraph.api.tuning\n"
        "print(sorted(m for m in sys.modules if m.startswith('thoughtgraph.cli')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def frozen(folder) -> list[dict]:
    """results.jsonl without the wall-clock time, in a fixed order."""
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("wall_seconds")
    return sorted(rows, key=lambda r: (r["scheme"], str(r["sample"]), r["repeat"]))


def test_evaluate_at_several_sizes_writes_what_eval_writes(tmp_path, capsys):
    from thoughtgraph.cli.main import main
    from thoughtgraph.evaluation.session import Note, SizeDone, SizeStarting

    heard = []
    found = thoughtgraph.evaluate(
        "sorting", sizes=[8, 16], schemes="io,got", samples=2, model="sim",
        out=tmp_path / "api", on_event=heard.append,
    )  # fmt: skip
    assert isinstance(found, thoughtgraph.EvalSizes) and found.sizes == [8, 16]
    assert found[16].size == 16 and found[16].folder == tmp_path / "api" / "size-16"
    assert found.folder == tmp_path / "api"
    assert {p.name for p in found.files} >= {"summary.md", "summary.csv"}
    assert [type(e) for e in heard] == [SizeStarting, SizeDone, SizeStarting, SizeDone]
    assert not any(isinstance(e, Note) for e in heard)
    with pytest.raises(SystemExit) as done:
        main(["eval", "sorting", "--size", "8,16", "--schemes", "io,got", "--samples", "2",
              "--out", str(tmp_path / "cli"), "--no-progress"])  # fmt: skip
    assert done.value.code in (0, None)
    printed = capsys.readouterr().out
    for size in (8, 16):
        assert frozen(tmp_path / "api" / f"size-{size}") == frozen(
            tmp_path / "cli" / f"size-{size}"
        )
    for name in ("summary.md", "summary.csv"):
        assert (tmp_path / "api" / name).read_text() == (tmp_path / "cli" / name).read_text()
    assert (tmp_path / "cli" / "summary.md").read_text() in printed
    if importlib.util.find_spec("pandas"):
        frame = found.to_pandas()
        assert frame.columns[0] == "size" and sorted(set(frame["size"])) == [8, 16]
        assert len(frame) == 2 * 2 * 2


def test_a_clipped_sample_count_is_a_note_event_and_sizes_with_a_dataset_are_refused():
    from thoughtgraph.evaluation.session import Note

    heard = []
    thoughtgraph.evaluate(
        "keyword-counting", schemes="io", samples=150, model="sim", on_event=heard.append,
        parallel=1, max_requests=1,
    )  # fmt: skip
    notes = [e.text for e in heard if isinstance(e, Note)]
    assert notes == ["dataset countries has 100 samples; samples 150 clipped to 100"]
    with pytest.raises(InputError, match=r"^a dataset names one size"):
        thoughtgraph.evaluate("sorting", "sorting_032", sizes=[32, 64], schemes="io")


def test_evaluate_runs_in_the_order_it_is_given():
    """`order="bfs"` runs one op at a time (the reference controller's order): got's two parts
    are never asked at once; the default (eager at concurrency 16) asks them together."""
    import asyncio

    rows = [{"input": list(range(16, 0, -1))}]

    def most_at_once(order: str) -> int:
        state = {"now": 0, "most": 0}

        async def model(prompt: str) -> str:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
            await asyncio.sleep(0.01)  # let any other op that may run now start
            state["now"] -= 1
            return "[]"

        thoughtgraph.evaluate("sorting", rows, schemes="got", model=model, order=order)
        return state["most"]

    assert most_at_once("bfs") == 1
    assert most_at_once("eager") > 1
    with pytest.raises(InputError, match="order must be one of"):
        thoughtgraph.evaluate("sorting", rows, schemes="got", order="sideways")


def test_an_error_of_the_sync_api_is_not_chained_to_the_event_loop_probe():
    """solve() and evaluate() ask whether a loop runs before they run: an error of the run is
    its own, with no "RuntimeError: no running event loop ... During handling of the above
    exception" in front of it."""
    with pytest.raises(InputError) as solving:
        thoughtgraph.solve("sorting", [], model="sim")
    with pytest.raises(ThoughtgraphError) as evaluating:
        thoughtgraph.evaluate("sorting", sizes=[32], samples=1, schemes=["nope"], model="sim")
    for error in (solving.value, evaluating.value):
        assert error.__context__ is None and error.__cause__ is None
