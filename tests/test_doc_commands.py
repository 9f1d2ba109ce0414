"""Commands and claims in the docs match the repository: files they name exist where they say,
and a chart said to be a command's output is that output (or is said to be simplified)."""

from __future__ import annotations

import re
from pathlib import Path

from .conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLES = {p.name for p in (ROOT / "examples").iterdir()}


def test_example_files_are_named_by_their_path_from_the_repo_root():
    wrong = []
    for doc in DOCS:
        for number, line in enumerate(doc.read_text().splitlines(), start=1):
            for arg in re.findall(r"--(?:input-file|graph)[ =]([^\s`'\")]+)", line):
                if Path(arg).name in EXAMPLES and not (ROOT / arg).is_file():
                    wrong.append(f"{doc.name}:{number}: {arg}")
    assert not wrong, "run from the repository root, these files are not found: " + ", ".join(wrong)


def test_the_readme_chart_is_the_commands_output_or_said_to_be_simplified(capsys):
    text = (ROOT / "README.md").read_text()
    section = text.split("## How a run works", 1)[1]
    intro, chart = re.search(r"\n\n(.*?)\n\n```mermaid\n(.*?)```", section, re.DOTALL).groups()
    assert "thoughtgraph graph got --size 32 --format mermaid" in intro
    code, printed, _ = run_cli(capsys, "graph", "got", "--size", "32", "--format", "mermaid")
    assert code == 0
    if chart.strip() != printed.strip():
        assert "simplified" in intro and "prints the full" in intro, intro
