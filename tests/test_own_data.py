"""Your data and your graphs: `--data FILE` on solve/eval/tune, `eval --graph FILE` and scheme
variants (`got_paper:parts=8`, the paper's got8/gotx/got2), against the loopback
OpenAI-compatible server where a model endpoint is involved (tests/fake_openai.py)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from thoughtgraph.engine.graph import Graph
from thoughtgraph.evaluation.datasets import load_data
from thoughtgraph.schemes import variants

from .conftest import run_cli
from .fake_openai import FakeOpenAI

ROWS = [
    {"id": "a", "input": [5, 3, 1, 4], "reference": [1, 3, 4, 5]},
    {"id": 7, "input": "[9, 1, 4, 1, 5, 9, 2, 6]"},
    {"id": "c", "input": [3, 2, 1, 0], "reference": "[0, 1, 2, 3]"},
]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    for name in ("OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with FakeOpenAI(error=0.0) as fake:
        yield fake


def openai_flags(server: FakeOpenAI) -> list[str]:
    return ["--model", "openai:gpt-4o-mini", "--base-url", server.base_url, "--max-retries", "0"]


def write_rows(path: Path, rows: list[dict]) -> Path:
    """The rows in the format the file's extension names."""
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif path.suffix == ".json":
        path.write_text(json.dumps(rows))
    else:  # csv: every cell text, as a spreadsheet writes it
        lines = ["id,input,reference"]
        for r in rows:
            values = [r.get("id", ""), r["input"], r.get("reference", "")]
            cells = [v if isinstance(v, str | int) else json.dumps(v) for v in values]
            lines.append(",".join('"' + str(c).replace('"', '""') + '"' for c in cells))
        path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".json"])
def test_eval_runs_each_format_against_the_server(capsys, tmp_path, server, suffix):
    data = write_rows(tmp_path / f"mine{suffix}", ROWS)
    out = tmp_path / "out"
    code, stdout, err = run_cli(
        capsys, "eval", "sorting", "--data", str(data), "--schemes", "io", "--out", str(out),
        "--no-progress", *openai_flags(server),
    )  # fmt: skip
    assert code == 0, err
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    solved = {r["sample"]: r["solved"] for r in results}  # by the rows' ids
    # the server sorts right: each row's reference, or for the row without one the task's own
    # solver, says solved
    assert solved == {"a": True, 7: True, "c": True}
    assert len(server.requests) == 3  # one io request a row, every one paid and counted
    manifest = json.loads((out / "eval.json").read_text())
    assert manifest["dataset"] == f"mine{suffix}"
    assert manifest["data_sha256"] == load_data(data, "sorting").sha256
    assert f"sorting on mine{suffix}: 3 samples" in stdout  # the summary names the file


def test_a_changed_data_file_is_refused_on_resume(capsys, tmp_path):
    data = write_rows(tmp_path / "mine.jsonl", ROWS)
    out = tmp_path / "out"
    args = ["eval", "sorting", "--data", str(data), "--schemes", "io", "--out", str(out)]
    assert run_cli(capsys, *args, "--model", "sim:error=0")[0] == 0
    write_rows(data, [*ROWS, {"input": [2, 1]}])
    code, _, err = run_cli(capsys, *args, "--model", "sim:error=0")
    assert code == 2
    assert "another version of mine.jsonl (the data file changed since)" in err


BAD = [
    ("no_input.jsonl", '{"input": [1, 2]}\n{"id": 2, "inp": [3]}\n',
     'no_input.jsonl row 2: no "input"'),
    ("blank_input.json", '[{"input": [1]}, {"input": "  "}]', 'blank_input.json row 2: no "input"'),
    ("wrong_ref.jsonl", '{"input": [2, 1], "reference": [1, 3]}\n',
     'wrong_ref.jsonl row 1: "reference" is not a right answer to its input'),
    ("bad_ref.jsonl", '{"input": [2, 1], "reference": "banana"}\n',
     'bad_ref.jsonl row 1: "reference" cannot be read as an answer of sorting'),
    ("dup.jsonl", '{"id": 5, "input": [2]}\n{"id": "5", "input": [1]}\n',
     "dup.jsonl row 2: id 5 is also row 1's"),
    ("empty.jsonl", "\n\n", "data file {dir}/empty.jsonl holds no rows"),
    ("rows.txt", '{"input": [1]}\n', "unknown format '.txt' (use .jsonl, .csv or .json)"),
    ("bad.jsonl", '{"input": [1]}\n{nope\n', "bad.jsonl row 2: not valid JSON"),
    ("list.json", '[{"input": [1]}, 3]', "list.json row 2: not a JSON object"),
    ("notlist.json", '{"input": [1]}', "notlist.json: not a JSON list of rows"),
    ("bad_input.csv", 'input\n"[1, 2]"\n"[2, x]"\n', "bad_input.csv row 2: input item 2"),
    ("bad_id.jsonl", '{"id": "a/b", "input": [1]}\n', 'bad_id.jsonl row 1: "id" \'a/b\' must be'),
    ("wide.csv", 'input\n"[1]",extra\n', "wide.csv row 1: 2 cells, but the header has 1"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "message"), BAD, ids=[b[0] for b in BAD])
