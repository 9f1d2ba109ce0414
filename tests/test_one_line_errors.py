"""Mistakes that used to end in a traceback (or silently did something else) end in one line.

Issue 11, items 9 and 10: out-of-range caps, NaN settings, malformed base URLs, deeply nested
graph files and traces, damaged cache rows, Python arguments of the wrong type, an empty scheme,
`--parts` on a scheme without parts, eval refusing before its banner, one eval per folder.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3

import pytest

import thoughtgraph
from thoughtgraph.errors import FatalModelError, InputError
from thoughtgraph.models.cache import CachedModel

from .conftest import run_cli

SORT = ("solve", "sorting", "--input", "[3, 1, 2]")
OPENAI = ("solve", "sorting", "--input", "[3, 1, 2]", "-m", "openai:m")


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert "Traceback" not in err
    return err[len("error: ") : -1]


@pytest.mark.parametrize("flag", ["--max-refines", "--max-regenerations", "--max-extra-merges"])
def test_caps_past_100_are_one_line(capsys, flag):
    code, _, err = run_cli(capsys, *SORT, flag, "101")
    name = flag[2:].replace("-", "_")
    assert (code, one_line(err)) == (2, f"{name} must be at most 100, got 101")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--timeout", "nan"), "openai option timeout must be a number of seconds > 0, got nan"),
        (("--base-url", "http://127.0.0.1:99999/v1"), "base_url is not a valid URL: Port out"),
        (("--base-url", "http://[::1/v1"), "base_url is not a valid URL: Invalid IPv6 URL"),
    ],
)
def test_bad_openai_settings_are_one_line(capsys, monkeypatch, args, message):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    code, _, err = run_cli(capsys, *OPENAI, *args)
    assert code == 2 and one_line(err).startswith(message)


def test_nan_temperature_in_a_model_spec_is_one_line(capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    spec = "openai:m,temperature=nan,base_url=http://127.0.0.1:9/v1"
    code, _, err = run_cli(capsys, "solve", "sorting", "--input", "[2, 1]", "-m", spec)
    assert (code, one_line(err)) == (
        2,
        "openai option temperature must be between 0 and 2, got nan",
    )


@pytest.mark.parametrize(
    ("name", "text"),
    [("deep.json", "[" * 100_000 + "]" * 100_000), ("deep.yaml", "- " * 5_000 + "1\n")],
)
def test_a_deeply_nested_graph_file_is_one_line(tmp_path, capsys, name, text):
    path = tmp_path / name
    path.write_text(text)
    code, _, err = run_cli(capsys, *SORT, "--graph", str(path))
    assert (code, one_line(err)) == (2, f"{path}: nested too deeply to be a graph file")


def test_trace_view_of_a_deeply_nested_json_is_one_line(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = run_cli(capsys, "trace", "view", str(path))
    assert (code, one_line(err)) == (2, f"{path} is not a thoughtgraph trace (nested too deeply)")


def test_trace_view_of_non_text_thought_ids_is_one_line(tmp_path, capsys):
    path = tmp_path / "ids.json"
    path.write_text(json.dumps({"thoughts": [{"id": 1}], "calls": [], "ops": []}))
    code, _, err = run_cli(capsys, "trace", "view", str(path))
    assert code == 2
    assert one_line(err) == (
        f"{path} is not a thoughtgraph trace ('thoughts' item 1 has an 'id' that is not text)"
    )


def test_trace_view_of_a_field_with_a_foreign_type_is_one_line(tmp_path, capsys):
    real = tmp_path / "run.json"
    assert run_cli(capsys, *SORT, "--trace", str(real))[0] == 0
    trace = json.loads(real.read_text())
    trace["calls"][0]["usage"]["prompt_tokens"] = "many"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(trace))
    code, _, err = run_cli(capsys, "trace", "view", str(bad))
    assert code == 2 and one_line(err).startswith(f"{bad} is not a thoughtgraph trace")


class OneAnswer:
    name, simulated, settings = "one", False, {}

    async def complete(self, prompt: str, n: int = 1) -> list[thoughtgraph.Completion]:
        return [thoughtgraph.Completion("x", thoughtgraph.Usage(5, 1)) for _ in range(n)]


def test_a_cache_row_with_text_token_counts_is_a_stated_error(tmp_path):
    path = tmp_path / "c.sqlite"
    asyncio.run(CachedModel(OneAnswer(), path).complete("p"))
    with sqlite3.connect(path) as db:
        db.execute("UPDATE answers SET prompt_tokens = 'abc'")
    with pytest.raises(FatalModelError, match=r"is damaged .* token counts 'abc', 1"):
        asyncio.run(CachedModel(OneAnswer(), path).complete("p"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"input": [10**5000, 1]}, "a number|4300 digits"),
        ({"input": [3, 1], "cache": 5}, "cache must be a file path, got int"),
        ({"input": [3, 1], "on_event": 5}, "on_event must be a function of one event, got int"),
    ],
)
def test_python_arguments_of_the_wrong_kind_are_input_errors(kwargs, message):
    with pytest.raises(InputError, match=message):
        thoughtgraph.solve("sorting", **kwargs)


def test_a_huge_int_in_sets_is_an_input_error():
    with pytest.raises(InputError, match="4300 digits"):
        thoughtgraph.solve("set-intersection", ([10**5000, 1], [1, 2]))


def test_an_empty_scheme_is_refused_not_replaced_by_got(capsys):
    code, out, err = run_cli(capsys, *SORT, "--scheme", "")
    assert (code, out) == (2, "")
    assert one_line(err).startswith("unknown scheme ''")


def test_graph_parts_on_a_scheme_without_parts_is_refused(capsys):
    code, out, err = run_cli(capsys, "graph", "io", "--parts", "4")
    assert (code, out) == (2, "")
    assert one_line(err) == (
        "--parts applies to the got, got_adaptive and got_paper schemes, not 'io'"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--rpm", "0"), "--rpm must be more than 0, got 0"),
        (("--price-in", "nan", "--price-out", "1"), "--price-in must be a finite number, got nan"),
        (("--price-in", "1"), "give both price_in and price_out"),
    ],
)
def test_eval_refuses_bad_options_before_its_banner(tmp_path, capsys, args, message):
    out = tmp_path / "ev"
    code, stdout, err = run_cli(
        capsys, "eval", "sorting", "--samples", "1", "--out", str(out), *args
    )
    assert (code, stdout) == (2, "")
    assert one_line(err).startswith(message)  # and no "eval sorting on ..." banner before it
    assert not out.exists()


@pytest.mark.skipif(os.name != "posix", reason="flock")
def test_a_second_eval_into_a_busy_folder_is_refused(tmp_path, capsys):
    import fcntl

    out = tmp_path / "ev"
    out.mkdir()
    with open(out / ".eval.lock", "w") as rival:  # another process's eval holds the folder
        fcntl.flock(rival, fcntl.LOCK_EX | fcntl.LOCK_NB)
        args = ("eval", "sorting", "--schemes", "io", "--samples", "2", "--out", str(out))
        code, stdout, err = run_cli(capsys, *args, "--no-progress")
    assert (code, stdout) == (2, "")
    assert one_line(err) == (
        f"another thoughtgraph eval is writing to {out}: "
        "wait for it to finish or give another --out"
    )
    assert not (out / "results.jsonl").exists()
    code, _, _ = run_cli(capsys, *args, "--no-progress")  # free again: it runs
    assert code == 0 and len((out / "results.jsonl").read_text().splitlines()) == 2
