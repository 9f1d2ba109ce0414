"""What `solve` and `eval` print: doc-merge's model score, and nothing but the error line when
the endpoint is dead."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from .conftest import run_cli


@pytest.mark.parametrize("scheme", ["got", "got_paper"])
def test_solve_doc_merge_shows_the_model_score_beside_the_lexical_proxy(capsys, scheme):
    """The spec's `got` scores merges by a lexical proxy: solve ends it with the same judge op
    as eval, so every scheme's run shows the model's 0-10 score."""
    code, out, err = run_cli(
        capsys, "solve", "doc-merge", "--dataset", "documents", "--sample", "0", "--scheme", scheme
    )
    assert code in (0, 1), err
    assert "lexical errors (a proxy" in out
    rating = next(line for line in out.splitlines() if line.startswith("rating:"))
    assert "of 10, the model's rating of the final answer (higher is better)" in rating
    assert 0 <= float(rating.split()[1].rstrip(",")) <= 10
    if scheme == "got":
        assert "→ score (8 ops)" in out  # the judge op, one model call


def test_solve_sorting_has_no_model_score_line(capsys):
    code, out, _err = run_cli(capsys, "solve", "sorting", "--input", "[3, 1, 2]")
    assert code == 0 and "rating:" not in out


@pytest.mark.slow
def test_eval_against_a_dead_endpoint_prints_its_error_line_and_no_warning(tmp_path):
    env = dict(os.environ, OPENAI_API_KEY="x", PYTHONWARNINGS="default")
    argv = ["eval", "sorting", "--samples", "2", "--model", "openai:x", "--out", str(tmp_path)]
    argv += ["--base-url", "http://127.0.0.1:9/v1", "--no-progress"]
    done = subprocess.run(
        [sys.executable, "-m", "thoughtgraph.cli.main", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert "Warning" not in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith("error: cannot reach the endpoint")
