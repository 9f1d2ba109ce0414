"""Inputs and machines that used to end in a traceback, a hang or a leak (issue 19): YAML alias
bombs, numbers too long to print, a busy or unwritable `--out`, a full disk, out-of-range tune
options, and credentials in URLs and pickles. Each ends in one `error:` line (exit 2) or is
masked."""

from __future__ import annotations

import errno
import os
import pickle
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from thoughtgraph.errors import shown
from thoughtgraph.io.strictload import AliasBombError, NumberTooLongError, load_json, load_yaml
from thoughtgraph.models import secrets
from thoughtgraph.models.openai import OpenAIModel

from .conftest import run_cli
from .fake_openai import FakeOpenAI
from .test_one_line_errors import one_line
from .test_resume import cli_env
from .test_tune import tune_args

optuna = pytest.importorskip("optuna")

SORT = ("solve", "sorting", "--input", "[3, 1, 2]")


def alias_bomb(levels: int = 9) -> str:
    """Nine levels of nine aliases: about 400 bytes that expand to 9**9 items."""
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, levels):
        name, below = chr(ord("a") + level), chr(ord("a") + level - 1)
        lines.append(f"{name}: &{name} [{', '.join(['*' + below] * 9)}]")
    return "\n".join(lines) + f"\nops:\n  - kind: generate\n    id: *{name}\n"


def test_a_yaml_alias_bomb_is_refused_before_anything_walks_it():
    text = alias_bomb()
    assert len(text) < 500
    with pytest.raises(AliasBombError, match="expand the document past"):
        load_yaml(text)


def test_a_yaml_graph_alias_bomb_is_one_line(tmp_path, capsys):
    graph = tmp_path / "bomb.yaml"
    graph.write_text(alias_bomb())
    code, _, err = run_cli(capsys, *SORT, "--graph", str(graph))
    assert code == 2 and "aliases (*name)" in one_line(err)


def test_a_prompts_file_alias_bomb_is_one_line(tmp_path, capsys):
    prompts = tmp_path / "prompts.yaml"
    prompts.write_text(alias_bomb().replace("ops:\n  - kind: generate\n    id:", "part:"))
    code, _, err = run_cli(capsys, *tune_args(tmp_path / "t", "--prompts", str(prompts)))
    assert code == 2 and "aliases (*name)" in one_line(err)


def test_a_self_containing_yaml_document_is_refused():
    with pytest.raises(AliasBombError, match="contains it"):
        load_yaml("a: &a [1, *a]")


def test_a_few_aliases_still_load():
    data = load_yaml("p: &p 'Sort {{input}}'\nq: *p\nr: [*p, *p]\n")
    assert data == {"p": "Sort {{input}}", "q": "Sort {{input}}", "r": ["Sort {{input}}"] * 2}


@pytest.mark.parametrize("suffix", ["json", "yaml"])
def test_a_5000_digit_integer_in_a_graph_file_is_one_line(tmp_path, capsys, suffix):
    big = "7" * 5000
    graph = tmp_path / f"g.{suffix}"
    graph.write_text(
        f'{{"ops": [{{"kind": "generate", "id": "a", "k": {big}}}]}}'
        if suffix == "json"
        else f"ops:\n  - kind: generate\n    id: a\n    k: {big}\n"
    )
    code, _, err = run_cli(capsys, *SORT, "--graph", str(graph))
    assert code == 2 and "a number has 5000 digits" in one_line(err)
    with pytest.raises(NumberTooLongError):
        load_json(f"[{big}]")


def test_shown_bounds_any_value():
    huge: list = []
    for _ in range(40):
        huge = [huge] * 9  # shared references: 9**40 items when expanded
    assert len(shown(huge)) <= 80
    assert shown(10**5000) == "<an integer of about 5001 digits>"
    assert "..." in shown("x" * 10_000) and len(shown("x" * 10_000)) <= 80
    assert shown("short") == "'short'"


