"""A ledger that cannot lie: every HTTP request the loopback server saw is a request the result
reports, every answer that arrived is counted, cached and used, and no request leaves past a
cap. Each test starts its own OpenAI-compatible server on 127.0.0.1 (tests/fake_openai.py) and
stages the faults it is about."""

from __future__ import annotations

import csv
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

import thoughtgraph
from thoughtgraph.models import inflight
from thoughtgraph.models.cache import CachedModel
from thoughtgraph.models.openai import OpenAIModel

from .conftest import INPUT_32, run_cli
from .fake_openai import FakeOpenAI, Fault

SCHEMES_WITH_N = ("tot", "tot2", "got_paper", "cot_sc")  # schemes asking for n > 1 answers
FAULTS = ("500", "429", "malformed", "reset", "few", "empty", "null")


@pytest.fixture(autouse=True)
def _no_real_endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"):
        monkeypatch.delenv(name, raising=False)
    inflight.forget_endpoints()
    yield
    inflight.forget_endpoints()


def model(server: FakeOpenAI, **options) -> OpenAIModel:
    options.setdefault("max_retries", 0)
    options.setdefault("timeout", 5)
    return OpenAIModel("gpt-4o-mini", base_url=server.base_url, **options)


def cached_rows(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]


def solve(server: FakeOpenAI, tmp_path: Path, scheme: str, **options) -> thoughtgraph.Result:
    retries = options.pop("max_retries", 0)
    return thoughtgraph.solve(
        "sorting",
        INPUT_32,
        model=model(server, max_retries=retries),
        scheme=scheme,
        cache=tmp_path / "cache.db",
        **options,
    )


# --- the invariant, under faults, for every scheme with n > 1 --------------------------------
@pytest.mark.parametrize("honour_n", [True, False], ids=["n-honoured", "n-ignored"])
@pytest.mark.parametrize("scheme", SCHEMES_WITH_N)
def test_requests_and_answers_balance_under_faults(tmp_path, scheme, honour_n):
    with FakeOpenAI(
        honour_n=honour_n, fault_rate=0.3, random_faults=FAULTS, seed=len(scheme)
    ) as server:
        server.script("500")  # at least one fault, whatever the random draws
        result = solve(server, tmp_path, scheme, max_retries=1)
    faults = sum(r.fault is not None for r in server.requests)
    assert faults > 0  # the faults did happen
    outcomes = [a["outcome"] for c in result.state.calls.values() for a in c.attempts]
    seen = [r.fault for r in server.requests]
    assert len(server.requests) == result.requests == result.spend.requests, (outcomes, seen)
    assert server.answered == result.spend.answers_received == cached_rows(tmp_path / "cache.db")
    calls = result.state.calls.values()
    assert sum(len(c.attempts) for c in calls) == result.requests
    assert sum(c.requests for c in calls) == result.requests
    # every answer that arrived was used: it became a thought
    used = sum(len(c.texts) for c in calls)
    assert used == result.completions >= server.answered


# --- 1. parallel singles: a failed sibling is one failed completion --------------------------
def test_a_failed_single_keeps_its_siblings_answers(tmp_path):
    with FakeOpenAI(honour_n=False) as server:
        server.script(*["delay"] * 2, "500")  # the third of five singles fails
        inflight.endpoint(server.base_url).forget_n("gpt-4o-mini")
        result = solve(server, tmp_path, "cot_sc")
    [call] = result.state.calls.values()
    assert len(server.requests) == 5 == call.requests == result.requests
    assert len(call.texts) == 4 and call.error is None and result.tokens > 0
    assert cached_rows(tmp_path / "cache.db") == 4 == server.answered
    outcomes = sorted(a["outcome"] for a in call.attempts)
    assert outcomes == ["HTTP 500", "ok", "ok", "ok", "ok"]
    thoughts = [t for t in result.state.thoughts.values() if t.call_id == call.id]
    assert sum(t.content is not None for t in thoughts) == 4
    failed = next(t for t in thoughts if t.content is None)
    assert "HTTP 500" in failed.score.errors[0]  # the missing answer says why


