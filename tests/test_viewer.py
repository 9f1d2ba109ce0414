"""The trace viewer: one self-contained page, laid out by level, safe with any model text, and
clicked through in a real headless Chromium (a thought is clicked, its details appear)."""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import thoughtgraph
from thoughtgraph.cli.trace import trace_app
from thoughtgraph.engine.trace import state_dict, write_trace
from thoughtgraph.errors import InputError
from thoughtgraph.testing import ScriptedModel, ints, perfect_sorting_answer, prompt_kind, section
from thoughtgraph.viewer.html import csp, load_trace, page_data, render_html, write_html

from .conftest import INPUT_32

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"  # git-ignored (its own .gitignore)
EVIL = '</script><img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'


def with_retries(prompt: str, _n: int, seen: dict[str, int]) -> str:
    """part_3 is right on its second attempt; the final merge drops one number, then two (merged
    again, discarded); the refine fixes it."""
    answer = perfect_sorting_answer(prompt)
    key = f"{prompt_kind(prompt)}:{len(answer)}:{ints(section(prompt, 'part'))}"
    seen[key] = seen.get(key, 0) + 1
    if prompt_kind(prompt) == "part" and answer == sorted(INPUT_32[16:24]) and seen[key] == 1:
        return str(answer[1:])
    if prompt_kind(prompt) == "merge" and len(answer) == 32:
        return str(answer[seen[key] :])
    return "Here is the sorted result:\n```\n" + str(answer) + "\n```"


@pytest.fixture(scope="module")
def retries_run() -> thoughtgraph.Result:
    """A run with a regenerated part, an extra merge and a kept refine."""
    seen: dict[str, int] = {}
    model = ScriptedModel(lambda prompt, n: with_retries(prompt, n, seen))
    result = thoughtgraph.solve("sorting", INPUT_32, model=model, parts=4)
    by_id = result.state.thoughts
    assert by_id["part_3:0.2"].previous_attempt == "part_3:0.1"
    assert not by_id["merge_2_1:0.2"].kept and by_id["refine:0.1"].kept and result.clean
    return result


@pytest.fixture(scope="module")
def evil_run() -> thoughtgraph.Result:
    """The first Part answer is an XSS attempt (unparseable, so the part is regenerated)."""

    def respond(prompt: str, number: int) -> str:
        if number == 0:
            return EVIL
        return str(perfect_sorting_answer(prompt))

    return thoughtgraph.solve(
        "sorting", INPUT_32, model=ScriptedModel(respond), parts=4, concurrency=1
    )


def embedded(page: str) -> dict:
    match = re.search(
        r'<script type="application/json" id="trace-data">(.*?)</script>', page, re.DOTALL
    )
    assert match, "no data block"
    return json.loads(match.group(1))


# --- the page, without a browser -----------------------------------------------------------
def test_page_is_one_self_contained_file(retries_run):
    page = render_html(retries_run)
    assert "<link" not in page and " src=" not in page  # nothing loaded from anywhere
    assert set(re.findall(r"https?://[^\s\"'<>)]+", page)) <= {"http://www.w3.org/2000/svg"}
    css = re.search(r"<style>(.*?)</style>", page, re.DOTALL).group(1)
    js = re.search(r"<script>(.*?)</script>", page, re.DOTALL).group(1)
    assert f'content="{csp(css, js)}"' in page  # only our own style and script may run
    assert "default-src 'none'" in csp(css, js)


def test_thoughts_are_laid_out_by_level_with_every_dependency(retries_run):
    trace = {"result": retries_run.to_dict(), **state_dict(retries_run.state)}
    data = page_data(trace)
    nodes = {n["id"]: n for n in data["nodes"]}
    assert len(nodes) == len(trace["thoughts"])
    for thought in trace["thoughts"]:
        assert nodes[thought["id"]]["level"] == thought["latency"]  # the paper's latency
    for parent, child in trace["edges"]:  # includes part_3:0.1 -> part_3:0.2
        assert nodes[parent]["level"] < nodes[child]["level"]
    assert nodes["part_3:0.2"]["prev"] == "part_3:0.1"
    by_level: dict[int, list[float]] = {}
    for node in data["nodes"]:
        by_level.setdefault(node["level"], []).append(node["x"])
    for xs in by_level.values():
        xs.sort()
        assert all(b - a >= 1 - 1e-6 for a, b in itertools.pairwise(xs))  # no overlap
    assert data["summary"]["status"] == "clean" and data["summary"]["final_thought"] == "refine:0.1"
    assert data["summary"]["calls_by_kind"] == {"part": 5, "merge": 4, "refine": 1}
    assert [row["id"] for row in data["ops"]] == [op.id for op in retries_run.graph.ops]
    part_3 = next(row for row in data["ops"] if row["id"] == "part_3")
    assert part_3["calls"] == 2 and part_3["thoughts"] == 2 and part_3["best"] == 0


