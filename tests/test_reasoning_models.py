"""Reasoning models against a loopback server that thinks 1,500 tokens before it answers, with
lists in its thinking that are not its answer (tests/fake_openai.py `thinking=`): the thinking
inline (`<think>`) or in a field (`reasoning_content`, `reasoning`), with and without usage.
Solve and eval with default options read the final answer and bill the thinking; a reply the
completion cap cut while the model thought says so in one line. Every endpoint is 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator

import pytest

from thoughtgraph.models import inflight
from thoughtgraph.models.cache import CachedModel
from thoughtgraph.models.openai import OpenAIModel
from thoughtgraph.models.reasoning import (
    THINKING_ROOM,
    Reply,
    billed_completion,
    read_message,
    split_inline,
)
from thoughtgraph.viewer.html import page_data

from .conftest import INPUT_32, run_cli
from .fake_openai import FakeOpenAI, thoughts

FORMS = ("inline", "magistral", "reasoning_content", "reasoning")
CUT = "the model's reasoning hit --max-completion-tokens {}: raise it or set 0"
SORTED = sorted(INPUT_32)


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No key, endpoint or cache from the environment; no memory of other tests' endpoints."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"):
        monkeypatch.delenv(name, raising=False)
    inflight.forget_endpoints()
    yield
    inflight.forget_endpoints()


def solve(capsys, server: FakeOpenAI, *args: str) -> tuple[int, str, str]:
    return run_cli(
        capsys,
        "solve",
        "sorting",
        "--model",
        "openai:deepthinker",
        "--base-url",
        server.base_url,
        "--input",
        str(INPUT_32),
        "--no-progress",
        *args,
    )


def thinking_tokens(server: FakeOpenAI) -> int:
    """The tokens of thinking the server made (each request's cap cuts it)."""
    made = 0
    for request in server.requests:
        cap = request.body.get("max_tokens")
        made += min(server.think_tokens, cap) if isinstance(cap, int) else server.think_tokens
    return made


# --- reading a reply ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "answer", "thinking", "unclosed"),
    [
        ("<think>try [3, 1, 2]</think>\n\n[1, 2, 3]", "[1, 2, 3]", "try [3, 1, 2]", False),
        (
            "the template opened it: [9, 8]</think>[8, 9]",
            "[8, 9]",
            "the template opened it: [9, 8]",
            False,
        ),
        ("<think>cut while trying [4, 2", "", "cut while trying [4, 2", True),
        ("<THINKING>a</THINKING><think>b</think>[1]", "[1]", "a\n\nb", False),
        ("<think>\n\n</think>\n\n[1]", "[1]", "", False),  # Qwen3 with thinking off
        ("[1, 2] < [3]", "[1, 2] < [3]", "", False),
        # Magistral's special tokens, left in content by llama.cpp
        ("[THINK]try [3, 1, 2][/THINK][1, 2, 3]", "[1, 2, 3]", "try [3, 1, 2]", False),
        ("[THINK]cut while trying [4, 2", "", "cut while trying [4, 2", True),
        ("[think] is no tag: [1]", "[think] is no tag: [1]", "", False),
        ("  \n<think>cut at the start [4", "", "cut at the start [4", True),
        ("<think>a</think>[1]\n<think>then cut", "[1]", "a\n\nthen cut", True),
        # a lone tag after text is the answer's own: an input quoted back, a remark
        (
            "the input 'a <think> b' sorted: [1, 2]",
            "the input 'a <think> b' sorted: [1, 2]",
            "",
            False,
        ),
        ("[1, 2] (no <THINK> tags used)", "[1, 2] (no <THINK> tags used)", "", False),
    ],
)
def test_inline_thinking_is_taken_out_of_the_answer(text, answer, thinking, unclosed):
    """(A reply the cap did not cut.)"""
    reply = split_inline(text)
    assert (reply.answer, reply.reasoning, reply.unclosed) == (answer, thinking, unclosed)