def test_tot_with_some_failing_singles_is_not_lost(tmp_path):
    with FakeOpenAI(honour_n=False, fault_rate=0.2, seed=3) as server:
        result = solve(server, tmp_path, "tot")
    ok = sum(r.fault is None for r in server.requests)
    assert ok > 0 and result.spend.answers_received == ok == cached_rows(tmp_path / "cache.db")
    assert result.requests == len(server.requests) and result.output is not None


# --- 2. every HTTP request counted, retries included; each attempt in the trace -------------
def test_retries_are_counted_as_requests_with_their_outcomes(capsys, tmp_path):
    trace = tmp_path / "run.json"
    with FakeOpenAI() as server:
        server.script(Fault("500"), Fault("429", 0.01), Fault("delay", 2.0))
        code, out, _ = solve_cli(
            capsys, server, str(INPUT_32), "--concurrency", "1", "--timeout", "0.5",
            "--max-retries", "2", "--json", "--trace", str(trace),
        )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    # the first call sent three requests and failed; every other call sent one
    assert len(server.requests) == data["requests"] == data["calls"] + 2
    run = json.loads(trace.read_text())
    first = next(c for c in run["calls"] if c["id"] == "part_1:0.1")
    assert [a["outcome"] for a in first["attempts"]] == ["HTTP 500", "HTTP 429", "timeout"]
    assert first["requests"] == 3 and first["error"] is not None
    timed_out = first["attempts"][2]
    assert timed_out["prompt_tokens"] is None and timed_out["completion_tokens"] is None
    assert data["unknown_token_requests"] == 1
    assert run["result"]["requests"] == data["requests"]


def test_the_summary_shows_requests(capsys):
    with FakeOpenAI() as server:
        server.script(Fault("500"))
        code, out, _ = solve_cli(
            capsys, server, "[3, 1, 2]", "--scheme", "io", "--max-retries", "1"
        )
    assert code == 0 and "calls:   1 (" in out and "· 2 requests ·" in out


# --- 3. caps count requests; nothing leaves past a cap ---------------------------------------
@pytest.mark.parametrize("cap", [1, 5, 20])
def test_max_requests_caps_the_requests_the_server_sees(tmp_path, cap):
    with FakeOpenAI(fault_rate=0.5, seed=cap) as server:
        result = solve(server, tmp_path, "got", max_requests=cap, max_retries=2)
    assert len(server.requests) == result.requests <= cap
    assert result.stop_reason == "budget exhausted" or result.requests < cap


def test_max_requests_one_with_n_ignored_sends_one_request(tmp_path):
    with FakeOpenAI(honour_n=False) as server:
        result = solve(server, tmp_path, "tot", max_requests=1)
    assert len(server.requests) == 1 == result.requests
    assert result.spend.answers_received == 1 == cached_rows(tmp_path / "cache.db")


def test_max_tokens_is_checked_before_every_request(tmp_path):
    with FakeOpenAI(honour_n=False) as server:
        result = solve(server, tmp_path, "tot", max_tokens=2000)
    assert result.stop_reason == "budget exhausted"
    assert len(server.requests) == result.requests
    assert result.spend.answers_received == server.answered
    last = max(result.state.calls.values(), key=lambda c: c.ended)
    assert result.tokens - last.usage.total_tokens < 2000  # each request started below the cap


def solve_cli(capsys, server: FakeOpenAI, problem: str, *args: str):
    """`thoughtgraph solve sorting` through the real openai: path against `server`."""
    return run_cli(
        capsys, "solve", "sorting", "--model", "openai:gpt-4o-mini", "--base-url",
        server.base_url, "--input", problem, "--no-progress", *args,
    )  # fmt: skip


def eval_cli(capsys, server: FakeOpenAI, out: Path, *args: str):
    return run_cli(
        capsys,
        "eval",
        "sorting",
        "--samples",
        "4",
        "--schemes",
        "io,cot,got",
        "--model",
        "openai:gpt-4o-mini",
        "--base-url",
        server.base_url,
        "--parallel",
        "6",
        "--no-progress",
        "--out",
        str(out),
        *args,
    )


