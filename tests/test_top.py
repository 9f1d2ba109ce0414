"""Tree of Problems (`top:b=B,d=D`): the tree's shape, its request count known before the run,
what it solves on the simulated model, its refusals, and its rows in eval, figures and compare."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter

import pytest

import thoughtgraph
from thoughtgraph import schemes
from thoughtgraph.errors import GraphError
from thoughtgraph.evaluation.datasets import load_dataset
from thoughtgraph.evaluation.measures import label
from thoughtgraph.evaluation.record import built
from thoughtgraph.schemes import variants
from thoughtgraph.tasks.base import BaseTask, Score

from .conftest import run_cli


def kinds(graph: thoughtgraph.Graph) -> Counter[str]:
    return Counter(op.kind for op in graph.ops)


@pytest.mark.parametrize(
    ("b", "d", "pairwise", "splits", "leaves", "merges"),
    [
        (2, 1, False, 1, 2, 1),
        (2, 2, False, 3, 4, 3),
        (2, 3, False, 7, 8, 7),
        (3, 2, False, 4, 9, 4),  # one merge of three answers a node
        (3, 2, True, 4, 9, 8),  # two pairwise merges a node
        (4, 1, True, 1, 4, 3),
    ],
)
def test_the_tree_has_b_parts_a_node_d_levels_deep(b, d, pairwise, splits, leaves, merges):
    graph = schemes.top(b=b, d=d, pairwise=pairwise)
    found = kinds(graph)
    assert (found["split"], found["generate"], found["aggregate"]) == (splits, leaves, merges)
    assert found["select"] == b * splits
    assert all(op.params.parts == b for op in graph.ops if op.kind == "split")
    assert merges + leaves == schemes.top_requests(b, d, pairwise)
    # no retries and no choice by score: one answer a leaf, one a merge, nothing kept or fixed
    assert not found["keep_best"] and not found["refine"]
    for op in graph.ops:
        if op.kind in ("generate", "aggregate"):
            assert op.params.n == 1 and op.params.repeat == 1
            assert getattr(op.params, "max_regenerations", 0) == 0
            assert getattr(op.params, "max_extra_merges", 0) == 0
    assert graph.output.id == "ground_truth"


def test_each_node_splits_its_own_piece_and_merges_its_own_children():
    graph = schemes.top(b=2, d=2)
    assert graph.op("split").inputs == ()
    assert graph.op("split_1").inputs == ("select_1",)
    assert graph.op("select_1_2").inputs == ("split_1",)
    assert graph.op("part_1_2").inputs == ("select_1_2",)
    assert graph.op("part_1_2").params.prompt == "io"
    assert graph.op("merge_1").inputs == ("part_1_1", "part_1_2")
    assert graph.op("merge").inputs == ("merge_1", "merge_2")
    assert graph.op("merge").params.prompt == "paper_merge"
    wide = schemes.top(b=4, d=1, pairwise=True)  # a balanced tree of pairwise merges a node
    assert wide.op("merge_p1").inputs == ("part_1", "part_2")
    assert wide.op("merge_p2").inputs == ("part_3", "part_4")
    assert wide.op("merge").inputs == ("merge_p1", "merge_p2")


def test_a_merge_prompt_of_two_results_makes_wide_nodes_pairwise():
    """Sorting's, sets' and keyword counting's paper merge name <a> and <b> only: a node of
    three children is two merges there; document merging's takes all its versions: one."""
    for task in ("sorting", "set-intersection", "keyword-counting"):
        assert schemes.settings_for("top", task, 32, b=3, d=1)["pairwise"] is True
        assert schemes.settings_for("top", task, 32, b=2, d=1)["pairwise"] is False
    assert schemes.settings_for("top", "doc-merge", 4, b=3, d=1)["pairwise"] is False
    graph = schemes.build("top", "doc-merge", 4, b=3, d=1)
    assert graph.op("merge").inputs == ("part_1", "part_2", "part_3")


@pytest.mark.parametrize(
    ("task", "size", "depth"),
    [("sorting", 8, 1), ("sorting", 32, 2), ("sorting", 64, 3), ("sorting", 128, 4),
     ("keyword-counting", 16, 2), ("doc-merge", 4, 1)],
)  # fmt: skip
def test_bare_top_cuts_leaves_to_the_tasks_part_size(task, size, depth):
    settings = schemes.settings_for("top", task, size)
    assert (settings["b"], settings["d"]) == (2, depth)