def test_model_text_cannot_escape_the_data_block(evil_run):
    page = render_html(evil_run)
    assert "<img" not in page and 'onerror="window' not in page
    assert page.count("</script>") == 2  # the data block's and the script's own
    texts = [n["text"] for n in embedded(page)["nodes"]]
    assert EVIL in texts  # carried intact, shown by the page as text


def test_result_runstate_and_dict_all_render(retries_run, tmp_path):
    saved = tmp_path / "state.json"
    write_trace(saved, retries_run.state)  # the state alone: no "result" block
    for source in (retries_run, retries_run.state, load_trace(saved)):
        data = embedded(render_html(source))
        assert len(data["nodes"]) == len(retries_run.state.thoughts)
    derived = embedded(render_html(retries_run.state))["summary"]
    assert derived["status"] == "unknown"  # no result: not invented
    assert derived["final_thought"] == "refine:0.1"  # the output op's best thought
    assert derived["calls"] == retries_run.calls and derived["tokens"] == retries_run.tokens


def test_older_or_partial_traces_still_render():
    minimal = {
        "thoughts": [
            {"id": "input"},
            {"id": "a", "parents": ["input", "gone"]},
            {"id": "b", "previous_attempt": "a", "score": math.inf},
        ]
    }
    data = embedded(render_html(minimal))
    assert [n["level"] for n in data["nodes"]] == [0, 1, 2]
    assert data["nodes"][2]["score"] == "inf"  # strict JSON: no Infinity literal
    assert data["summary"]["status"] == "unknown"
    cyclic = {"thoughts": [{"id": "x", "parents": ["y"]}, {"id": "y", "parents": ["x"]}]}
    assert len(embedded(render_html(cyclic))["nodes"]) == 2


def test_bad_trace_files_are_one_line_errors(tmp_path):
    with pytest.raises(InputError, match="cannot read trace"):
        load_trace(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        load_trace(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text('{"ops": []}')
    with pytest.raises(InputError, match="not a thoughtgraph trace"):
        load_trace(tmp_path / "other.json")


# --- the command ---------------------------------------------------------------------------
def test_trace_view_command_writes_the_page(retries_run, tmp_path):
    trace = tmp_path / "run.json"
    trace.write_text(
        json.dumps({"result": retries_run.to_dict(), **state_dict(retries_run.state)}, default=str)
    )
    runner = CliRunner()
    result = runner.invoke(trace_app, ["view", str(trace), "-o", str(tmp_path / "page.html")])
    assert result.exit_code == 0, result.output
    assert "page.html (15 thoughts)" in result.output
    assert embedded((tmp_path / "page.html").read_text())["summary"]["status"] == "clean"
    result = runner.invoke(trace_app, ["view", str(trace)])  # default: next to the trace
    assert result.exit_code == 0 and (tmp_path / "run.html").exists()
    result = runner.invoke(trace_app, ["view", str(tmp_path / "nope.json")])
    assert isinstance(result.exception, InputError)


def test_trace_view_through_the_main_cli(retries_run, tmp_path, capsys):
    from thoughtgraph.cli import main as cli

    assert any(group.name == "trace" for group in cli.app.registered_groups)
    trace = tmp_path / "run.json"
    write_trace(trace, retries_run.state)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["trace", "view", str(trace), "-o", str(tmp_path / "p.html")])
    assert exit_info.value.code == 0 and (tmp_path / "p.html").exists()
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["trace", "view", str(tmp_path / "missing.json")])
    assert exit_info.value.code == 2 and "error: cannot read trace" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text, problem",
    [
        ('{"thoughts": [1, 2]}', "'thoughts' item 1 is not an object with an 'id'"),
        ('{"thoughts": [], "result": "x"}', "'result' is not an object"),
        ('{"thoughts": [{"id": "a"}], "calls": 3}', "'calls' is not a list"),
        ('{"thoughts": [{"id": "a"}], "graph": [1]}', "'graph' is not an object"),
    ],
)
def test_a_trace_of_the_wrong_shape_is_refused(tmp_path, capsys, text, problem):
    from .conftest import run_cli

    (tmp_path / "t.json").write_text(text)
    code, _, err = run_cli(capsys, "trace", "view", str(tmp_path / "t.json"))
    assert code == 2
    assert err == f"error: {tmp_path / 't.json'} is not a thoughtgraph trace ({problem})\n"
    assert not (tmp_path / "t.html").exists()