def test_eval_shares_one_budget_across_parallel_pairs(capsys, tmp_path):
    with FakeOpenAI() as server:
        code, _, err = eval_cli(capsys, server, tmp_path / "e", "--max-requests", "20")
    lines = [json.loads(x) for x in (tmp_path / "e" / "results.jsonl").read_text().splitlines()]
    assert len(server.requests) == sum(x["requests"] for x in lines) <= 20
    assert code == 1 and "incomplete" in err and "got#" in err


def test_a_pair_the_budget_stopped_is_left_out_of_the_summary_and_rerun_on_resume(capsys, tmp_path):
    out, cache = tmp_path / "e", str(tmp_path / "answers.db")
    with FakeOpenAI() as server:
        code, _, _ = eval_cli(capsys, server, out, "--max-requests", "20", "--cache", cache)
        first = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
        stopped = [x for x in first if x["stop_reason"] == "budget exhausted"]
        assert code == 1 and stopped
        summary = (out / "summary.md").read_text()
        assert "**Incomplete:**" in summary
        assert all(f"{x['scheme']}#{x['sample']}" in summary for x in stopped)
        table = {r["scheme"]: r for r in csv.DictReader((out / "summary.csv").open())}
        for scheme in {x["scheme"] for x in first}:
            finished = [x for x in first if x["scheme"] == scheme and not x["stop_reason"]]
            if finished:  # the table counts only pairs that ran to their end
                assert int(table[scheme]["samples"]) == len(finished)
        before = len(server.requests)
        code, _, _ = eval_cli(capsys, server, out, "--cache", cache)  # no cap: finish them
        paid_again = len(server.requests) - before
    assert code == 0
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    latest = {(x["scheme"], x["sample"]): x for x in lines}
    assert len(latest) == 12 and not any(x["stop_reason"] for x in latest.values())
    rerun = lines[len(first) :]
    assert {(x["scheme"], x["sample"]) for x in stopped} <= {
        (x["scheme"], x["sample"]) for x in rerun
    }
    # the answers the stopped pairs had already received came from the cache, not the server
    assert paid_again == sum(x["requests"] for x in rerun)
    assert "**Incomplete:**" not in (out / "summary.md").read_text()


@pytest.mark.parametrize(
    ("flag", "value", "field"),
    [("--max-tokens", "3000", "tokens"), ("--max-cost", "0.0006", "cost")],
)
def test_eval_caps_tokens_and_cost_across_pairs(capsys, tmp_path, flag, value, field):
    with FakeOpenAI() as server:
        code, _, err = eval_cli(capsys, server, tmp_path / "e", flag, value)
    lines = [json.loads(x) for x in (tmp_path / "e" / "results.jsonl").read_text().splitlines()]
    assert len(server.requests) == sum(x["requests"] for x in lines)
    spent = sum(x[field] for x in lines)
    assert spent < float(value) * 1.5  # in-flight requests can go past by their excess only
    assert code == 1 and ("incomplete" in err or "not run" in err)


def test_eval_help_describes_shared_concurrency_and_budgets(capsys):
    _, out, _ = run_cli(capsys, "eval", "--help")
    text = " ".join(out.split())
    assert "shared by all pairs (not per pair)" in text
    assert "--max-tokens" in text and "--max-cost" in text


# --- 4. a damaged cache is fatal and stated --------------------------------------------------
def damage(path: Path, how: str) -> None:
    if how == "pages":
        with sqlite3.connect(path) as db:
            size = db.execute("PRAGMA page_size").fetchone()[0]
            table = db.execute("SELECT rootpage FROM sqlite_master WHERE name='answers'")
            root = table.fetchone()[0]
        data = bytearray(path.read_bytes())
        start = (root - 1) * size  # header, schema and migrations intact; the answers overwritten
        data[start:] = b"\x07" * (len(data) - start)
        path.write_bytes(bytes(data))
    else:
        with sqlite3.connect(path) as db:
            db.execute("DROP TABLE answers")
            if how == "misshaped":
                db.execute("CREATE TABLE answers (key TEXT, text INTEGER)")
            if how == "strings":
                db.execute(
                    "CREATE TABLE answers (key TEXT PRIMARY KEY, model TEXT, sample INTEGER, "
                    "prompt TEXT, settings TEXT, text TEXT, prompt_tokens TEXT, "
                    "completion_tokens TEXT, created REAL)"
                )