def test_bare_top_on_wider_trees_never_cuts_an_empty_leaf():
    assert schemes.settings_for("top", "sorting", 64, b=3)["d"] == 2  # 9 leaves of 7 or 8
    assert schemes.settings_for("top", "sorting", 5, b=4)["d"] == 1  # 16 leaves would be empty


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("top:b=1", "b must be at least 2, got 1"),
        ("top:b=2,d=0", "d must be at least 1, got 0"),
        ("top:b=2,d=6", "b=2, d=6 cuts the problem into 64 leaves, but it has 32 items"),
        ("top:b=2,d=99999", "more than 100,000 leaves, but it has 32 items"),
        ("top:k=3", "top has no setting 'k' (settings: b, d, prompt, score_samples)"),
        ("top:pairwise=1", "top has no setting 'pairwise'"),
        ("top:b=two", "b must be a whole number, got 'two'"),
    ],
)
def test_bad_settings_are_one_line_before_any_request(capsys, tmp_path, row, message):
    code, _, err = run_cli(
        capsys, "eval", "sorting", "--size", "32", "--samples", "2", "--model", "sim",
        "--schemes", f"io,{row}", "--out", str(tmp_path / "out"), "--no-progress",
    )  # fmt: skip
    assert code == 2
    assert err.startswith(f"error: scheme {row}") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_the_schemes_list_gives_each_setting_to_the_tree_before_it():
    names = variants.split_list("io,top:b=2,d=2,top:b=2,d=3,got,top")
    assert names == ["io", "top:b=2,d=2", "top:b=2,d=3", "got", "top"]
    assert variants.parse("top:b=2,d=3", "sorting").settings == (("b", 2), ("d", 3))


CASES = [
    ("sorting", "sorting_032", 2, 2),
    ("sorting", "sorting_064", 2, 3),
    ("sorting", "sorting_032", 3, 2),
    ("set-intersection", "set_intersection_032", 2, 2),
    ("set-intersection", "set_intersection_064", 2, 3),
    ("keyword-counting", "countries", 2, 3),
    ("keyword-counting", "countries", 4, 1),
]


@pytest.mark.parametrize(("task", "dataset", "b", "d"), CASES)
def test_it_solves_on_a_faultless_sim_with_the_requests_known_before(task, dataset, b, d):
    sample = load_dataset(dataset)[0]
    size = len(sample.input)
    settings = schemes.settings_for("top", task, size, b=b, d=d)
    graph = schemes.build("top", task, size, b=b, d=d)
    result = thoughtgraph.solve(task, sample.input, model="sim:error=0", graph=graph)
    assert result.clean and result.output == sample.reference and result.final.solved
    assert result.calls == schemes.top_requests(b, d, settings["pairwise"])
    merge_rounds = d * (2 if settings["pairwise"] and b > 2 else 1)  # b = 3 or 4: two rounds
    assert result.depth == 1 + merge_rounds  # the leaves at once, then a round a level


def test_document_merging_rates_the_final_merge_with_the_model():
    docs = load_dataset("documents")[0].input
    graph = schemes.build("top", "doc-merge", len(docs), b=2, d=2)
    assert graph.op("score").params.scorer == "model"
    result = thoughtgraph.solve("doc-merge", docs, model="sim:error=0", graph=graph)
    assert result.calls == schemes.top_requests(2, 2) + 1  # and the rating
    with pytest.raises(GraphError, match="8 leaves, but it has 4 items"):
        schemes.build("top", "doc-merge", len(docs), b=2, d=3)


def test_the_sim_at_its_slips_never_sends_more_than_the_count():
    samples = load_dataset("sorting_064")[:5]
    for sample in samples:
        result = thoughtgraph.solve(
            "sorting", sample.input, model="sim:error=3,seed=1", scheme="top"
        )
        assert result.calls == schemes.top_requests(2, 3)


class NoSplit(BaseTask[list[int], list[int]]):
    name = "no-split"

    def describe(self, problem: list[int]) -> str:
        return "Sort the numbers."

    def format(self) -> str:
        return "a list of numbers"

    def parse(self, text: str) -> list[int]:
        return [int(x) for x in text.strip("[] \n").split(",") if x.strip()]

    def score(self, problem: list[int], content: list[int]) -> Score:
        return Score(0.0 if content == sorted(problem) else 1.0)

    def split(self, problem: list[int], parts: int) -> list[list[int]]:
        raise NotImplementedError("these numbers cannot be cut")


def test_a_task_that_cannot_split_is_refused_in_one_line():
    asked: list[str] = []
    numbers = list(range(16, 0, -1))
    for scheme in ("top", "got"):
        with pytest.raises(GraphError) as caught:
            thoughtgraph.solve(NoSplit(), numbers, model=asked.append, scheme=scheme)
        assert str(caught.value) == (
            "op 'split': task 'no-split' cannot split this problem into 2 parts "
            "(NotImplementedError: these numbers cannot be cut): use a scheme without parts "
            "(io, cot, tot), or give the task a split"
        )
    assert asked == []  # refused before any request
    plain = thoughtgraph.solve(
        NoSplit(), numbers, model=lambda p: str(sorted(numbers)), scheme="io"
    )
    assert plain.clean  # a scheme that does not split runs


