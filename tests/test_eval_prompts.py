"""`eval --prompts FILE`: the run sends the file's texts and records which it sent."""

from __future__ import annotations

import asyncio
import json

from thoughtgraph.evaluation.runner import load_results, plan, run_pairs
from thoughtgraph.testing import ScriptedModel

from .conftest import run_cli

PART = (
    "MARKER-PART Sort this part. <task>{{task}}</task> <part>{{part}}</part> "
    "Output only the result, format: {{format}}"
)
IO = "MARKER-IO Sort the list <input>{{input}}</input> and answer in the format: {{format}}"


def prompts_file(tmp_path, part=PART, name="p.yaml"):
    path = tmp_path / name
    path.write_text(json.dumps({"part": [part, "unused second {{part}} {{format}}"]}))
    return path


def test_the_file_s_texts_are_sent_and_their_hash_is_in_every_row(tmp_path):
    the_plan = plan("sorting", 32, ("io", "got"), 2, prompts={"part": PART})
    model = ScriptedModel()
    asyncio.run(run_pairs(the_plan, model, tmp_path / "out"))
    parts = [p for p in model.prompts if "<part>" in p and "Sort this part" in p]
    assert parts and all(p.startswith("MARKER-PART") for p in parts)
    assert not any("MARKER" in p for p in model.prompts if "<part>" not in p)  # io: built-in
    rows = load_results(tmp_path / "out")
    assert {r.prompts for r in rows} == {the_plan.prompts_hash} and the_plan.prompts_hash
    manifest = json.loads((tmp_path / "out" / "eval.json").read_text())
    assert manifest["prompts"] == {"part": PART}
    assert manifest["prompts_hash"] == the_plan.prompts_hash


def test_a_folder_of_other_prompts_is_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "out"
    base = ("eval", "sorting", "--samples", "1", "--schemes", "io,got", "--out", str(out))
    code, _o, err = run_cli(capsys, *base, "--prompts", str(prompts_file(tmp_path)))
    assert code == 0, err
    assert "eval sends each slot's first variant (part: part_1)" in err
    code, _o, err = run_cli(capsys, *base)
    assert code == 2 and err.count("\n") == 1
    assert "holds an evaluation with prompts" in err and "this one has the built-in prompts" in err
    other = prompts_file(tmp_path, PART.replace("MARKER", "OTHER"), "q.yaml")
    code, _o, err = run_cli(capsys, *base, "--prompts", str(other))
    assert code == 2 and "use another --out" in err


def test_an_unknown_slot_or_an_unfillable_text_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("nope:\n  - 'x {{part}}'\n")
    code, _o, err = run_cli(
        capsys, "eval", "sorting", "--schemes", "io", "--prompts", str(bad), "--out", str(tmp_path)
    )
    assert code == 2 and "unknown slot 'nope'" in err and err.count("\n") == 1
    bad.write_text("io:\n  - 'x {{nonsense}}'\n")
    code, _o, err = run_cli(
        capsys, "eval", "sorting", "--schemes", "io", "--prompts", str(bad), "--out", str(tmp_path)
    )
    assert code == 2 and "needs nonsense" in err


def test_two_runs_differing_only_in_prompts_compare_cleanly(tmp_path, capsys):
    import pytest

    pytest.importorskip("scipy")
    for name, prompts in (("a", None), ("b", {"io": IO})):
        the_plan = plan("sorting", 32, ("io", "cot"), 4, prompts=prompts)
        asyncio.run(run_pairs(the_plan, "sim", tmp_path / name))
    code, out, err = run_cli(capsys, "compare", str(tmp_path / "a"), str(tmp_path / "b"))
    assert code == 0, err
    digest = plan("sorting", 32, ("io",), 1, prompts={"io": IO}).prompts_hash
    assert f"prompts {digest[:12]}" in out and "| io | 32 | 4 |" in out