@pytest.mark.parametrize("how", ["pages", "missing", "misshaped", "strings"])
def test_a_damaged_cache_stops_with_one_error_line(capsys, tmp_path, how):
    cache = tmp_path / "cache.db"
    args = ["solve", "sorting", "--input", str(INPUT_32), "--cache", str(cache), "--no-progress"]
    assert run_cli(capsys, *args)[0] == 0
    with sqlite3.connect(cache) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        keys = [row[0] for row in db.execute("SELECT key FROM answers")]
    damage(cache, how)
    if how == "strings":
        with sqlite3.connect(cache) as db:
            db.executemany(
                "INSERT INTO answers VALUES (?, 'm', 0, 'p', '{}', 'x', 'many', 'lots', 0)",
                [(k,) for k in keys],
            )
    code, out, err = run_cli(capsys, *args)
    assert code != 0 and out == ""
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
    assert "cache" in err and "Traceback" not in err


# --- 5. a merge whose every attempt failed passes on its inputs joined, not nothing ----------
def test_failed_merges_pass_on_the_parts_joined_in_code(capsys):
    text = (
        "Peru and Chile met in Peru. Chile sent a team to Peru. France watched. "
        "Spain and France argued. Chile won. Peru lost to Spain. Japan came late. Chile left. "
    )

    def merges(body):
        prompt = body["messages"][-1]["content"]
        return "500" if "</a>" in prompt else None

    with FakeOpenAI(fault_when=merges) as server:
        result = thoughtgraph.solve(
            "keyword-counting",
            text,
            model=model(server),
            parts=2,
            max_refines=0,
        )
    merge_calls = [c for c in result.state.calls.values() if c.kind == "merge"]
    assert merge_calls and all(c.error for c in merge_calls)  # every merge failed
    assert result.output == thoughtgraph.get_task("keyword-counting").reference(
        thoughtgraph.get_task("keyword-counting").parse_input(text)
    )  # the parts were right, so their sum is
    assert result.final.id.endswith(".joined") and result.final.content
    assert not any(t.text == "" and t.kind == "merge" for t in [result.final])


# --- 6. every answer empty: exit 2 with an error line ----------------------------------------
def test_every_answer_empty_is_exit_2_with_an_error_line(capsys):
    with FakeOpenAI(fault_when=lambda body: "blank") as server:
        code, _, err = solve_cli(
            capsys, server, "[3, 1, 2]", "--scheme", "io", "--max-retries", "0"
        )
    assert code == 2
    assert err.startswith("error: no usable answer: none of the 1 answers could be used")


def test_cached_model_keeps_partial_answers(tmp_path):
    """The cache stores what arrived and gives the unfilled samples to the next call."""

    class Partial:
        name, simulated = "partial", False

        async def complete(self, prompt, n=1):
            from thoughtgraph.models.base import Completion

            return [Completion(f"{prompt}-{i}") for i in range(n - 1)]

    import asyncio

    cached = CachedModel(Partial(), tmp_path / "c.db")
    answers = asyncio.run(cached.complete("p", 3))
    assert [a.text for a in answers] == ["p-0", "p-1"]
    assert cached_rows(tmp_path / "c.db") == 2
    cached.close()


def test_an_attempts_trace_record_holds_every_field_of_it():
    """`Attempt.to_dict` is written out by hand (it runs for every call): it must stay in step
    with the dataclass, whatever field is added."""
    import dataclasses

    from thoughtgraph.spend.ledger import Attempt

    attempt = Attempt("HTTP 500", 2, None, 7, "server error", fatal=True)
    assert attempt.to_dict() == dataclasses.asdict(attempt)
    assert list(attempt.to_dict()) == [f.name for f in dataclasses.fields(Attempt)]