PEOPLE = """\
name: people
description: List every person named in the text.
answer:
  type: strings
  from_input: true
split:
  by: paragraphs
  part_size: 1
join: union
score:
  by: reference
"""


def test_a_task_file_runs_it_with_one_merge_of_all_children(tmp_path):
    """A task file's merge takes every result (`{{results}}`): b = 3 is one merge a node."""
    path = tmp_path / "people.yaml"
    path.write_text(PEOPLE)
    text = "Ada Lovelace wrote.\n\nAlan Turing read.\n\nGrace Hopper ran.\n\nKaren Jones sang."
    prompts: list[str] = []

    def model(prompt: str) -> str:
        prompts.append(prompt)
        names = [n for n in ("Ada Lovelace", "Alan Turing", "Grace Hopper", "Karen Jones")]
        tail = prompt.rsplit("<input>", 1)[-1]
        return json.dumps([n for n in names if n in tail])

    task = thoughtgraph.get_task(str(path))
    graph = schemes.build("top", task, 4, b=3, d=1)
    assert graph.op("merge").inputs == ("part_1", "part_2", "part_3")
    result = thoughtgraph.solve(
        task, text, model=model, graph=graph,
        reference=["Ada Lovelace", "Alan Turing", "Grace Hopper", "Karen Jones"],
    )  # fmt: skip
    assert len(prompts) == 4 and result.clean and result.final.solved
    assert "Each of the 3 results" in prompts[-1]


def test_a_task_file_rated_by_the_model_rates_the_final_merge(tmp_path):
    path = tmp_path / "notes.yaml"
    path.write_text(
        "name: notes\ndescription: Summarise the text.\nanswer:\n  type: text\n"
        "split:\n  by: paragraphs\njoin: concatenate\n"
        "score:\n  by: model\n  rubric: A good summary keeps every fact.\n"
    )
    task = thoughtgraph.get_task(str(path))
    graph = schemes.build("top", task, 4, b=2, d=1)
    assert graph.op("score").params.scorer == "model"
    assert "ground_truth" not in {op.kind for op in graph.ops}


def test_labels_show_breadth_and_depth():
    for row, size, shown in [
        ("top", 64, "ToP (b=2, d=3)"),
        ("top:b=2,d=3", 32, "ToP (b=2,d=3)"),
        ("top:b=3", 64, "ToP (d=2, b=3)"),
    ]:
        assert label(row, "sorting", size, built(row, "sorting", "sorting", [size])) == shown
    assert label("top", "sorting", 64) == "ToP (b=2, d=3)"  # a folder without the record


