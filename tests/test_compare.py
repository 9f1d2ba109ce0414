"""`thoughtgraph compare RUN_A RUN_B`: two eval folders paired on the rows they share."""

from __future__ import annotations

import asyncio
import csv
import io
import json

import pytest

from thoughtgraph.evaluation import compare as comparing
from thoughtgraph.evaluation import statistics as st
from thoughtgraph.evaluation.runner import plan, run_pairs

from .conftest import run_cli

pytest.importorskip("scipy.stats")
SCHEMES = ("io", "got")


def eval_into(out, model="sim", samples=5, size=32, schemes=SCHEMES, task="sorting"):
    the_plan = plan(task, size, schemes, samples)
    return asyncio.run(run_pairs(the_plan, model, out))


@pytest.fixture(scope="module")
def two_seeds(tmp_path_factory):
    root = tmp_path_factory.mktemp("cmp")
    a = eval_into(root / "a")
    b = eval_into(root / "b", model="sim:seed=7")
    return root, a, b


def test_compare_pairs_shared_samples_and_prints_differences_with_cis(two_seeds, capsys):
    root, a, b = two_seeds
    code, out, err = run_cli(capsys, "compare", str(root / "a"), str(root / "b"))
    assert code == 0, err
    assert "| io | 32 | 5 |" in out and "| got | 32 | 5 |" in out
    rows = comparing.compare([comparing.load_run(root / "a"), comparing.load_run(root / "b")])
    io_row = next(r for r in rows if r.scheme == "io")
    expected = st.paired(
        [r.error for r in b if r.scheme == "io"], [r.error for r in a if r.scheme == "io"]
    )
    assert io_row.difference == expected.difference and io_row.p == pytest.approx(expected.p)
    assert io_row.solved_baseline == sum(r.solved for r in a if r.scheme == "io")
    tokens = [r.intrinsic_tokens for r in a if r.scheme == "io"]
    assert io_row.tokens_baseline == pytest.approx(sum(tokens) / len(tokens))
    line = next(x for x in out.splitlines() if x.startswith("| io | 32 |"))
    d = io_row.difference
    assert f"{d.value:+.3g} | {d.low:+.3g}, {d.high:+.3g} |" in line


def test_compare_formats_csv_and_json_carry_the_same_rows(two_seeds, capsys, tmp_path):
    root, _a, _b = two_seeds
    code, out, _ = run_cli(capsys, "compare", str(root / "a"), str(root / "b"), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [r["scheme"] for r in rows] == ["io", "got"]
    assert set(comparing.COLUMNS) == set(rows[0])
    figure = tmp_path / "side.svg"
    code, out, _ = run_cli(
        capsys,
        "compare",
        str(root / "a"),
        str(root / "b"),
        "--format",
        "json",
        "--figure",
        str(figure),
    )
    data = json.loads(out)
    assert code == 0 and data["task"] == "sorting" and len(data["rows"]) == 2
    assert float(rows[0]["p_wilcoxon"]) == pytest.approx(data["rows"][0]["p_wilcoxon"])
    svg = figure.read_text()
    assert all(f'id="box-{s}-32-run{j}"' in svg for s in SCHEMES for j in (0, 1))


def test_only_the_samples_both_runs_have_are_paired(two_seeds, tmp_path, capsys):
    root, _a, _b = two_seeds
    eval_into(tmp_path / "short", samples=3, schemes=("io",))
    code, out, _ = run_cli(capsys, "compare", str(root / "a"), str(tmp_path / "short"))
    assert code == 0 and "| io | 32 | 3 |" in out and "| got |" not in out


@pytest.mark.parametrize(
    "other, message",
    [
        ({"task": "keyword-counting", "size": 32}, "compare runs of one task"),
        ({"task": "sorting", "size": 32, "schemes": ("cot",)}, "share no (scheme, size, sample)"),
    ],
)
def test_runs_of_another_task_or_nothing_shared_are_one_line(
    two_seeds, tmp_path, capsys, other, message
):
    root, _a, _b = two_seeds
    eval_into(tmp_path / "o", samples=2, **other)
    code, _out, err = run_cli(capsys, "compare", str(root / "a"), str(tmp_path / "o"))
    assert code == 2 and err.count("\n") == 1 and message in err


def test_another_dataset_of_the_same_size_is_refused(two_seeds, tmp_path, capsys):
    root, _a, _b = two_seeds
    other = tmp_path / "other"
    eval_into(other, samples=2)
    manifest = json.loads((other / "eval.json").read_text())
    (other / "eval.json").write_text(json.dumps(manifest | {"dataset": "mine_032"}))
    code, _out, err = run_cli(capsys, "compare", str(root / "a"), str(other))
    assert code == 2 and "compare runs of one dataset" in err and err.count("\n") == 1


def test_not_an_eval_folder_or_one_folder_is_one_line(tmp_path, capsys, two_seeds):
    root, _a, _b = two_seeds
    code, _out, err = run_cli(capsys, "compare", str(root / "a"), str(tmp_path))
    assert code == 2 and "is not an eval output folder" in err
    code, _out, err = run_cli(capsys, "compare", str(root / "a"))
    assert code == 2 and err.startswith("error: give at least two eval folders")
    code, _out, err = run_cli(capsys, "compare", str(root / "a"), str(root / "b"), "--format", "x")
    assert code == 2 and "--format must be one of md, csv, json" in err