@pytest.mark.parametrize("command", ["eval", "solve", "tune"])
def test_a_bad_row_is_one_line_before_any_request(
    capsys, tmp_path, server, command, name, text, message
):
    (tmp_path / name).write_text(text)
    out = tmp_path / "out"
    extra = ["--no-progress"] if command == "solve" else ["--out", str(out)]
    code, _, err = run_cli(
        capsys, command, "sorting", "--data", str(tmp_path / name), *extra, *openai_flags(server)
    )
    assert code == 2
    assert message.format(dir=tmp_path) in err
    assert err.count("\n") == 1 and err.startswith("error: ")  # one line, no traceback
    assert len(server.requests) == 0  # refused before anything was sent
    assert not out.exists()  # and before anything was written


def test_input_column_names_the_problem_column(capsys, tmp_path):
    data = tmp_path / "q.csv"
    data.write_text('id,numbers\n1,"[3, 1, 2]"\n')
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--data", str(data), "--input-column", "numbers",
        "--model", "sim:error=0", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["output"] == [1, 2, 3]
    code, _, err = run_cli(capsys, "solve", "sorting", "--data", str(data), "--model", "sim")
    assert (code, err) == (2, 'error: q.csv row 1: no "input"\n')


def test_solve_picks_a_row_and_its_reference_reaches_ground_truth(capsys, tmp_path):
    data = write_rows(tmp_path / "mine.jsonl", ROWS)
    trace = tmp_path / "t.json"
    code, out, err = run_cli(
        capsys, "solve", "sorting", "--data", str(data), "--id", "c", "--model", "sim:error=0",
        "--scheme", "io", "--json", "--trace", str(trace),
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert result["output"] == [0, 1, 2, 3] and result["matches_reference"] is True
    thoughts = json.loads(trace.read_text())["thoughts"]
    assert [t["solved"] for t in thoughts if t["solved"] is not None] == [True]
    code, out, _ = run_cli(
        capsys, "solve", "sorting", "--data", str(data), "--sample", "2", "--model", "sim:error=0",
        "--json",
    )  # fmt: skip
    assert json.loads(out)["output"] == [1, 1, 2, 4, 5, 6, 9, 9]
    assert "matches_reference" not in json.loads(out)  # row 2 has no reference
    for args, message in (
        (["--id", "zz"], "mine.jsonl has no row with id 'zz'"),
        (["--sample", "4"], "--sample must be a row of mine.jsonl: 1 to 3"),
        (["--sample", "1", "--id", "a"], "give either --sample N or --id ID, not both"),
        (["--input", "[1]"], "give exactly one of --input, --input-file, --dataset or --data"),
    ):
        code, _, err = run_cli(capsys, "solve", "sorting", "--data", str(data), *args)
        assert (code, err) == (2, f"error: {message}\n")


def test_a_rows_reference_is_what_ground_truth_compares_with():
    """A task without a solver of its own is checked against the row's reference."""
    from thoughtgraph import SortingTask, solve

    class NoSolver(SortingTask):
        name = "sorting-without-solver"
        reference = None  # type: ignore[assignment]

    result = solve(NoSolver(), [2, 1], "sim:error=0", scheme="io", reference=[1, 2])
    assert [t.solved for t in result.state.thoughts.values() if t.solved is not None] == [True]
    wrong = solve(SortingTask(), [2, 1], "sim:error=0", scheme="io", reference=[2, 1])
    judged = [t.solved for t in wrong.state.thoughts.values() if t.solved is not None]
    assert judged == [False]  # the given reference, not the task's own solver


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small tune of sorting at size 16 on the simulated model: its best.yaml and fronts."""
    pytest.importorskip("optuna")
    folder = tmp_path_factory.mktemp("tune")
    from thoughtgraph.cli.main import main

    with pytest.raises(SystemExit) as stop:
        main(["tune", "sorting", "--size", "16", "--trials", "4", "--pilot", "2",
              "--holdout", "1", "--out", str(folder), "--schemes", "got"])  # fmt: skip
    assert stop.value.code in (0, None)
    return folder


def test_eval_graph_measures_a_tune_output_beside_io_and_got(capsys, tmp_path, tuned):
    pytest.importorskip("matplotlib")
    best = tuned / "best.yaml"
    assert Graph.load(best).size == 16  # tune says what size it built the graph for
    out = tmp_path / "out"
    code, stdout, err = run_cli(
        capsys, "eval", "sorting", "--size", "16", "--samples", "3", "--schemes", "io,got",
        "--graph", str(best), "--out", str(out), "--traces", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert {r["scheme"] for r in results} == {"io", "got", "best"}
    assert sum(r["scheme"] == "best" for r in results) == 3  # a row per sample
    assert "| best |" in stdout  # in the summary
    svg = (out / "errors.svg").read_text()
    assert 'id="box-best-16"' in svg and 'id="box-io-16"' in svg  # and in the figure
    trace = next(r["trace"] for r in results if r["scheme"] == "best")
    assert trace == "traces/best-000.json" and (out / trace).is_file()
    manifest = json.loads((out / "eval.json").read_text())
    assert set(manifest["graphs"]) == {"best"}


def test_a_graph_built_for_another_size_is_refused_before_any_request(
    capsys, tmp_path, server, tuned
):
    out = tmp_path / "out"
    code, _, err = run_cli(
        capsys, "eval", "sorting", "--size", "32", "--schemes", "io", "--graph",
        str(tuned / "best.yaml"), "--out", str(out), *openai_flags(server),
    )  # fmt: skip
    assert code == 2
    assert err == (
        "error: graph best was built for size 16, but sorting_032 has size 32: tune at size "
        "32, or drop its size: line to run it anyway\n"
    )
    assert len(server.requests) == 0 and not out.exists()


def test_graph_rows_are_named_by_file_or_name_and_never_twice(capsys, tmp_path):
    built = variants.parse("got", "sorting").build("sorting", 8)
    (tmp_path / "one.json").write_text(built.to_json())
    named = built.model_copy(update={"name": "mine"})
    (tmp_path / "two.yaml").write_text(named.to_yaml())
    (tmp_path / "io.yaml").write_text(built.to_yaml())
    args = ["eval", "sorting", "--size", "8", "--samples", "2", "--model", "sim:error=0"]
    code, _, err = run_cli(
        capsys, *args, "--schemes", "io", "--graph", str(tmp_path / "one.json"),
        "--graph", str(tmp_path / "two.yaml"), "--out", str(tmp_path / "o1"), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    rows = {json.loads(x)["scheme"] for x in (tmp_path / "o1" / "results.jsonl").open()}
    assert rows == {"io", "one", "mine"}
    code, _, err = run_cli(
        capsys, *args, "--schemes", "io", "--graph", str(tmp_path / "io.yaml"),
        "--out", str(tmp_path / "o2"),
    )  # fmt: skip
    assert code == 2 and "two rows are named 'io'" in err and err.count("\n") == 1
    # a graph file that changed under the same name is not mixed with the old one's results
    (tmp_path / "one.json").write_text(
        variants.parse("io", "sorting").build("sorting", 8).to_json()
    )
    code, _, err = run_cli(
        capsys, *args, "--schemes", "io", "--graph", str(tmp_path / "one.json"),
        "--out", str(tmp_path / "o1"),
    )  # fmt: skip
    assert code == 2 and "holds results of another graph named 'one'" in err


def test_scheme_variants_run_as_rows_with_their_labels(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "out"
    code, stdout, err = run_cli(
        capsys, "eval", "sorting", "--size", "32", "--samples", "2", "--model", "sim:error=0",
        "--schemes", "got_paper,got_paper:parts=4,merge_n=3", "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert {r["scheme"] for r in results} == {"got_paper", "got_paper:parts=4,merge_n=3"}
    four = [r for r in results if r["scheme"] == "got_paper:parts=4,merge_n=3"]
    two = [r for r in results if r["scheme"] == "got_paper"]
    assert four[0]["requests"] != two[0]["requests"]  # another graph ran
    assert "| got_paper:parts=4,merge_n=3 | parts=4,merge_n=3 |" in stdout
    assert "GoT (paper) (parts=4,merge_n=3)" in (out / "errors.svg").read_text()


def test_the_papers_keyword_counting_variants_carry_its_labels(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "out"
    code, stdout, err = run_cli(
        capsys, "eval", "keyword-counting", "--samples", "1", "--model", "sim:error=0",
        "--schemes", "got4,got8,gotx", "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    assert "| got8 | GoT8: got_paper parts=8 |" in stdout
    svg = (out / "errors.svg").read_text()
    assert all(label in svg for label in ("GoT4", "GoT8", "GoTx"))
    gotx = variants.parse("gotx", "keyword-counting").build("keyword-counting", 12)
    parts = [op for op in gotx.ops if op.kind == "select"]
    assert len(parts) == 12  # one part per sentence, the paper's GoTx
    got2 = variants.parse("got2", "doc-merge").build("doc-merge", 4)
    assert sum(op.kind == "select" for op in got2.ops) == 2  # pairs of documents merged first


@pytest.mark.parametrize(
    ("schemes", "message"),
    [
        ("got_paper:parts=x", "scheme got_paper:parts=x: parts must be a whole number or 'size'"),
        ("got_paper:fanout=2", "scheme got_paper:fanout=2: got_paper has no setting 'fanout'"),
        ("got_paper:parts", "scheme got_paper:parts: 'parts' is not key=value"),
        ("got_paper:parts=64", "scheme got_paper:parts=64 cannot run on sample 0 (32 items)"),
        ("got8", "unknown scheme 'got8' (known: io, cot, cot_sc, tot, tot2, got, got_paper, top, "
                 "got_adaptive; got8 is the paper's variant for keyword-counting)"),
    ],
)  # fmt: skip
def test_a_bad_variant_is_one_line_before_any_request(capsys, tmp_path, server, schemes, message):
    out = tmp_path / "out"
    code, _, err = run_cli(
        capsys, "eval", "sorting", "--schemes", schemes, "--out", str(out), *openai_flags(server)
    )
    assert code == 2 and err.startswith(f"error: {message}") and err.count("\n") == 1
    assert len(server.requests) == 0 and not out.exists()


def test_tune_takes_a_data_file_and_writes_graphs_eval_runs(capsys, tmp_path):
    pytest.importorskip("optuna")
    rows = [{"id": i, "input": [(7 * i + j) % 10 for j in range(12)]} for i in range(4)]
    data = write_rows(tmp_path / "mine.jsonl", rows)
    folder = tmp_path / "tune"
    code, _, err = run_cli(
        capsys, "tune", "sorting", "--data", str(data), "--trials", "3", "--pilot", "2",
        "--holdout", "1", "--schemes", "got", "--out", str(folder),
    )  # fmt: skip
    assert code == 0, err
    assert "tune sorting on mine.jsonl" in err
    assert Graph.load(folder / "best.yaml").size == 12
    code, out, err = run_cli(
        capsys, "eval", "sorting", "--data", str(data), "--schemes", "io", "--graph",
        str(folder / "best.yaml"), "--model", "sim:error=0", "--out", str(tmp_path / "e"),
        "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    assert "| best |" in out
    code, _, err = run_cli(
        capsys, "tune", "sorting", "--data", str(data), "--pilot", "4", "--holdout", "1",
        "--out", str(folder),
    )  # fmt: skip
    assert (code, err) == (
        2,
        "error: --pilot 4 + --holdout 1 exceeds the 4 samples of mine.jsonl\n",
    )


def test_a_task_files_rows_are_solved_by_its_own_comparison(capsys, tmp_path, monkeypatch):
    """The people example with the hand-written model: a row is solved when its answer has no
    error, whatever the order of the names (the task file's rule), with or without a
    ground_truth op in the graph (`got` has none)."""
    root = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(root)
    monkeypatch.setattr(sys, "path", list(sys.path))
    out = tmp_path / "people"
    code, _, err = run_cli(
        capsys, "eval", "examples/people/task.yaml", "--data", "examples/people/data.jsonl",
        "--schemes", "io,got", "--model", "py:examples.people.naive_model:names",
        "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(results) == 12
    assert all(r["solved"] == (r["error"] == 0) for r in results)
    assert any(r["solved"] for r in results if r["scheme"] == "got")