def test_a_reply_the_cap_cut_inside_thinking_after_its_answer_keeps_the_answer():
    """A lone `<think>` after text is text in a whole reply, but thinking in one the cap cut
    there (finish_reason "length"): its drafts are not read as the answer."""
    text = "[1, 2, 3]\n<think>wait, maybe [3, 2"
    assert split_inline(text) == Reply(text)
    assert split_inline(text, cut=True) == Reply("[1, 2, 3]", "wait, maybe [3, 2", True)
    cut = read_message({"content": text}, cut=True)
    assert cut is not None and cut.answer == "[1, 2, 3]"


def test_thinking_in_a_field_is_never_the_answer():
    assert read_message({"content": None, "reasoning_content": "[9, 1]"}) == read_message(
        {"content": "", "reasoning": "[9, 1]"}
    )
    reply = read_message({"content": None, "reasoning_content": "maybe [9, 1]"})
    assert reply is not None and (reply.answer, reply.reasoning) == ("", "maybe [9, 1]")
    both = read_message({"content": "<think>b</think>[1]", "reasoning": "a"})
    assert both is not None and (both.answer, both.reasoning) == ("[1]", "a\n\nb")
    assert read_message({"content": None}) is None  # no text and no thinking: malformed


@pytest.mark.parametrize(
    ("usage", "billed"),
    [
        # OpenAI, DeepSeek, OpenRouter: completion_tokens already holds the thinking
        ({"prompt_tokens": 10, "completion_tokens": 1600, "total_tokens": 1610}, 1600),
        # a server that left them out: fewer completion tokens than thinking tokens ...
        ({"prompt_tokens": 10, "completion_tokens": 100}, 1600),
        # ... or a total that adds them on top
        ({"prompt_tokens": 10, "completion_tokens": 1501, "total_tokens": 3011}, 3001),
    ],
)
def test_reasoning_tokens_are_billed_once(usage, billed):
    usage = usage | {"completion_tokens_details": {"reasoning_tokens": 1500}}
    assert billed_completion(usage, usage["completion_tokens"], usage["prompt_tokens"]) == billed


def test_the_thinking_holds_lists_that_are_not_the_answer():
    """What makes the server a fair test: read as the answer, its thinking is wrong."""
    words = thoughts(str(SORTED[:8]), 1500)
    text = " ".join(words)
    assert len(words) == 1500 and text.count("[") > 50 and str(SORTED[:8]) not in text


# --- whole runs with default options ---------------------------------------------------------
@pytest.mark.parametrize("scheme", ["io", "got"])
@pytest.mark.parametrize("usage", [True, False], ids=["usage", "no-usage"])
@pytest.mark.parametrize("form", FORMS)
def test_solve_reads_the_final_answer_and_bills_the_thinking(capsys, form, usage, scheme):
    with FakeOpenAI(thinking=form, report_usage=usage) as server:
        code, out, err = solve(capsys, server, "--scheme", scheme, "--json")
    data = json.loads(out)
    assert code == 0, err
    assert data["status"] == "clean" and data["output"] == SORTED
    share = data["tokens"] / server.produced
    assert share >= 0.95 if usage else share >= 0.5, (data["tokens"], server.produced)
    assert data["reasoning_tokens"] >= (0.95 if usage else 0.5) * thinking_tokens(server)
    assert data["completion_tokens"] >= data["reasoning_tokens"]
    assert "reasoning hit" not in err  # the default cap made room once the model reasoned


def test_no_cap_reads_the_final_answer_and_a_server_that_bills_thinking_unsaid(capsys):
    """`--max-completion-tokens 0` sends no cap; a server whose usage does not break the
    thinking down (vLLM, llama.cpp) still has it billed, and reported as its share."""
    with FakeOpenAI(thinking="inline", reasoning_details=False) as server:
        code, out, err = solve(
            capsys, server, "--scheme", "io", "--max-completion-tokens", "0", "--json"
        )
    assert code == 0, err
    data = json.loads(out)
    assert data["output"] == SORTED and data["tokens"] == server.produced
    [request] = server.requests
    assert "max_tokens" not in request.body
    assert 0.9 * server.think_tokens <= data["reasoning_tokens"] < data["completion_tokens"]


