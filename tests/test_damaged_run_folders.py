"""`compare` and eval's resume read run folders through the bounded, strict readers everything
else uses (io/bounds.py `read_file`, io/strictload.py `read_json`): a damaged folder (bad UTF-8,
numbers too large, JSON nested 100,000 deep), a FIFO (compare hung on it) and /dev/zero
(compare read it to 3.4 GB) are each one `error:` line and exit 2, with no traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import run_cli
from .test_resume import cli_env

EVAL = ("eval", "sorting", "--samples", "2", "--schemes", "io,cot", "--no-progress")


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An eval folder as `eval` leaves it (the simulated model)."""
    out = tmp_path_factory.mktemp("runs") / "good"
    from thoughtgraph.cli.main import main

    with pytest.raises(SystemExit) as done:
        main([*EVAL, "--out", str(out)])
    assert done.value.code in (0, None)
    return out


def first_line_replaced(old: str, new: str) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        path = folder / "results.jsonl"
        lines = path.read_text().splitlines()
        assert old in lines[0]
        path.write_text("\n".join([lines[0].replace(old, new, 1), *lines[1:]]) + "\n")

    return damage


def bad_utf8(folder: Path) -> None:
    path = folder / "results.jsonl"
    path.write_bytes(b"\xff\xfe" + path.read_bytes())


def deep_line(folder: Path) -> None:
    path = folder / "results.jsonl"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n" + path.read_text())


def deep_manifest(folder: Path) -> None:
    (folder / "eval.json").write_text("[" * 100_000 + "]" * 100_000)


def long_size(folder: Path) -> None:
    manifest = json.loads((folder / "eval.json").read_text())
    text = json.dumps(manifest).replace(f'"size": {manifest["size"]}', '"size": ' + "3" * 5000)
    (folder / "eval.json").write_text(text)


DAMAGES = {
    "bad UTF-8": (bad_utf8, "cannot read the eval results {r}: not UTF-8 text"),
    "a 5,000-digit count": (
        first_line_replaced('"requests": 1', '"requests": ' + "9" * 5000),
        "{r}: line 1 is not a result line",
    ),
    "1e999": (
        first_line_replaced('"cost": 0.0', '"cost": 1e999'),
        "{r}: line 1 is not a result line",
    ),
    "deep JSON": (deep_line, "{r}: line 1 is not a result line"),
    # each of these once ended in a traceback, in a sum, a set or a comparison later
    "a word for a count": (
        first_line_replaced('"requests": 1', '"requests": "x"'),
        "{r}: line 1 is not a result line (requests: input should be a valid integer)",
    ),
    "a list for a sample": (
        first_line_replaced('"sample": 0', '"sample": [0]'),
        "{r}: line 1 is not a result line (sample.int: input should be a valid integer)",
    ),
    "a word for a yes or no": (
        first_line_replaced('"simulated": true', '"simulated": "yes"'),
        "{r}: line 1 is not a result line (simulated: input should be a valid boolean)",
    ),
    "a number for a fingerprint": (
        first_line_replaced('"fingerprint": {', '"fingerprint": 5, "x": {'),
        "{r}: line 1 is not a result line (fingerprint: input should be an object)",
    ),
    "a deep manifest": (deep_manifest, "{m} is not an evaluation manifest"),
    "a long size": (long_size, "{m} is not an evaluation manifest"),
}


def damaged(good: Path, tmp_path: Path, damage: Callable[[Path], None]) -> Path:
    folder = tmp_path / "damaged"
    shutil.copytree(good, folder)
    damage(folder)
    return folder


@pytest.mark.parametrize("case", DAMAGES)
def test_compare_of_a_damaged_folder_is_one_line(capsys, good, tmp_path, case) -> None:
    damage, line = DAMAGES[case]
    folder = damaged(good, tmp_path, damage)
    code, _, err = run_cli(capsys, "compare", str(good), str(folder))
    expected = line.format(r=folder / "results.jsonl", m=folder / "eval.json")
    assert (code, err) == (2, f"error: {expected}\n")


@pytest.mark.parametrize("case", DAMAGES)
def test_resuming_a_damaged_folder_is_one_line(capsys, good, tmp_path, case) -> None:
    damage, line = DAMAGES[case]
    folder = damaged(good, tmp_path, damage)
    code, _, err = run_cli(capsys, *EVAL, "--out", str(folder))
    expected = line.format(r=folder / "results.jsonl", m=folder / "eval.json")
    assert code == 2 and err.splitlines()[-1].startswith(f"error: {expected}"), err
    assert (
        "Traceback" not in err and sum(line.startswith("error:") for line in err.splitlines()) == 1
    )


def test_damaged_unrecorded_spend_is_one_line_on_resume(capsys, good, tmp_path) -> None:
    folder = damaged(good, tmp_path, lambda f: None)
    (folder / "unrecorded-spend.json").write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = run_cli(capsys, *EVAL, "--out", str(folder))
    assert code == 2 and err.splitlines()[-1] == (
        f"error: {folder / 'unrecorded-spend.json'} is damaged (nested too deeply (lists or "
        "mappings inside one another)); move it away"
    )


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_compare_of_a_fifo_or_dev_zero_is_one_line_and_no_hang(good, tmp_path, kind) -> None:
    folder = damaged(good, tmp_path, lambda f: None)
    results = folder / "results.jsonl"
    results.unlink()
    if kind == "fifo":
        os.mkfifo(results)
    else:
        results.symlink_to("/dev/zero")
    run = subprocess.run(
        [sys.executable, "-m", "thoughtgraph.cli.main", "compare", str(good), str(folder)],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (run.returncode, run.stderr) == (
        2,
        f"error: cannot read the eval results {results}: not a regular file\n",
    )
