"""Conventions users bring from other tools: openai/MODEL, --version, Jupyter displays."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib.metadata import version
from pathlib import Path

import pytest

import thoughtgraph as tg
from thoughtgraph.cli.main import main
from thoughtgraph.modelspec import from_spec, normalize_spec
from thoughtgraph.schemes import build
from thoughtgraph.viewer.drawing import inline_svg
from thoughtgraph.viewer.jupyter import result_html, result_markdown, result_rows


def run_cli(*args: str) -> int:
    try:
        main(list(args))
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def test_openai_slash_model_is_the_same_as_openai_colon_model(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert normalize_spec("openai/gpt-4o-mini") == "openai:gpt-4o-mini"
    assert normalize_spec("openai/Qwen/Qwen2.5-7B") == "openai:Qwen/Qwen2.5-7B"
    assert normalize_spec("openai:Qwen/Qwen2.5-7B") == "openai:Qwen/Qwen2.5-7B"
    slash = from_spec("openai/gpt-4o-mini", base_url="http://127.0.0.1:9/v1")
    colon = from_spec("openai:gpt-4o-mini", base_url="http://127.0.0.1:9/v1")
    assert slash.name == colon.name and "gpt-4o-mini" in slash.name


@pytest.mark.parametrize(
    ("spec", "hint"),
    [
        ("gpt-4o-mini", "did you mean --model openai:gpt-4o-mini?"),
        ("anthropic/claude-x", "use --model openai:claude-x --base-url URL"),
    ],
)
def test_a_bare_model_name_gets_the_right_form_suggested(capsys, spec, hint):
    assert run_cli("solve", "sorting", "--input", "[2, 1]", "--model", spec) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: unknown model '{spec}'") and hint in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("spec", ["openai/", "openai:", "openai/m,bogus=1"])
def test_a_bad_openai_spec_is_quoted_as_typed(capsys, spec):
    assert run_cli("solve", "sorting", "--input", "[2, 1]", "--model", spec) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and repr(spec) in err and err.count("\n") == 1


def test_openai_flags_are_accepted_with_the_slash_form(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    code = run_cli(
        "solve", "sorting", "--input", "[2, 1]", "--model", "openai/gpt-4o-mini",
        "--base-url", "http://127.0.0.1:9/v1", "--max-retries", "0",
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code != 0 and "only for openai:MODEL" not in err and "cannot reach" in err


def test_version(capsys):
    assert run_cli("--version") == 0
    assert capsys.readouterr().out == f"thoughtgraph {version('thoughtgraph')}\n"


def test_a_graph_draws_itself_as_svg_with_a_box_per_op_and_an_arrow_per_input():
    graph = build("got_paper", "sorting", 64)
    root = ET.fromstring(inline_svg(graph))
    ns = {"s": "http://www.w3.org/2000/svg"}
    boxes = root.findall("s:g[@class='op']", ns)
    assert [g.get("id") for g in boxes] == [f"op-{op.id}" for op in graph.ops]
    edges = sum(len(set(op.inputs)) for op in graph.ops)
    assert len(root.findall("s:line", ns)) == edges
    first, last = (graph.ops[0].id, graph.output.id)
    y = {g.get("id"): float(g.find("s:rect", ns).get("y")) for g in boxes}
    assert y[f"op-{first}"] < y[f"op-{last}"]  # drawn top to bottom


@pytest.fixture(scope="module")
def result():
    return tg.solve("sorting", [5, 3, 9, 1, 7, 2, 8, 6], model="sim:error=0")


def test_a_result_shows_its_summary_table_and_its_graph(result):
    html = result_html(result)
    cells = dict(re.findall(r"<th[^>]*>(.*?)</th><td[^>]*>(.*?)</td>", html))
    assert cells["status"] == "clean" and cells["errors"] == "0"
    assert cells["output"] == "[1, 2, 3, 5, 6, 7, 8, 9]"
    assert "SIMULATED" in cells["model"] and cells["cost"] == "unknown (no price)"
    assert f"{result.latency} hops" in cells["final thought"]
    assert html.count('class="op"') == len(result.graph.ops)
    md = result_markdown(result)
    assert "| status | clean |" in md and "| errors | 0 |" in md


def test_reprs_escape_what_the_model_wrote():
    result = tg.solve("sorting", [2, 1], model=lambda _p: "<script>alert(1)</script>")
    html = result_html(result)
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_the_markdown_table_keeps_one_row_per_field_whatever_the_model_wrote():
    """A line break in an answer (a doc-merge NDA, a rambling reply) ended the table's row."""
    result = tg.solve("sorting", [2, 1], model=lambda _p: "one\n| a | b |\r\ntwo")
    rows = result_markdown(result).splitlines()
    assert len(rows) == len(result_rows(result)) + 2
    assert all(row.startswith("| ") and row.endswith(" |") for row in rows[2:])


def test_a_huge_graph_is_not_drawn_inline():
    graph = build("got", "sorting", 8 * 300)
    assert len(graph.ops) > 400 and inline_svg(graph) is None


class _Formatter:
    def __init__(self) -> None:
        self.types: dict[type, object] = {}

    def for_type(self, typ: type, func: object) -> object:
        self.types[typ] = func
        return None


class _Shell:
    def __init__(self) -> None:
        mimes = ("image/svg+xml", "text/html", "text/markdown")
        self.display_formatter = type("F", (), {"formatters": {m: _Formatter() for m in mimes}})()


def test_jupyter_displays_are_registered_for_graphs_and_results(result):
    """The engine's objects carry no display methods: IPython's formatters draw them."""
    from thoughtgraph.engine.graph import Graph
    from thoughtgraph.engine.result import Result
    from thoughtgraph.viewer import jupyter

    shell = _Shell()
    assert jupyter.install(shell) is True
    found = shell.display_formatter.formatters
    draw = found["image/svg+xml"].types[Graph]
    assert ET.fromstring(draw(result.graph)).tag.endswith("svg")
    assert found["text/html"].types[Result](result) == result_html(result)
    assert found["text/markdown"].types[Result](result) == result_markdown(result)
    assert jupyter.install() is False  # no IPython running here


def test_the_facade_installs_the_displays_in_a_running_ipython():
    code = (
        "import sys, types\n"
        "from tests.test_conventions import _Shell\n"
        "shell = _Shell()\n"
        "sys.modules['IPython'] = types.SimpleNamespace(get_ipython=lambda: shell)\n"
        "import thoughtgraph\n"
        "thoughtgraph.Graph\n"
        "print(sorted(t.__name__ for f in shell.display_formatter.formatters.values()"
        " for t in f.types))\n"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    ).stdout
    assert out.strip() == "['Graph', 'Result', 'Result']"


def test_the_known_model_forms_name_the_slip_and_price_options(capsys):
    """An unknown model's hint lists every form a spec can take, so a user looking for how to
    price a model or slow one job kind finds the option's spelling in the error line."""
    assert run_cli("solve", "sorting", "--input", "[2, 1]", "--model", "gpt-4o-mini") == 2
    err = capsys.readouterr().err
    assert "KIND_error=E" in err and "price_in=USD,price_out=USD" in err
    assert err.count("\n") == 1