def test_the_default_cap_makes_room_once_a_reply_shows_reasoning(capsys):
    """The first reply, cut by the default cap while the model thought, is asked again at once
    with room to think; every later request has that room from the start."""
    with FakeOpenAI(thinking="inline") as server:
        code, out, err = solve(capsys, server, "--scheme", "got", "--concurrency", "1")
    assert code == 0, err
    caps = [r.body["max_tokens"] for r in server.requests]
    default = caps[0]
    assert default < server.think_tokens and caps[1] == default + THINKING_ROOM
    assert caps[2:] and set(caps[2:]) == {default + THINKING_ROOM}
    assert f"capped at {default:,} tokens each by default" in out
    assert f"+ {THINKING_ROOM:,} for a model that reasons" in out
    assert "of them the model's reasoning" in out


def test_a_declared_reasoning_model_has_room_to_think_from_the_first_request(capsys):
    with FakeOpenAI(thinking="reasoning_content") as server:
        code, out, _err = solve(capsys, server, "--scheme", "io", "--reasoning", "--json")
    assert code == 0 and json.loads(out)["output"] == SORTED
    [request] = server.requests  # nothing cut, nothing asked twice
    assert request.body["max_tokens"] > THINKING_ROOM


@pytest.mark.parametrize("declared", [(), ("--reasoning",)], ids=["detected", "declared"])
def test_a_server_whose_context_is_smaller_than_the_room_to_think_runs_without_a_cap(
    capsys, declared
):
    """vLLM refuses a request whose prompt and max_tokens pass its context (HTTP 400): the
    room to think a default cap was given is then left out, and the run goes on."""
    with FakeOpenAI(thinking="reasoning_content", context=8192) as server:
        code, out, err = solve(capsys, server, "--scheme", "got", "--concurrency", "1", *declared)
    assert code == 0 and "status:  clean" in out, err
    caps = [r.body.get("max_tokens") for r in server.requests]
    refused = caps.index(next(c for c in caps if c and c > THINKING_ROOM))
    assert caps[refused + 1 :] and set(caps[refused + 1 :]) == {None}  # asked again, no cap
    assert refused == (0 if declared else 1)
    assert "refused a cap of" in err and "its requests go without a cap" in err
    answers_line = next(line for line in out.splitlines() if line.startswith("answers:"))
    assert "requests went without a cap" in answers_line and "16,384" not in answers_line
    assert "error" not in err and "reasoning hit" not in err