def test_eval_runs_two_trees_beside_the_schemes_into_the_figure_and_compare(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    rows = "io,got,top:b=2,d=2,top:b=2,d=3"
    out, again = tmp_path / "one", tmp_path / "two"
    for folder in (out, again):
        code, stdout, err = run_cli(
            capsys, "eval", "sorting", "--size", "32", "--samples", "3", "--model", "sim",
            "--schemes", rows, "--out", str(folder), "--no-progress",
        )  # fmt: skip
        assert code == 0, err
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    by_row = Counter(r["scheme"] for r in results)
    assert by_row == {"io": 3, "got": 3, "top:b=2,d=2": 3, "top:b=2,d=3": 3}
    assert {r["requests"] for r in results if r["scheme"] == "top:b=2,d=2"} == {7}
    assert {r["requests"] for r in results if r["scheme"] == "top:b=2,d=3"} == {15}
    assert "| top:b=2,d=3 | b=2,d=3 |" in stdout
    svg = (out / "errors.svg").read_text()
    assert "ToP (b=2,d=2)" in svg and "ToP (b=2,d=3)" in svg
    recorded = json.loads((out / "eval.json").read_text())["rows"]["top:b=2,d=3"]
    assert recorded == {
        "scheme": "top",
        "settings": {"b": 2, "d": 3, "prompt": "io", "pairwise": False, "score_samples": 0},
    }
    code, stdout, err = run_cli(capsys, "compare", str(out), str(again), "--format", "csv")
    assert code == 0, err
    compared = [row["scheme"] for row in csv.DictReader(io.StringIO(stdout))]
    assert compared == ["io", "got", "top:b=2,d=2", "top:b=2,d=3"]


# --- solve and graph take the names eval takes ----------------------------------------------


def test_solve_runs_a_tree_named_with_its_settings(capsys):
    code, stdout, err = run_cli(
        capsys, "solve", "sorting", "--dataset", "sorting_064", "--sample", "1",
        "--scheme", "top:b=2,d=3", "--model", "sim:error=0", "--json",
    )  # fmt: skip
    assert code == 0, err
    found = json.loads(stdout)
    assert (found["calls"], found["depth"]) == (15, 4)
    result = thoughtgraph.solve("sorting", [3, 1, 2, 5], model="sim:error=0", scheme="top:b=2")
    assert result.calls == 3 and result.output == [1, 2, 3, 5]


def test_graph_prints_a_tree_named_with_its_settings(capsys):
    code, stdout, err = run_cli(capsys, "graph", "top:b=3,d=2", "--size", "64")
    assert code == 0, err
    built = thoughtgraph.Graph.from_json(stdout)
    assert built == schemes.build("top", "sorting", 64, b=3, d=2)
    assert kinds(built)["generate"] == 9


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["graph", "top:b=2", "--parts", "2"],
         "--parts applies to a plain got or got_paper; 'top:b=2' sets its own"),
        (["solve", "sorting", "--dataset", "sorting_032", "--scheme", "top:b=2", "--parts", "2"],
         "parts applies to a plain got or got_paper; 'top:b=2' sets its own"),
        (["graph", "top:b=2,d=6"], "scheme top:b=2,d=6: b=2, d=6 cuts the problem into 64 leaves"),
        (["solve", "sorting", "--dataset", "sorting_032", "--scheme", "top:q=1"],
         "scheme top:q=1: top has no setting 'q'"),
    ],
)  # fmt: skip
def test_a_named_tree_that_cannot_be_built_is_one_line(capsys, argv, message):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and err == f"error: {message}" + err.split(message, 1)[1]
    assert err.count("\n") == 1


def test_a_got_variant_keeps_the_runs_retry_options_unless_it_sets_them(capsys):
    code, stdout, err = run_cli(
        capsys, "solve", "sorting", "--dataset", "sorting_032", "--scheme", "got:parts=2",
        "--max-refines", "0", "--model", "sim:error=0", "--json",
    )  # fmt: skip
    assert code == 0, err
    found = json.loads(stdout)
    assert found["calls_by_kind"] == {"part": 2, "merge": 1, "refine": 0}


# --- tune searches it ---------------------------------------------------------------------------


class Ends:
    """A Suggester taking the first or the last choice of everything (no Optuna needed)."""

    def __init__(self, high: bool) -> None:
        self.high = high

    def suggest_categorical(self, name, choices):
        return choices[-1] if self.high else choices[0]

    def suggest_int(self, name, low, high):
        return high if self.high else low


@pytest.mark.parametrize("high", [False, True])
@pytest.mark.parametrize("size", [8, 32, 64])
def test_tune_searches_breadth_leaf_size_and_prompt(size, high):
    from thoughtgraph.tuning import space

    params = space.suggest(Ends(high), ["top"], size, "sorting")
    b, leaf = params["top.b"], params["top.part_size"]
    assert b == (4 if high else 2) and params["top.prompt"] == ("cot" if high else "io")
    graph = space.graph_for(params, "sorting", size)
    d = schemes.top_depth(b, leaf, size)
    assert kinds(graph)["generate"] == b**d <= size
    assert -(-size // b**d) <= leaf or b ** (d + 1) > size  # leaves as small as asked, or full
    assert space.describe(params, size) == f"top b={b} d={d} prompt={params['top.prompt']}"


def test_tune_runs_top_on_the_sim_and_its_pick_runs_as_a_graph_file(capsys, tmp_path):
    pytest.importorskip("optuna")
    out = tmp_path / "tune"
    code, _stdout, err = run_cli(
        capsys, "tune", "sorting", "--dataset", "sorting_032", "--schemes", "top",
        "--trials", "3", "--pilot", "2", "--holdout", "2", "--parallel", "2", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert "top b=" in (out / "front.md").read_text()
    code, _, err = run_cli(
        capsys, "solve", "sorting", "--dataset", "sorting_032", "--graph", str(out / "best.yaml")
    )
    assert code in (0, 1), err  # it ran: solved, or not clean


def test_an_unknown_name_is_refused_before_parts_are_looked_at(capsys):
    for argv in (
        ["graph", "nope", "--parts", "2"],
        ["solve", "sorting", "--dataset", "sorting_032", "--scheme", "nope", "--parts", "2"],
    ):
        code, _, err = run_cli(capsys, *argv)
        assert code == 2
        assert err == "error: unknown scheme 'nope' (known: " + ", ".join(schemes.SCHEMES) + ")\n"