@pytest.mark.parametrize("path", ["", "/", "."])
def test_trace_view_of_a_folder_or_empty_path_is_one_line(capsys, path):
    from .conftest import run_cli

    code, _, err = run_cli(capsys, "trace", "view", path)
    assert code == 2 and err.startswith("error: ") and len(err.splitlines()) == 1
    assert "is a folder: give a trace file" in err


# --- in a real browser ---------------------------------------------------------------------
def node_center(browser, thought_id: str) -> tuple[float, float]:
    rect = browser.evaluate(
        "(() => { const r = [...document.querySelectorAll('.node')].find("
        f"g => g.dataset.id === {json.dumps(thought_id)}).getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    return rect[0], rect[1]


def details_text(browser) -> str:
    return browser.evaluate("document.getElementById('details').innerText")


@pytest.mark.slow  # headless Chromium
def test_clicking_a_thought_shows_its_details(browser, retries_run, tmp_path):
    page = write_html(retries_run, tmp_path / "run.html")
    browser.open(page.as_uri())
    state = retries_run.state
    assert browser.evaluate("document.querySelectorAll('#nodes .node').length") == len(
        state.thoughts
    )
    assert browser.evaluate("document.querySelectorAll('#edges .edge').length") == len(
        state.edges()
    )
    assert browser.evaluate("document.querySelectorAll('#edges .edge.attempt').length") == 2
    classes = browser.evaluate(
        "Object.fromEntries([...document.querySelectorAll('.node')].map(g => [g.dataset.id,"
        " g.getAttribute('class')]))"
    )
    assert "unscored" in classes["input"] and "unscored" in classes["split:2"]
    assert "clean" in classes["part_1:0.1"]
    assert "errors" in classes["part_3:0.1"] and "discarded" in classes["part_3:0.1"]
    assert "errors" in classes["merge_2_1:0.1"] and "discarded" not in classes["merge_2_1:0.1"]
    assert "final" in classes["refine:0.1"]
    header = browser.evaluate("document.getElementById('summary').innerText")
    for fact in (
        "clean",
        "10 (part 5, merge 4, refine 1)",
        f"{retries_run.tokens:,}",
        f"{retries_run.depth} rounds",
        "refine:0.1",
    ):
        assert fact in header

    browser.click(*node_center(browser, "part_3:0.2"))  # real mouse events
    assert browser.evaluate("document.querySelector('#details h2').textContent") == "part_3:0.2"
    thought, call = state.thoughts["part_3:0.2"], state.calls["part_3:0.2"]
    shown = details_text(browser)
    assert thought.prompt.splitlines()[0] in shown and "<part>" in shown  # prompt, as text
    assert (
        browser.evaluate("document.querySelector('#details .answer pre').textContent")
        == thought.text
    )
    assert browser.evaluate("document.querySelector('#details .content pre').textContent") == str(
        thought.content
    )
    assert f"{call.usage.prompt_tokens} / {call.usage.completion_tokens}" in shown  # tokens
    facts = browser.evaluate(
        "Object.fromEntries([...document.querySelectorAll('#details dl.facts dt')]"
        ".map(dt => [dt.textContent, dt.nextElementSibling.textContent]))"
    )
    assert facts["cache hit"] == "no" and facts["call latency"].endswith(" s")
    assert (
        facts["score (errors)"] == "0" and facts["kept"] == "yes" and facts["call"] == "part_3:0.2"
    )
    history = browser.evaluate(
        "[...document.querySelectorAll('#details ol.history li')].map(li => li.innerText)"
    )
    assert history == ["part_3:0.1 · 1 error · discarded", "part_3:0.2 · clean · kept"]
    ARTIFACTS.mkdir(exist_ok=True)
    shot = browser.screenshot(ARTIFACTS / "viewer.png")
    if os.environ.get("TG_DOCS_SCREENSHOT"):  # refresh the picture in docs/tracing.md
        shutil.copy(shot, ROOT / "docs" / "viewer.png")

    # the attempt history links move the selection; errors are listed
    browser.evaluate("[...document.querySelectorAll('#details ol.history button')][0].click()")
    assert browser.evaluate("document.querySelector('#details h2').textContent") == "part_3:0.1"
    assert state.thoughts["part_3:0.1"].score.errors[0] in details_text(browser)


@pytest.mark.slow  # headless Chromium
def test_model_text_is_shown_never_run(browser, evil_run, tmp_path):
    page = write_html(evil_run, tmp_path / "evil.html")
    browser.open(page.as_uri())
    evil_id = next(t.id for t in evil_run.state.thoughts.values() if t.text == EVIL)
    browser.click(*node_center(browser, evil_id))
    assert browser.evaluate("document.querySelector('#details .answer pre').textContent") == EVIL
    assert browser.evaluate("typeof window.__xss") == "undefined"
    assert browser.evaluate("document.querySelectorAll('img').length") == 0


@pytest.mark.slow  # headless Chromium
def test_a_thousand_thought_run_opens_and_clicks(browser, tmp_path):
    numbers = random.Random(1).choices(range(10), k=2048)
    result = thoughtgraph.solve("sorting", numbers, model="sim:error=3", parts=256)
    assert len(result.state.thoughts) > 1000
    page = write_html(result, tmp_path / "big.html")
    seconds = browser.open(page.as_uri())
    drawn = browser.evaluate("window.thoughtgraphViewer.renderMs")
    print(
        f"\n{len(result.state.thoughts)} thoughts: {page.stat().st_size / 1e6:.1f} MB page, "
        f"ready in {seconds:.2f} s, drawn in {drawn} ms"
    )
    assert browser.evaluate("document.querySelectorAll('#nodes .node').length") == len(
        result.state.thoughts
    )
    assert browser.evaluate("document.getElementById('minimap').hidden") is False
    retried = next(
        t.id for t in result.state.thoughts.values() if t.id.startswith("part_") and t.attempt == 2
    )
    browser.evaluate(f"window.thoughtgraphViewer.select({json.dumps(retried)}, true)")  # centre it
    browser.evaluate("window.thoughtgraphViewer.select('input', false)")
    browser.click(*node_center(browser, retried))
    assert browser.evaluate("document.querySelector('#details h2').textContent") == retried
    assert "Attempt history" in details_text(browser) or "ATTEMPT HISTORY" in details_text(browser)
    browser.screenshot(ARTIFACTS / "viewer-1000.png")


@pytest.fixture(scope="module")
def routed_run() -> thoughtgraph.Result:
    """Merges and refines routed to a second model (`models=`)."""
    return thoughtgraph.solve(
        "sorting", INPUT_32, "sim:error=2", models={"merge": "sim:error=0", "refine": "sim:error=0"}
    )


def test_the_page_names_the_model_of_each_call(routed_run):
    data = page_data(state_dict(routed_run.state) | {"result": routed_run.to_dict()})
    strong = routed_run.model_for["merge"]
    assert {c["model"] for c in data["calls"].values() if c["kind"] == "merge"} == {strong}
    assert {c["model"] for c in data["calls"].values() if c["kind"] == "part"} == {routed_run.model}
    models = data["summary"]["models"]
    assert list(models) == [routed_run.model, strong]
    assert models[strong]["calls"] == routed_run.spend_by_model[strong].calls
    assert "merge" in models[strong]["kinds"] and "part" not in models[strong]["kinds"]
    assert page_data(state_dict(retries_run_state()))["summary"]["models"] == {}  # one model


def retries_run_state() -> thoughtgraph.RunState:
    return thoughtgraph.solve("sorting", [3, 1, 2, 0], "sim", parts=2).state


@pytest.mark.slow  # headless Chromium
def test_a_routed_call_shows_its_model_in_the_browser(browser, routed_run, tmp_path):
    page = write_html(routed_run, tmp_path / "routed.html")
    browser.open(page.as_uri())
    stats = browser.evaluate(
        "Object.fromEntries([...document.querySelectorAll('#summary dt')]"
        ".map(dt => [dt.textContent, dt.nextElementSibling.textContent]))"
    )
    strong = routed_run.model_for["merge"]
    calls = routed_run.spend_by_model[strong].calls
    assert stats[f"model {strong}"].startswith(f"{calls} calls (merge")
    weak = routed_run.spend_by_model[routed_run.model].calls
    assert stats[f"model {routed_run.model}"].startswith(f"{weak} calls (part)")
    merge = next(c for c in routed_run.state.calls.values() if c.kind == "merge")
    thought = next(t for t in routed_run.state.thoughts.values() if t.call_id == merge.id)
    browser.click(*node_center(browser, thought.id))
    facts = browser.evaluate(
        "Object.fromEntries([...document.querySelectorAll('#details dl.facts dt')]"
        ".map(dt => [dt.textContent, dt.nextElementSibling.textContent]))"
    )
    assert facts["model"] == strong


def fails_part_of_eight(prompt: str, _n: int) -> str:
    """Part 2 (8 numbers) is wrong at every attempt; its pieces of 4 and the rest are right."""
    answer = perfect_sorting_answer(prompt)
    if prompt_kind(prompt) == "part" and ints(section(prompt, "part")) == INPUT_32[8:16]:
        return str(answer[1:])
    return str(answer)


@pytest.fixture(scope="module")
def grown_run() -> thoughtgraph.Result:
    result = thoughtgraph.solve(
        "sorting",
        INPUT_32,
        model=ScriptedModel(fails_part_of_eight),
        scheme="got_adaptive",
        parts=4,
    )
    assert result.clean and result.state.ops["part_2.g0.merge_1_1"].grown_by == "part_2"
    return result


def test_the_page_lists_grown_ops_under_the_op_that_grew_them(grown_run):
    data = page_data(state_dict(grown_run.state))
    rows = [row["id"] for row in data["ops"]]
    at = rows.index("part_2")
    assert rows[at + 1 : at + 7] == [
        "part_2.g0.split",
        "part_2.g0.select_1",
        "part_2.g0.part_1",
        "part_2.g0.select_2",
        "part_2.g0.part_2",
        "part_2.g0.merge_1_1",
    ]
    row = data["ops"][at + 3]
    assert row["grown_by"] == "part_2" and row["nest"] == 1 and row["calls"] == 1
    assert row["inputs"] == ["part_2.g0.select_1"]
    grown = {n["id"] for n in data["nodes"] if n.get("grown_by") == "part_2"}
    assert "part_2.g0.merge_1_1:0.1" in grown and "part_2:0.1" not in grown


@pytest.mark.slow  # headless Chromium
def test_grown_ops_are_drawn_and_listed_as_grown(browser, grown_run, tmp_path):
    page = write_html(grown_run, tmp_path / "grown.html")
    browser.open(page.as_uri())
    grown = browser.evaluate(
        "[...document.querySelectorAll('#nodes .node.grown')].map(g => g.dataset.id)"
    )
    made = [t.id for t in grown_run.state.thoughts.values() if t.op_id.startswith("part_2.g0.")]
    assert sorted(grown) == sorted(made) and len(made) == 5  # 2 pieces, 2 answers, 1 merge
    marks = "document.querySelectorAll('#nodes .node{} .grown-mark').length"
    assert browser.evaluate(marks.format(".grown")) == 5
    assert browser.evaluate(marks.format(":not(.grown)")) == 0
    rows = browser.evaluate(
        "[...document.querySelectorAll('table.ops tbody tr')].map(tr => [tr.firstChild.textContent,"
        " tr.className, tr.dataset.grownBy || null])"
    )
    names = [r[0] for r in rows]
    at = names.index("part_2")
    assert rows[at + 1] == ["\u21b3 part_2.g0.splitgrown", "grown", "part_2"]
    assert [r[1] for r in rows[at + 1 : at + 7]] == ["grown"] * 6 and rows[at + 7][0] == "select_3"
    assert all(r[1] == "" for r in rows if r[2] is None)
    browser.click(*node_center(browser, "part_2.g0.merge_1_1:0.1"))
    badges = browser.evaluate(
        "[...document.querySelectorAll('#details .badge')].map(b => b.textContent)"
    )
    assert "grown by part_2" in badges
    browser.click(*node_center(browser, "part_2:0.3"))
    assert "grown by part_2" not in browser.evaluate(
        "[...document.querySelectorAll('#details .badge')].map(b => b.textContent)"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    browser.screenshot(ARTIFACTS / "viewer-grown.png")