def test_a_long_graph_op_id_is_quoted_bounded(tmp_path, capsys):
    graph = tmp_path / "g.json"
    graph.write_text('{"ops": [{"kind": "nope", "id": "' + "i" * 100_000 + '"}]}')
    code, _, err = run_cli(capsys, *SORT, "--graph", str(graph))
    assert code == 2 and len(one_line(err)) < 400


# --- --out: busy, unwritable, a full disk -------------------------------------------------
@pytest.mark.skipif(os.name != "posix", reason="flock")
def test_a_second_tune_on_a_busy_out_is_refused_at_once(tmp_path, capsys):
    import fcntl

    out = tmp_path / "tune"
    out.mkdir()
    with open(out / ".tune.lock", "w") as rival:  # another process's tune holds the folder
        fcntl.flock(rival, fcntl.LOCK_EX | fcntl.LOCK_NB)
        code, stdout, err = run_cli(capsys, *tune_args(out))
    assert (code, stdout) == (2, "")
    assert one_line(err) == (
        f"another thoughtgraph tune is writing to {out}: "
        "wait for it to finish or give another --out"
    )
    assert not (out / "study.db").exists()  # the rival's study is never opened


@pytest.mark.parametrize("command", ["eval", "tune"])
@pytest.mark.parametrize("where", ["under a file", "in /proc", "read-only"])
def test_an_out_that_cannot_be_written_is_one_line(tmp_path, capsys, command, where):
    (tmp_path / "file").write_text("x")
    out = {
        "under a file": tmp_path / "file" / "out",
        "in /proc": Path("/proc/thoughtgraph-out"),
        "read-only": Path("/proc/self"),  # exists, but nothing can be created in it
    }[where]
    args = (
        ("eval", "sorting", "--schemes", "io", "--samples", "1", "--out", str(out))
        if command == "eval"
        else tune_args(out)
    )
    code, _, err = run_cli(capsys, *args)
    assert code == 2
    assert one_line(err).startswith(("cannot create --out", "cannot write to --out"))


def test_the_eval_figure_on_a_full_disk_is_one_line_and_the_results_survive(
    tmp_path, capsys, monkeypatch
):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Figure, "savefig", full)
    out = tmp_path / "ev"
    args = ("eval", "sorting", "--schemes", "io", "--samples", "2", "--out", str(out))
    code, _, err = run_cli(capsys, *args, "--no-progress")
    assert code == 2
    assert "No space left on device" in one_line(err.splitlines()[-1] + "\n")
    assert len((out / "results.jsonl").read_text().splitlines()) == 2
    assert (out / "summary.md").exists()
    assert not (out / "errors.png").exists()


def test_a_tune_whose_study_hits_a_full_disk_is_one_line(tmp_path, capsys, monkeypatch):
    import sqlalchemy.exc

    def full(self, *args, **kwargs):
        try:
            raise sqlite3.OperationalError("database or disk is full")
        except sqlite3.OperationalError as orig:
            raise sqlalchemy.exc.OperationalError(
                "UPDATE trials SET state=? WHERE trial_id = ?", ("COMPLETE", 1), orig
            ) from orig

    monkeypatch.setattr(optuna.study.Study, "tell", full)
    code, _, err = run_cli(capsys, *tune_args(tmp_path / "t"))
    assert code == 2
    message = one_line(err.splitlines()[-1] + "\n")
    assert "database or disk is full" in message and "UPDATE" not in message


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--seed", "-1"), "--seed must be between 0 and 4294967295, got -1"),
        (("--seed", str(2**32)), "--seed must be between 0 and 4294967295"),
        (("--target", "nan"), "--target must be 0 or more, got nan"),
        (("--target", "-1"), "--target must be 0 or more, got -1"),
    ],
)
def test_out_of_range_tune_options_are_one_line(tmp_path, capsys, extra, message):
    code, _, err = run_cli(capsys, *tune_args(tmp_path / "t", *extra))
    assert code == 2 and one_line(err).startswith(message)


