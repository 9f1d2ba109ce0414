"""`thoughtgraph tune --prompts FILE`: the user's prompt variants as one more choice per slot, the
chosen texts carried by the graph files, bad files refused before any call, and against the
loopback server a tune that finds the variant the model answers better, whose best.yaml then
sends that variant's text through `solve --graph`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from thoughtgraph.engine.graph import Graph
from thoughtgraph.errors import InputError
from thoughtgraph.evaluation import prompt_variants as variants
from thoughtgraph.tuning import space

from .conftest import run_cli
from .fake_openai import FakeOpenAI
from .test_tune import Fixed, study_of, tune_args

pytest.importorskip("optuna", reason="optuna is not installed: pip install -e '.[tune]'")

ROOT = Path(__file__).resolve().parents[1]
MARKED = "MARKER-7: sort this part. <task>{{task}}</task> <part>{{part}}</part> {{format}}"
PLAIN = "Sort this part. <task>{{task}}</task> <part>{{part}}</part> {{format}}"


def got_slots() -> dict[str, frozenset[str]]:
    return space.prompt_slots(["got"], "sorting", 32)


def test_the_slots_are_the_prompts_the_searched_graphs_send():
    assert set(got_slots()) == {"part", "merge", "refine"}
    paper = space.prompt_slots(["got_paper", "tot"], "sorting", 64)
    assert {"io", "cot", "improve", "paper_merge", "split"} <= set(paper)
    assert "result_a" in got_slots()["merge"] and "result_a" not in got_slots()["part"]


def test_variants_are_named_and_keep_the_built_in_as_default():
    found = variants.parse(
        {"part": [PLAIN, {"name": "marked", "template": MARKED}], "merge": [{"template": "x"}]},
        got_slots(),
    )
    assert found.choices("part") == ["default", "part_1", "marked"]
    assert found.choices("merge") == ["default", "merge_1"]
    assert found.text("part", "marked") == MARKED and found.text("part", "default") is None


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (["part"], "must map prompt slots"),
        ({}, "must map prompt slots"),
        ({"prat": [PLAIN]}, "unknown slot 'prat': the searched schemes' prompts are merge, part"),
        ({"part": []}, "part: give a non-empty list"),
        ({"part": PLAIN}, "part: give a non-empty list"),
        ({"part": [3]}, "part[1]: a variant is a template string or {name, template}"),
        ({"part": [{"text": PLAIN}]}, "part[1]: a variant is a template string"),
        ({"part": ["Sort {{part}} like {{style}}"]}, "part[1] (part_1): needs style, which its"),
        ({"merge": ["<a>{{part}}</a>"]}, "merge[1] (merge_1): needs part"),
        ({"part": ["{{#if part}} open"]}, "part[1] (part_1): unclosed {{#if part}}"),
        ({"part": ["  "]}, "part[1] (part_1): the template is empty"),
        ({"part": [{"name": "default", "template": PLAIN}]}, "is the built-in's name"),
        ({"part": [{"name": "a", "template": PLAIN}] * 2}, "part[2]: variant name 'a' is given"),
        ({"part": [{"name": "a b", "template": PLAIN}]}, "name must be letters"),
    ],
)
def test_bad_prompt_files_are_one_clear_error(data, message):
    with pytest.raises(InputError) as caught:
        variants.parse(data, got_slots())
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_trial_chooses_a_variant_only_for_slots_its_graph_sends():
    found = variants.parse(
        {"part": [MARKED], "io": [PLAIN.replace("part", "input")]},
        {
            **got_slots(),
            **space.prompt_slots(["tot"], "sorting", 32),
        },
    )
    picker = Fixed(high=True)  # the last choice: the user's variant
    params = space.suggest(picker, ["got"], 32, "sorting", found)
    assert params["prompt.part"] == "part_1" and "prompt.io" not in params
    graph = space.graph_for(params, "sorting", 32, found)
    assert graph.prompts == {"part": MARKED}
    assert Graph.from_yaml(graph.to_yaml()) == graph  # what best.yaml holds reads back the same
    plain = space.suggest(Fixed(), ["got"], 32, "sorting", found)  # the built-in
    assert space.graph_for(plain, "sorting", 32, found).prompts == {}
    assert "prompt.part=part_1" in space.describe(params, 32)


@pytest.mark.parametrize(
    ("text", "suffix", "message"),
    [
        ("part: [", ".yaml", "invalid YAML"),
        ("{", ".json", "invalid JSON"),
        ("- a\n- b\n", ".yaml", "must map prompt slots"),
        ("part:\n  - 'x {{nope}}'\n", ".yml", "needs nope"),
        ("part:\n  - 'a {{part}}'\npart:\n  - 'b {{part}}'\n", ".yaml", "'part' is given twice"),
        ('{"part": ["a {{part}}"], "part": ["b {{part}}"]}', ".json", "'part' is given twice"),
        ("part:\n  - '<part>{{part}</part>'\n", ".yaml", "is not a template tag"),
    ],
)
def test_a_bad_file_stops_the_tune_before_any_call(capsys, tmp_path, text, suffix, message):
    path = tmp_path / f"p{suffix}"
    path.write_text(text)
    out = tmp_path / "t"
    with FakeOpenAI() as server:
        argv = [*server_argv(server, out), "--prompts", str(path)]
        code, _out, err = run_cli(capsys, *argv)
        assert server.requests == []
    assert code == 2 and err.startswith(f"error: --prompts {path}: ") and err.count("\n") == 1
    assert message in err and not (out / "study.db").exists()


def test_a_missing_file_is_one_error_line(capsys, tmp_path):
    code, _out, err = run_cli(capsys, *tune_args(tmp_path / "t", "--prompts", "nope.yaml"))
    assert code == 2 and err.startswith("error: cannot read prompts file nope.yaml")


def test_the_example_file_tunes_on_the_sim_and_resumes_only_with_the_same_file(capsys, tmp_path):
    out, example = tmp_path / "t", ROOT / "examples" / "tune-prompts.yaml"
    args = tune_args(out, "--schemes", "got", "--prompts", str(example))
    code, _stdout, err = run_cli(capsys, *args)
    assert code == 0, err
    assert "prompt variants from" in err and "part: default, careful, terse" in err
    chosen = {t.params.get("prompt.part") for t in study_of(out).trials}
    assert chosen <= {"default", "careful", "terse"} and len(chosen) > 1
    changed = tmp_path / "changed.yaml"
    changed.write_text(example.read_text().replace("one by one", "one at a time"))
    args[args.index(str(example))] = str(changed)
    code, _stdout, err = run_cli(capsys, *args)
    assert code == 2 and "prompts differ" in err


# --- the loopback server: a model that answers one variant better -------------------------------


class PicksOnWording(FakeOpenAI):
    """Answers a Part prompt only when it carries the marker; every other prompt as the
    simulated model does. Prompt wording decides the error, as with a real model."""

    def _answer(self, prompt: str) -> str:
        if "<part>" in prompt and "MARKER-7" not in prompt:
            return "I am not sure how to sort these."
        return super()._answer(prompt)


def server_argv(server: FakeOpenAI, out: Path, *extra: str) -> list[str]:
    return [
        *tune_args(out, "--schemes", "got", "--pilot", "1", "--holdout", "1", "--trials", "8"),
        "--model",
        "openai:gpt-4o-mini",
        "--base-url",
        server.base_url,
        *extra,
    ]


def test_tune_picks_the_variant_the_model_answers_better_and_best_yaml_sends_it(
    capsys, tmp_path, monkeypatch
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    prompts = tmp_path / "prompts.json"
    prompts.write_text(json.dumps({"part": [PLAIN, {"name": "marked", "template": MARKED}]}))
    out = tmp_path / "tune"
    with PicksOnWording() as server:
        argv = server_argv(server, out, "--prompts", str(prompts), "--target", "0")
        code, _stdout, err = run_cli(capsys, *argv)
        assert code == 0, err
        trials = study_of(out).trials
        marked = [t.values for t in trials if t.params["prompt.part"] == "marked"]
        others = [t.values for t in trials if t.params["prompt.part"] != "marked"]
        assert marked and others and all(error == 0 for error, _cost in marked)
        # without the marker every part fails: only refines (paid for) can rescue the answer
        cheapest = min(cost for _error, cost in marked)
        assert all(error > 0 or cost > cheapest for error, cost in others)
        best = Graph.load(out / "best.yaml")
        assert best.prompts == {"part": MARKED}
        assert "prompt.part=marked" in (out / "front.md").read_text()
        # the pick re-run as a graph file sends the variant's text, and the model solves it
        server.requests.clear()
        code, stdout, err = run_cli(
            capsys,
            "solve",
            "sorting",
            "--dataset",
            "sorting_032",
            "--sample",
            "5",
            "--graph",
            str(out / "best.yaml"),
            "--model",
            "openai:gpt-4o-mini",
            "--base-url",
            server.base_url,
            "--json",
        )
        assert code == 0, err
        sent = [r.body["messages"][-1]["content"] for r in server.requests]
        parts = [p for p in sent if "<part>" in p]
        assert parts and all(p.startswith("MARKER-7: sort this part.") for p in parts)
        assert json.loads(stdout)["clean"]