def test_a_server_that_refused_the_room_is_held_to_what_the_budget_leaves(capsys):
    """Under --max-tokens a model whose server refused the room to think goes with what the
    budget leaves, held to the context the server said it has, never without a cap: a reply
    of 3,800 tokens of thinking cannot carry the run past the budget (without a cap the second
    request paid ~4,000 against the 2,000 left: 8,000 of 6,000)."""
    with FakeOpenAI(thinking="reasoning_content", context=4096, think_tokens=3800) as server:
        code, out, err = solve(
            capsys, server, "--scheme", "got", "--concurrency", "1", "--reasoning", "--json",
            "--max-tokens", "6000",
        )  # fmt: skip
    data = json.loads(out)
    assert code == 1 and data["stop_reason"] == "budget exhausted", err
    caps = [r.body.get("max_tokens") for r in server.requests]
    prompts = [len(r.body["messages"][0]["content"]) // 4 for r in server.requests]
    assert None not in caps, caps
    asked = zip(prompts[1:], caps[1:], strict=True)
    assert caps[0] > 4096 and all(p + c <= 4096 for p, c in asked), caps  # one refusal
    # the run stops once paid reaches the cap (docs/models.md, Budgets): the last request may
    # pass it by what a request at the plain default costs, and no more
    assert data["tokens"] <= 6000 + data["completion_cap"] + max(prompts), (data["tokens"], caps)
    assert "its requests go with what --max-tokens/--max-cost leave" in err


@pytest.mark.parametrize("form", FORMS)
def test_a_reply_the_users_cap_cut_while_thinking_says_so(capsys, form):
    with FakeOpenAI(thinking=form) as server:
        code, out, err = solve(capsys, server, "--scheme", "io", "--max-completion-tokens", "500")
    assert code == 2
    line = CUT.format(500)
    assert f"note: {line}\n" in err and err.count(line) == 2  # the note, and the error line
    assert (
        err.splitlines()[-1]
        == f"error: no usable answer: none of the 1 answers could be used (last: {line})"
    )
    assert [r.body["max_tokens"] for r in server.requests] == [500]  # the user's cap stands
    assert "tokens (500 of them the model's reasoning)" in out  # billed all the same


def test_eval_with_default_options_reads_the_answers_and_bills_the_thinking(capsys, tmp_path):
    with FakeOpenAI(thinking="reasoning", report_usage=False) as server:
        code, _out, err = run_cli(
            capsys,
            "eval",
            "sorting",
            "--size",
            "32",
            "--samples",
            "2",
            "--schemes",
            "io,got",
            "--model",
            "openai:deepthinker",
            "--base-url",
            server.base_url,
            "--out",
            str(tmp_path / "ev"),
            "--no-progress",
        )
    assert code == 0, err
    rows = [
        json.loads(line) for line in (tmp_path / "ev" / "results.jsonl").read_text().splitlines()
    ]
    assert len(rows) == 4 and all(row["solved"] for row in rows), rows
    assert "reasoning hit" not in err
    paid = sum(row["tokens"] for row in rows)
    assert paid >= 0.5 * server.produced, (paid, server.produced)


@pytest.mark.parametrize(
    "fields",
    [
        {"completion_tokens": None, "completion_tokens_details": None},
        {"completion_tokens": "1500", "completion_tokens_details": None},
        {"completion_tokens": -3, "completion_tokens_details": None},
        {"prompt_tokens": None},
    ],
    ids=["null", "string", "negative", "prompt-null"],
)
def test_usage_whose_counts_are_no_numbers_is_counted_from_the_texts(capsys, fields):
    """A count that is none (null, a string, a negative number) is not a count of 0: the
    thinking and the prompt are counted from the texts, so every budget still sees them."""
    with FakeOpenAI(thinking="reasoning_content", usage_fields=fields) as server:
        code, out, err = solve(capsys, server, "--scheme", "io", "--json")
    data = json.loads(out)
    assert code == 0 and data["output"] == SORTED, err
    assert data["tokens"] >= 0.5 * server.produced, (data["tokens"], server.produced)
    assert data["estimated_token_requests"] == len(server.requests)


def test_thinking_counts_against_the_token_budget(capsys):
    """Without the thinking a run of 3 sorting calls is ~100 tokens; with it each call is
    1,500 more, and --max-tokens stops the run at the server."""
    with FakeOpenAI(thinking="inline", report_usage=False) as server:
        code, out, _err = solve(capsys, server, "--scheme", "got", "--max-tokens", "4000", "--json")
    data = json.loads(out)
    assert code == 1 and data["stop_reason"] == "budget exhausted"
    assert data["tokens"] >= 0.5 * server.produced
    assert len(server.requests) < 6  # got on 32 numbers makes more calls than this


@pytest.mark.parametrize("declared", [(), ("--reasoning",)], ids=["detected", "declared"])
@pytest.mark.parametrize(
    ("budget", "spent"),
    [
        (("--max-tokens", "1200"), lambda data: data["tokens"] <= 1200),
        (
            ("--max-cost", "0.0012", "--price-in", "1", "--price-out", "1"),
            lambda data: data["cost"] <= 0.0012,
        ),
    ],
    ids=["tokens", "cost"],
)
def test_the_room_to_think_is_held_to_what_the_budget_leaves(capsys, declared, budget, spent):
    """The room to think is our default, not the user's cap: a request never has more of it
    than --max-tokens or --max-cost leaves (it paid 16,704 against a budget of 2,000), so a
    model that thinks 1,500 tokens stays inside the budget, its thinking cut and said so."""
    with FakeOpenAI(thinking="reasoning_content") as server:
        code, out, err = solve(capsys, server, "--scheme", "io", "--json", *budget, *declared)
    data = json.loads(out)
    assert spent(data), (data["tokens"], data["cost"], [r.body for r in server.requests])
    caps = [r.body["max_tokens"] for r in server.requests]
    assert all(cap < 1200 for cap in caps) and caps[-1] > data["completion_cap"]  # some room
    assert len(caps) == (1 if declared else 2)  # detected: cut at the plain default, asked again
    assert code in (1, 2) and "reasoning hit --max-completion-tokens" in err
    # the note says why a cap no one set was this low
    assert "tokens: the default cap, with the room to think the budget left)\n" in err


# --- kept apart: the trace, the viewer, the cache --------------------------------------------
def test_the_thinking_is_kept_in_the_trace_and_shown_folded(capsys, tmp_path):
    trace = tmp_path / "trace.json"
    with FakeOpenAI(thinking="inline") as server:
        code, _out, err = solve(capsys, server, "--scheme", "io", "--trace", str(trace))
    assert code == 0, err
    [call] = json.loads(trace.read_text())["calls"]
    assert call["texts"] and "<think>" not in call["texts"][0] and "[" in call["texts"][0]
    assert call["reasoning"][0].startswith("Let me try") and call["reasoning_tokens"] > 1000
    page = page_data(json.loads(trace.read_text()))
    [node] = [n for n in page["nodes"] if n["call"] == call["id"]]
    assert page["calls"][call["id"]]["reasoning"][node["answer"]] == call["reasoning"][0]


@pytest.mark.slow  # headless Chromium
def test_the_viewer_shows_the_thinking_folded_under_the_answer(capsys, tmp_path, browser):
    trace, page = tmp_path / "trace.json", tmp_path / "run.html"
    with FakeOpenAI(thinking="reasoning_content") as server:
        code, _out, err = solve(capsys, server, "--scheme", "io", "--trace", str(trace))
    assert code == 0, err
    assert run_cli(capsys, "trace", "view", str(trace), "-o", str(page))[0] == 0
    [call] = json.loads(trace.read_text())["calls"]
    browser.open(page.as_uri())
    x, y = browser.evaluate(
        "(() => { const r = [...document.querySelectorAll('.node')].find(g => g.dataset.id"
        " === 'answer:0.1').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height"
        " / 2]; })()"
    )
    browser.click(x, y)  # real mouse events
    folded = browser.evaluate(
        "[...document.querySelectorAll('#details details.reasoning')].map(d => "
        "[d.open, d.querySelector('summary').textContent, d.querySelector('pre').textContent])"
    )
    assert len(folded) == 1
    is_open, title, text = folded[0]
    assert not is_open and title.startswith("Reasoning") and text == call["reasoning"][0]
    answer = browser.evaluate("document.querySelector('#details .answer pre').textContent")
    assert answer == call["texts"][0] and "Let me try" not in answer


def test_the_cache_keeps_the_thinking_apart_and_replays_it(tmp_path):
    cache = tmp_path / "answers.sqlite"
    prompt = "Sort the following list of numbers in ascending order.\n\nInput: [5, 1, 3]\nOutput:"
    with FakeOpenAI(thinking="reasoning_content") as server:
        model = OpenAIModel("deepthinker", base_url=server.base_url, reasoning=True)
        with CachedModel(model.with_default_max_tokens(300), cache) as cached:
            [fresh] = asyncio.run(cached.complete(prompt))
        with CachedModel(model.with_default_max_tokens(300), cache) as cached:
            [again] = asyncio.run(cached.complete(prompt))
        assert len(server.requests) == 1
    assert again.cached and (again.text, again.reasoning) == (fresh.text, fresh.reasoning)
    assert "[" in fresh.text and fresh.reasoning.startswith("Let me try")
    assert again.reasoning_tokens == fresh.reasoning_tokens == 1500
    with sqlite3.connect(cache) as db:
        [(text,)] = db.execute("SELECT text FROM answers").fetchall()
    assert "Let me" not in text  # the answers table holds the answer alone


def test_an_answer_from_the_cache_that_shows_reasoning_gives_room_to_the_next_request(tmp_path):
    """A rerun on a warm cache learns that the model reasons from the answers it replays: its
    first miss has room to think from the start, not a cut reply asked again."""
    cache = tmp_path / "answers.sqlite"
    first = "Sort the following list of numbers in ascending order.\n\nInput: [5, 1, 3]\nOutput:"
    second = "Sort the following list of numbers in ascending order.\n\nInput: [4, 2]\nOutput:"
    with FakeOpenAI(thinking="inline") as server:
        model = OpenAIModel("deepthinker", base_url=server.base_url).with_default_max_tokens(300)
        with CachedModel(model, cache) as cached:
            asyncio.run(cached.complete(first))
        inflight.forget_endpoints()  # a new process: it knows nothing of the model
        sent = len(server.requests)
        with CachedModel(model, cache) as cached:
            [replayed] = asyncio.run(cached.complete(first))
            [answer] = asyncio.run(cached.complete(second))
        [request] = server.requests[sent:]
    assert replayed.cached and not answer.cached and answer.text.strip().endswith("[2, 4]")
    assert request.body["max_tokens"] == 300 + THINKING_ROOM


@pytest.mark.parametrize("form", FORMS)
def test_a_reply_the_cap_cut_while_thinking_is_kept_and_replayed_with_its_reason(
    capsys, tmp_path, form
):
    """A paid reply the user's cap cut inside the thinking holds no answer, but it is what the
    model gives at that cap: kept, replayed on the next run for nothing, saying why it is empty
    as the paid one did. A new cap is a new request."""
    cache = str(tmp_path / "answers.sqlite")
    with FakeOpenAI(thinking=form) as server:
        runs = [
            solve(
                capsys, server, "--scheme", "io", "--max-completion-tokens", "500", "--cache", cache
            )
            for _ in range(2)
        ]
        paid_before_new_cap = len(server.requests)
        code, _out, _err = solve(capsys, server, "--scheme", "io", "--cache", cache)
    assert paid_before_new_cap == 1  # the rerun paid nothing
    assert code == 0 and len(server.requests) == 2  # the default cap asked again, and answered
    line = CUT.format(500)
    (_, _, paid), (code, _, replayed) = runs
    assert code == 2 and f"note: {line}\n" in paid
    assert f"note: {line} (an answer from the cache; a new cap asks again)\n" in replayed
    assert (
        replayed.splitlines()[-1]
        == paid.splitlines()[-1]
        == (f"error: no usable answer: none of the 1 answers could be used (last: {line})")
    )
    with sqlite3.connect(cache) as db:
        assert sorted(row[0] for row in db.execute("SELECT cut FROM reasoning")) == [0, 500]


def test_a_reply_cut_at_the_room_the_budget_held_back_is_asked_again_with_room(capsys, tmp_path):
    """Under --max-tokens the default cap's room to think is what the budget leaves, so the
    thinking is cut at a cap no one set (488). The key holds the default cap, not that: run
    without the budget, the cached cut reply is not replayed (the run could not answer), it is
    asked again with the whole room, answers, and the answer takes its place in the file."""
    cache = str(tmp_path / "answers.sqlite")
    with FakeOpenAI(thinking="reasoning_content") as server:
        tight = solve(capsys, server, "--scheme", "io", "--max-tokens", "1200", "--cache", cache)
        paid = len(server.requests)
        free = solve(capsys, server, "--scheme", "io", "--json", "--cache", cache)
        again = solve(capsys, server, "--scheme", "io", "--json", "--cache", cache)
    assert tight[0] == 2 and "reasoning hit --max-completion-tokens" in tight[2]
    assert free[0] == 0 and json.loads(free[1])["output"] == SORTED, free[2]
    assert "an answer from the cache" not in free[2]
    assert len(server.requests) == paid + 1  # asked once more, then the answer is replayed
    assert again[0] == 0 and json.loads(again[1])["output"] == SORTED
    with sqlite3.connect(cache) as db:
        assert [row[0] for row in db.execute("SELECT cut FROM reasoning")] == [0]


def test_an_answer_stored_cut_inside_its_thinking_is_asked_again(tmp_path):
    """A cache written by code that read no thinking apart holds `<think>...` cut by the cap as
    the answer: it is no answer, so it is fetched again and replaced (the key is the same: the
    default cap is in it as it was)."""
    cache = tmp_path / "answers.sqlite"
    prompt = "Sort the following list of numbers in ascending order.\n\nInput: [5, 1, 3]\nOutput:"
    with FakeOpenAI(thinking="inline") as server:
        model = OpenAIModel("deepthinker", base_url=server.base_url).with_default_max_tokens(300)
        with CachedModel(model, cache) as cached:
            asyncio.run(cached.complete(prompt))
        with sqlite3.connect(cache) as db:  # as the last version's code wrote it
            db.execute("DELETE FROM reasoning")
            db.execute("UPDATE answers SET text = '<think>Let me try [3, 5'")
        sent = len(server.requests)
        with CachedModel(model, cache) as cached:
            [answer] = asyncio.run(cached.complete(prompt))
        with CachedModel(model, cache) as cached:
            [replayed] = asyncio.run(cached.complete(prompt))
        assert len(server.requests) == sent + 1
    assert not answer.cached and answer.text.strip().endswith("[1, 3, 5]")
    assert replayed.cached and replayed.text == answer.text and replayed.reasoning


# --- reasoning effort --------------------------------------------------------------------
def test_reasoning_effort_is_sent_and_keys_the_cache(capsys, tmp_path):
    cache = tmp_path / "answers.sqlite"
    with FakeOpenAI(thinking="reasoning") as server:
        for effort in ("HIGH", "low", "high", "Minimal", "xhigh"):
            code, _out, err = solve(
                capsys,
                server,
                "--scheme",
                "io",
                "--reasoning-effort",
                effort,
                "--cache",
                str(cache),
            )
            assert code == 0, err
    efforts = [r.body["reasoning_effort"] for r in server.requests]
    assert efforts[:3] == ["high", "high", "low"] and efforts[-2:] == ["minimal", "xhigh"]
    # the third run (high again) was answered from the cache: two fresh requests for the first


def test_no_reasoning_effort_sends_none_and_keeps_the_old_keys():
    model = OpenAIModel("m", base_url="http://127.0.0.1:9/v1")
    assert "reasoning_effort" not in model._arguments("p", 1, None)
    assert model.settings == {"temperature": None, "max_tokens": None}
    assert (
        OpenAIModel("m", base_url="http://127.0.0.1:9/v1", reasoning=True).settings
        == model.settings
    )


def test_a_bad_reasoning_effort_is_one_line(capsys):
    with FakeOpenAI() as server:
        code, _out, err = solve(capsys, server, "--reasoning-effort", "extreme")
        assert not server.requests
    assert (
        code == 2
        and err
        == "error: --reasoning-effort must be one of none, minimal, low, medium, high, xhigh, "
        "got 'extreme'\n"
    )


def test_a_functions_inline_thinking_is_not_its_answer():
    """A `py:` function calling a local server returns the reply as it came: the thinking
    inside it is taken out before the task reads it, and kept on the call."""
    import thoughtgraph

    def model(prompt: str) -> str:
        return "<think>maybe [3, 2, 1] or [2, 3]</think>\n[1, 2, 3]"

    result = thoughtgraph.solve("sorting", [3, 1, 2], scheme="io", model=model)
    [call] = result.state.calls.values()
    assert result.output == [1, 2, 3] and result.clean
    assert call.texts == ("[1, 2, 3]",) and call.reasoning == ("maybe [3, 2, 1] or [2, 3]",)


def test_an_eval_replaying_cut_replies_says_so_once(capsys, tmp_path):
    """Each pair of an evaluation is a run with its own cache wrapper: the paid line is said
    once for the three pairs, and so is the replayed one (before: once a pair, three times)."""
    cache, errors = str(tmp_path / "answers.sqlite"), []
    with FakeOpenAI(thinking="reasoning_content") as server:
        for out in ("paid", "replayed"):
            _code, _out, err = run_cli(
                capsys, "eval", "sorting", "--model", "openai:deepthinker",
                "--base-url", server.base_url, "--schemes", "io", "--samples", "3",
                "--size", "32", "--max-completion-tokens", "400", "--cache", cache,
                "--out", str(tmp_path / out), "--no-progress",
            )  # fmt: skip
            errors.append(err)
    assert len(server.requests) == 3  # the second evaluation paid nothing
    line = CUT.format(400)
    paid, replayed = errors
    assert paid.count(line) == 1
    assert replayed.count(f"{line} (an answer from the cache; a new cap asks again)") == 1