def test_a_negative_max_completion_tokens_is_one_line(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    args = ("-m", "openai:m", "--base-url", "http://127.0.0.1:9/v1")
    code, _, err = run_cli(capsys, *SORT, *args, "--max-completion-tokens", "-5")
    assert code == 2
    assert one_line(err) == "--max-completion-tokens must be 0 (no cap) or more, got -5"


# --- credentials in URLs and pickles -------------------------------------------------------
def test_mask_urls_masks_userinfo_and_secret_query_values_whatever_their_length():
    line = 'POST http://u:p@host:8/v1/x?api-key=k&api-version=2&sig=s "HTTP/1.1 200 OK"'
    assert secrets.mask_urls(line) == (
        'POST http://***@host:8/v1/x?api-key=***&api-version=2&sig=*** "HTTP/1.1 200 OK"'
    )
    assert secrets.mask_urls("ftp://me:pw@files/x") == "ftp://***@files/x"


@pytest.mark.slow
def test_with_v_no_request_log_line_shows_short_url_credentials(tmp_path):
    with FakeOpenAI() as server:
        url = server.base_url.replace("http://", "http://ab:pw@") + "?api-key=k1&api-version=2"
        verbose = ("--base-url", url, "--scheme", "io", "-v", "--no-progress")
        run = subprocess.run(
            [sys.executable, "-m", "thoughtgraph.cli.main", *SORT, "-m", "openai:m", *verbose],
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert run.returncode == 0, run.stderr
    requests = [line for line in run.stderr.splitlines() if "HTTP Request" in line]
    assert requests, run.stderr  # httpx did log the request ...
    assert all("://***@" in line and "api-key=***" in line for line in requests)
    assert "ab:pw" not in run.stderr and "k1" not in run.stderr  # ... without its credentials
    assert "api-version=2" in run.stderr


def test_an_ftp_base_url_error_does_not_repeat_its_credentials(capsys):
    code, _, err = run_cli(capsys, *SORT, "-m", "openai:m", "--base-url", "ftp://me:pw@h/?token=t")
    assert code == 2
    message = one_line(err)
    assert "pw" not in message and "token=t" not in message and "ftp://***@h/" in message


def test_a_pickled_model_holds_no_key_and_reads_it_again_from_the_environment(monkeypatch):
    key = "sk-live-Zq8v2Lw5Np3Rt7Yx"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    model = OpenAIModel("m", base_url="http://127.0.0.1:9/v1")
    data = pickle.dumps(model)
    assert key.encode() not in data
    monkeypatch.setenv("OPENAI_API_KEY", "sk-worker-Hk4Jd9Fs2Ga6Lm1P")
    copy = pickle.loads(data)
    assert copy._key.reveal() == "sk-worker-Hk4Jd9Fs2Ga6Lm1P"  # the worker's own environment
    assert copy.name == model.name and copy.base_url == model.base_url


def test_a_copied_model_keeps_the_key_it_was_given_not_the_environments(monkeypatch):
    """A copy stays in this process: it must not swap an explicit key for OPENAI_API_KEY (which
    only an unpickled model, in another process, reads again)."""
    import copy as copying

    monkeypatch.setenv("OPENAI_API_KEY", "sk-environment-Hk4Jd9Fs2Ga6Lm1P")
    model = OpenAIModel("m", base_url="http://127.0.0.1:9/v1", api_key="sk-given-Zq8v2Lw5Np3Rt7Yx")
    for copied in (copying.deepcopy(model), copying.copy(model), copying.deepcopy([model])[0]):
        assert copied._key.reveal() == "sk-given-Zq8v2Lw5Np3Rt7Yx"


def test_the_masking_filter_masks_a_handlers_records():
    import io
    import logging

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(secrets.MaskingFilter())
    logger = logging.getLogger("thoughtgraph.test.masking")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("GET %s", "https://me:pw@h/v1?sas_token=t&x=1")
    finally:
        logger.removeHandler(handler)
    assert stream.getvalue() == "GET https://***@h/v1?sas_token=***&x=1\n"
