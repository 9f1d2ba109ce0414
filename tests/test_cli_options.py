"""The options `solve`, `eval` and `tune` share are declared once (cli/options.py): each command
shows the same openai flags with the same help, and each hands what was given to its model."""

from __future__ import annotations

import pytest

from thoughtgraph.cli import options as opt

from .conftest import run_cli
from .fake_openai import FakeOpenAI

COMMANDS = ("solve", "eval", "tune")
OPENAI_FLAGS = (
    "--base-url", "--api-key-env", "--temperature", "--max-completion-tokens", "--timeout",
    "--max-retries", "--max-response-bytes",
)  # fmt: skip


def params_of(command: str) -> list:
    """The click parameters typer made of a command, in `--help` order."""
    from typer.main import get_command

    from thoughtgraph.cli.main import app

    return list(get_command(app).commands[command].params)  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_taking_a_model_shows_the_seven_openai_flags_in_one_block(command):
    declared = [p.opts[0] for p in params_of(command) if p.opts[0].startswith("--")]
    start = declared.index("--base-url")
    assert tuple(declared[start : start + len(OPENAI_FLAGS)]) == OPENAI_FLAGS


def test_the_openai_flags_have_one_help_text_and_default_in_every_command():
    def shown(command: str) -> list[tuple]:
        by_flag = {p.opts[0]: p for p in params_of(command)}
        return [(f, by_flag[f].help, by_flag[f].default) for f in OPENAI_FLAGS]

    assert shown("solve") == shown("eval") == shown("tune")
    assert all(help_text and default is None for _f, help_text, default in shown("eval"))


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_hands_the_flags_to_its_model(capsys, tmp_path, monkeypatch, command):
    """A flag's value reaches the model: the endpoint of --base-url gets the requests, and a
    value the model refuses is one line naming the flag."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    argv = [command, "sorting"]
    argv += ["--input", "[3, 1, 2]"] if command == "solve" else ["--out", str(tmp_path / "o")]
    if command == "eval":
        argv += ["--samples", "1", "--schemes", "io", "--no-progress"]
    if command == "tune":
        argv += ["--trials", "1", "--pilot", "1", "--holdout", "1", "--schemes", "got"]
        pytest.importorskip("optuna")
    code, _out, err = run_cli(capsys, *argv, "--model", "openai:m", "--temperature", "3")
    assert code == 2 and err == "error: --temperature must be between 0 and 2, got 3.0\n"
    with FakeOpenAI(error=0.0) as server:
        model = ["--model", "openai:m", "--base-url", server.base_url, "--max-retries", "0"]
        code, _out, err = run_cli(capsys, *argv, *model)
        assert code in (0, 1), err
        assert len(server.requests) > 0


def test_a_command_without_an_openai_parameter_cannot_take_the_flags():
    def command(task: str) -> None: ...

    with pytest.raises(TypeError, match="no `openai` parameter"):
        opt.with_openai_flags(command)
