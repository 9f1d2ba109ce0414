"""A model per kind of call: `--model-for KIND=SPEC` and `models={...}` route each call to its
kind's model, each with its own endpoint, price and cache key, under one budget; spend is
reported per model as well as per kind. Two loopback servers show each received exactly the
calls routed to it."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import thoughtgraph
from thoughtgraph.errors import InputError, UnknownNameError
from thoughtgraph.evaluation.datasets import load_sample
from thoughtgraph.models.openai import OpenAIModel
from thoughtgraph.modelspec import from_spec, models_for
from thoughtgraph.spend.accounting import MODEL_CALL_KINDS

from .conftest import INPUT_32, run_cli
from .fake_openai import FakeOpenAI

PART = "Solve this part of a larger task"
MERGE = "Combine the two partial results"
REFINE = "The result below is close"


@pytest.fixture(autouse=True)
def _no_real_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "THOUGHTGRAPH_CACHE"):
        monkeypatch.delenv(name, raising=False)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code, out, err = run_cli(capsys, "solve", "sorting", "--no-progress", *args)
    return int(code), out, err


def solved(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code, out, err = run(capsys, "--dataset", "sorting_032", "--json", *args)
    assert code in (0, 1), err
    return json.loads(out)


def test_every_merge_goes_to_the_model_for_merge_and_spend_is_per_model(capsys):
    """The issue's command: every merge to the second model, calls, tokens and cost per model."""
    data = solved(capsys, "--model", "sim:error=2", "--model-for", "merge=sim:error=0")
    strong = "sim:profile=gpt-3.5-paper,latency=0,error=0,seed=0"
    weak = "sim:profile=gpt-3.5-paper,latency=0,error=2,seed=0"
    assert data["model"] == weak and data["model_for"] == {"merge": strong}
    by_model = data["spend_by_model"]
    assert list(by_model) == [weak, strong]
    assert by_model[strong]["kinds"] == ["merge"]
    assert by_model[strong]["calls"] == data["calls_by_kind"]["merge"] > 0
    assert "merge" not in by_model[weak]["kinds"]
    assert by_model[weak]["calls"] == data["calls"] - data["calls_by_kind"]["merge"]
    for field in ("calls", "requests", "tokens", "prompt_tokens", "completion_tokens"):
        assert sum(m[field] for m in by_model.values()) == data[field]


def test_each_model_is_priced_by_its_own_spec(capsys):
    data = solved(
        capsys,
        "--model",
        "sim:error=2,price_in=1,price_out=2",
        "--model-for",
        "merge=sim:error=0,price_in=10,price_out=20",
    )
    cheap, dear = data["spend_by_model"].values()
    assert cheap["price"]["input_per_million"] == 1 and dear["price"]["output_per_million"] == 20
    assert cheap["cost"] == pytest.approx(
        (cheap["prompt_tokens"] * 1 + cheap["completion_tokens"] * 2) / 1e6
    )
    assert dear["cost"] == pytest.approx(
        (dear["prompt_tokens"] * 10 + dear["completion_tokens"] * 20) / 1e6
    )
    assert data["cost"] == pytest.approx(cheap["cost"] + dear["cost"])


def test_the_price_flags_price_the_models_whose_spec_gives_none(capsys):
    data = solved(
        capsys,
        "--model",
        "sim:error=2",
        "--model-for",
        "merge=sim:error=0,price_in=10,price_out=20",
        "--price-in",
        "1",
        "--price-out",
        "1",
    )
    cheap, dear = data["spend_by_model"].values()
    assert cheap["price"]["input_per_million"] == 1 and cheap["cost"] == cheap["tokens"] / 1e6
    assert dear["price"]["input_per_million"] == 10


def test_a_cost_cap_needs_every_model_priced(capsys):
    code, _, err = run(
        capsys,
        "--dataset",
        "sorting_032",
        "--model",
        "sim:error=2,price_in=1,price_out=1",
        "--model-for",
        "merge=sim:error=0",
        "--max-cost",
        "1",
    )
    assert code == 2 and err.startswith("error: --max-cost needs a price: sim:")
    assert "error=0" in err and len(err.splitlines()) == 1


def test_the_same_spec_for_two_kinds_is_one_model(capsys):
    data = solved(
        capsys,
        "--model",
        "sim:error=2",
        "--model-for",
        "merge=sim:error=0",
        "--model-for",
        "refine=sim:seed=0,error=0",  # another spelling of the same model
    )
    assert len(data["spend_by_model"]) == 2
    assert data["model_for"]["merge"] == data["model_for"]["refine"]


def test_small_costs_per_model_are_shown_not_rounded_to_zero(capsys, tmp_path: Path):
    """A few hundred tokens at a cent per million tokens is a real cost: the summary's line per
    model and eval's Per model table show it to two significant digits, never $0.0000."""
    priced = ("--model", "sim:price_in=0.01,price_out=0.01")
    merger = ("--model-for", "merge=sim:error=0,price_in=0.01,price_out=0.02")
    code, out, err = run(capsys, "--input", "[3, 1, 2, 0]", "--parts", "2", *priced, *merger)
    assert code == 0, err
    models = [line for line in out.splitlines() if line.startswith(("model:", "calls:"))]
    assert len(models) == 3 and all(re.search(r"\$0\.00000\d\d?$", line) for line in models)
    code, _, err = run_cli(
        capsys, "eval", "sorting", "--size", "32", "--samples", "1", "--schemes", "got",
        *priced, *merger, "--out", str(tmp_path / "ev"), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    summary = (tmp_path / "ev" / "summary.md").read_text()
    rows = [line for line in summary.splitlines() if line.startswith("| got | sim:")]
    assert len(rows) == 2 and all(not row.endswith("| 0.0000 |") for row in rows), rows
    assert "$0.0000;" not in summary and "0.0000 |" not in summary


def test_a_kind_given_the_default_models_spec_is_no_route(capsys):
    """`--model-for merge=<--model's spec>`, in any spelling, is the plain model, not a route."""
    for same in ("sim:error=2", "sim:seed=0,error=2"):
        data = solved(capsys, "--model", "sim:error=2", "--model-for", f"merge={same}")
        assert data["model_for"] == {} and len(data["spend_by_model"]) == 1
        code, out, err = run(
            capsys, "--dataset", "sorting_032", "--model", "sim:error=2", "--model-for",
            f"merge={same}",
        )  # fmt: skip
        assert code in (0, 1) and "(merge:" not in out, err
    code, out, err = run(
        capsys, "--input", "[3, 1, 2, 0]", "--parts", "2", "--model", "sim", "--model-for",
        "merge=sim", "--show-prompts", "--json",
    )  # fmt: skip
    assert code == 0 and all(p["model"] is None for p in json.loads(out)["prompts"]), err


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("merg=sim", "error: --model-for: unknown call kind 'merg' (known: "),
        ("merge", "error: --model-for takes KIND=SPEC"),
        ("merge=", "error: --model-for takes KIND=SPEC"),
        ("merge=nope", "error: --model-for merge: unknown model 'nope'"),
        ("merge=sim:price_in=1", "error: --model-for merge: 'sim:price_in=1': give both"),
    ],
)
def test_a_bad_model_for_is_one_line(capsys, value: str, expected: str):
    code, _, err = run(capsys, "--input", "[3, 1, 2]", "--model-for", value)
    assert code == 2 and err.startswith(expected) and len(err.splitlines()) == 1, err


@pytest.mark.parametrize(
    "spec",
    [
        "sim:PRICE_IN=1,PRICE_OUT=2",
        "sim:Price_in=1,price_out=2",  # was "give both price_in and price_out"
        "sim:price_out=2,price-in=1",
        "openai:x@http://127.0.0.1:9/v1,PRICE_IN=1,price_out=2",
    ],
)
def test_a_price_option_spelled_otherwise_is_told_its_spelling(capsys, spec):
    """Not "unknown sim option 'PRICE_IN' (known: error, latency, seed, profile)", a list with
    no price in it, nor "give both" when both were given."""
    code, out, err = run(capsys, "--input", "[3, 1]", "--model", spec)
    key = next(k for k in ("PRICE_IN", "Price_in", "price-in") if k in spec)
    assert code == 2 and not out
    assert err == (
        f"error: model option '{key}' in '{spec}': write it price_in (lower case, with an "
        "underscore)\n"
    )
    code, _, err = run(capsys, "--input", "[3, 1]", "--model-for", f"merge={spec}")
    assert code == 2 and "write it price_in" in err and err.count("\n") == 1


def test_a_spec_whose_options_follow_a_comma_is_told_the_colon(capsys):
    code, _, err = run(
        capsys, "--dataset", "sorting_032", "--model-for", "merge=sim,price_in=1,price_out=2"
    )
    assert code == 2
    assert err == (
        "error: --model-for merge: unknown model 'sim,price_in=1,price_out=2': a spec's options "
        "follow a colon: did you mean sim:price_in=1,price_out=2?\n"
    )


def test_the_unknown_kind_line_lists_every_kind(capsys):
    _, _, err = run(capsys, "--input", "[3, 1, 2]", "--model-for", "parts=sim")
    assert err.rstrip().endswith(f"(known: {', '.join(MODEL_CALL_KINDS)})")


OWN = str(Path(__file__).parents[1] / "examples" / "own_prompt.yaml")  # prompt careful_sort


def test_a_graph_files_own_prompt_is_a_kind_a_model_may_take(capsys, tmp_path: Path):
    """A call's kind is its prompt's name: a graph file's own prompt is routed like a built-in
    one, in solve, in eval and from Python; a misspelt one is one line naming the graph's."""
    args = ("--input", "[3, 1, 2, 0]", "--graph", OWN, "--json")
    data = json.loads(run(capsys, *args, "--model-for", "careful_sort=sim:error=0")[1])
    strong = "sim:profile=gpt-3.5-paper,latency=0,error=0,seed=0"
    assert data["model_for"] == {"careful_sort": strong}
    assert data["spend_by_model"][strong]["calls"] == data["calls"] == 1
    code, out, err = run(capsys, *args, "--model-for", "carefulsort=sim:error=0")
    assert (
        code == 2
        and not out
        and err
        == (
            "error: --model-for: unknown call kind 'carefulsort' (known: "
            + ", ".join(MODEL_CALL_KINDS)
            + "; the graph's own: careful_sort)\n"
        )
    )
    code, out, err = run(capsys, *args, "--model-for", "careful_sort=sim:error=0", "--show-prompts")
    assert code == 0 and json.loads(out)["prompts"][0]["model"] == "sim:error=0", err
    result = thoughtgraph.solve("sorting", [3, 1, 2, 0], "sim", graph=thoughtgraph.Graph.load(OWN),
                                models={"careful_sort": "sim:error=0"})  # fmt: skip
    assert result.model_for == {"careful_sort": strong}
    evaluated = ("eval", "sorting", "--samples", "1", "--graph", OWN, "--no-progress")
    code, _, err = run_cli(capsys, *evaluated, "--model-for", "careful_sort=sim:error=0",
                           "--out", str(tmp_path / "ev"))  # fmt: skip
    assert code == 0 and "(careful_sort: sim:" in err, err
    rows = (tmp_path / "ev" / "results.jsonl").read_text().splitlines()
    assert json.loads(rows[0])["model_for"] == {"careful_sort": strong}
    code, _, err = run_cli(capsys, *evaluated, "--model-for", "carefulsort=sim:error=0",
                           "--out", str(tmp_path / "ev2"))  # fmt: skip
    assert code == 2 and err.endswith("; the graph's own: careful_sort)\n"), err
    assert not (tmp_path / "ev2").exists()


def test_a_kind_given_twice_is_refused(capsys):
    code, _, err = run(
        capsys, "--input", "[3, 1]", "--model-for", "merge=sim", "--model-for", "merge=sim"
    )
    assert (
        code == 2 and err == "error: --model-for merge is given twice: give each kind one model\n"
    )


def test_every_kind_the_schemes_call_is_a_kind_a_model_may_take():
    """`MODEL_CALL_KINDS` is what the ops really call: each built-in scheme's call kinds."""
    problem = [5, 3, 1, 4, 2, 9, 8, 7, 6, 0, 11, 12, 13, 10, 15, 14]
    seen: set[str] = set()
    for scheme in ("io", "cot", "cot_sc", "tot", "tot2", "got", "got_paper"):
        result = thoughtgraph.solve("sorting", problem, "sim", scheme=scheme)
        seen |= {call.kind for call in result.state.calls.values()}
    documents = load_sample("documents", 0).input
    for scheme in ("got", "got_paper"):
        doc = thoughtgraph.solve("doc-merge", documents, "sim", scheme=scheme)
        seen |= {call.kind for call in doc.state.calls.values()}
    assert seen <= set(MODEL_CALL_KINDS)
    assert {"part", "merge", "refine", "split", "io", "cot", "improve", "score"} <= seen


def test_the_python_api_routes_by_kind():
    result = thoughtgraph.solve(
        "sorting", INPUT_32, "sim:error=2", models={"merge": "sim:error=0", "refine": "sim:error=0"}
    )
    by_call = Counter((c.kind, c.model) for c in result.state.calls.values())
    strong = result.model_for["merge"]
    assert all(model == strong for (kind, model) in by_call if kind in ("merge", "refine"))
    assert all(model == result.model for (kind, model) in by_call if kind == "part")
    assert set(result.spend_by_model) == {result.model, strong}


def test_the_python_api_takes_model_objects_and_refuses_unknown_kinds():
    answers: list[str] = []

    def merger(prompt: str) -> str:
        answers.append(prompt)
        return "[1, 2, 3]"

    result = thoughtgraph.solve("sorting", [3, 1, 2, 0], "sim", parts=2, models={"merge": merger})
    assert answers and all(p.startswith(MERGE) for p in answers)
    assert result.spend_by_model["function:merger"].calls == len(answers)
    with pytest.raises(InputError, match=r"^models: unknown call kind 'merges' \(known: part,"):
        thoughtgraph.solve("sorting", [3, 1], "sim", models={"merges": "sim"})
    with pytest.raises(InputError, match=r"^models must map call kinds to models"):
        thoughtgraph.solve("sorting", [3, 1], "sim", models=["merge"])  # type: ignore[arg-type]


def test_one_function_or_object_given_twice_is_one_model():
    """The default's function routed to a kind too, or one function (one model object) for two
    kinds, is one model, as one spec is: one label, one numbering of samples, one cache key."""

    def answer(prompt: str) -> str:
        return "[0, 1, 2, 3]"

    def merger(prompt: str) -> str:
        return "[0, 1, 2, 3]"

    same = thoughtgraph.solve(
        "sorting", [3, 1, 2, 0], answer, parts=2, models={"merge": answer, "refine": answer}
    )
    assert list(same.spend_by_model) == ["function:answer"]
    assert same.model_for == {}  # the default model routed to a kind is no route
    two = thoughtgraph.solve(
        "sorting", [3, 1, 2, 0], "sim", parts=2, models={"merge": merger, "refine": merger}
    )
    assert list(two.spend_by_model) == [two.model, "function:merger"]
    model = from_spec("sim:error=0")
    objects = thoughtgraph.solve("sorting", [3, 1, 2, 0], model, parts=2, models={"merge": model})
    assert list(objects.spend_by_model) == [objects.model]


def test_the_python_api_takes_an_object_with_complete_as_py_does():
    """An object with `complete(prompt, n)` and a name, no `simulated` flag (what docs/models.md
    calls a model, and what `py:` takes), is a model from Python too, as `model=` and in
    `models=`; one whose complete cannot take (prompt, n) is one line."""

    class Batch:
        name = "my-batch"

        def __init__(self) -> None:
            self.asked: list[int] = []

        async def complete(self, prompt: str, n: int = 1) -> list[str]:
            self.asked.append(n)
            return ["[0, 1, 2, 3]"] * n

    merger = Batch()
    result = thoughtgraph.solve("sorting", [3, 1, 2, 0], "sim", parts=2, models={"merge": merger})
    assert result.model_for == {"merge": "my-batch"}
    assert result.spend_by_model["my-batch"].calls == len(merger.asked) > 0
    alone = Batch()
    both = thoughtgraph.solve("sorting", [3, 1, 2, 0], alone, parts=2, models={"merge": alone})
    assert both.model == "my-batch" and list(both.spend_by_model) == ["my-batch"]
    assert alone.asked

    class Wrong:
        def complete(self, prompt: str) -> list[str]:
            return [prompt]

    with pytest.raises(UnknownNameError, match=r"^model 'Wrong' has complete\(prompt.*\): it is"):
        thoughtgraph.solve("sorting", [3, 1], "sim", models={"merge": Wrong()})


def test_each_model_answers_from_the_cache_under_its_own_key(capsys, tmp_path: Path):
    """A run with the merges routed elsewhere reuses the parts the default model paid for and
    pays for merges again; the same routing run again is answered wholly from the cache."""
    cache = str(tmp_path / "answers.sqlite")
    first = solved(capsys, "--model", "sim:error=0", "--cache", cache)
    assert first["cached_calls"] == 0
    routed = solved(
        capsys,
        "--model",
        "sim:error=0",
        "--model-for",
        "merge=sim:error=0,seed=7",
        "--cache",
        cache,
    )
    default, merger = routed["spend_by_model"].values()
    assert default["cached_calls"] == default["calls"] > 0  # the parts: the first run's answers
    assert merger["cached_calls"] == 0 and merger["paid_calls"] == merger["calls"] > 0
    again = solved(
        capsys,
        "--model",
        "sim:error=0",
        "--model-for",
        "merge=sim:error=0,seed=7",
        "--cache",
        cache,
    )
    assert again["cached_calls"] == again["calls"] and again["requests"] == 0


def test_an_openai_spec_names_its_endpoint_after_an_at():
    model = from_spec("openai:qwen@http://127.0.0.1:8001/v1,temperature=0")
    assert isinstance(model, OpenAIModel)
    assert (model.model, model.base_url, model.temperature) == (
        "qwen",
        "http://127.0.0.1:8001/v1",
        0,
    )
    assert model.name == "openai:qwen@127.0.0.1:8001"
    dated = from_spec("openai:claude-3@20240229,base_url=http://127.0.0.1:8001/v1")
    assert isinstance(dated, OpenAIModel) and dated.model == "claude-3@20240229"
    with pytest.raises(UnknownNameError, match="gives its endpoint twice"):
        from_spec("openai:q@http://127.0.0.1:1/v1,base_url=http://127.0.0.1:2/v1")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            "openai:x@ftp://u:s3cretpw@127.0.0.1/v1",
            r"^'openai:x@ftp://\*\*\*@127.0.0.1/v1': the endpoint after @ must start with "
            r"http:// or https://$",
        ),
        (
            "openai:x@127.0.0.1:8001/v1,temperature=0",
            r"^'openai:x@127.0.0.1:8001/v1,temperature=0': the endpoint after @ must start with "
            r"http:// or https:// \(did you mean openai:x@http://127.0.0.1:8001/v1\?\)$",
        ),
        (
            "openai:x@localhost",
            r"did you mean openai:x@http://localhost\?",
        ),
    ],
)
def test_an_endpoint_after_an_at_without_http_is_one_line_not_a_model_name(
    capsys, spec: str, expected: str
):
    """`NAME@host:port/v1` (no http://) or another scheme's URL would have been the model's
    name, sent to the default endpoint and shown with its credentials: one line instead."""
    with pytest.raises(UnknownNameError, match=expected):
        from_spec(spec)
    code, _out, err = run(capsys, "--dataset", "sorting_032", "--model-for", f"merge={spec}")
    assert code == 2 and err.startswith("error: --model-for merge: ") and "s3cretpw" not in err
    dated = from_spec("openai:claude-3@20240229,base_url=http://127.0.0.1:8001/v1")
    assert isinstance(dated, OpenAIModel) and dated.model == "claude-3@20240229"


def test_the_openai_flags_fill_in_what_a_routed_spec_leaves_out():
    default = from_spec("openai:a@http://127.0.0.1:8001/v1")
    routed = models_for(
        {"merge": "openai:b", "refine": "openai:c@http://127.0.0.1:8003/v1,temperature=1"},
        default,
        overrides={"base_url": "http://127.0.0.1:8002/v1", "temperature": 0.0},
    )
    merge, refine = routed["merge"], routed["refine"]
    assert isinstance(merge, OpenAIModel) and isinstance(refine, OpenAIModel)
    assert (merge.base_url, merge.temperature) == ("http://127.0.0.1:8002/v1", 0.0)
    assert (refine.base_url, refine.temperature) == ("http://127.0.0.1:8003/v1", 1.0)


@pytest.fixture
def servers() -> Iterator[tuple[FakeOpenAI, FakeOpenAI]]:
    with FakeOpenAI(error=0.0) as small, FakeOpenAI(error=0.0) as big:
        yield small, big


def _kind(prompt: str) -> str:
    for kind, start in (("part", PART), ("merge", MERGE), ("refine", REFINE)):
        if prompt.startswith(start):
            return kind
    return "other"


def _prompts(server: FakeOpenAI) -> list[str]:
    return [r.body["messages"][0]["content"] for r in server.requests]


def two_servers(capsys, small: FakeOpenAI, big: FakeOpenAI, *args: str) -> tuple[int, dict]:
    code, out, err = run(
        capsys,
        "--input",
        str(INPUT_32),
        "--json",
        "--model",
        f"openai:small@{small.base_url}",
        "--model-for",
        f"merge=openai:big@{big.base_url}",
        "--model-for",
        f"refine=openai:big@{big.base_url}",
        "--max-retries",
        "0",
        "--price-in",
        "1",
        "--price-out",
        "1",
        *args,
    )
    assert code in (0, 1), err
    return code, json.loads(out)


def test_two_servers_each_receive_exactly_the_calls_routed_to_them(capsys, servers):
    small, big = servers
    _, data = two_servers(capsys, small, big, "--concurrency", "1")
    small_kinds = Counter(_kind(p) for p in _prompts(small))
    big_kinds = Counter(_kind(p) for p in _prompts(big))
    assert set(small_kinds) == {"part"} and set(big_kinds) <= {"merge", "refine"}
    assert big_kinds["merge"] == data["calls_by_kind"]["merge"] > 0
    assert small_kinds["part"] == data["calls_by_kind"]["part"] > 0
    assert {r.body["model"] for r in small.requests} == {"small"}
    assert {r.body["model"] for r in big.requests} == {"big"}
    by_model = data["spend_by_model"]
    small_label, big_label = (
        f"openai:{n}@127.0.0.1:{s.port}" for n, s in (("small", small), ("big", big))
    )
    assert list(by_model) == [small_label, big_label]
    assert by_model[small_label]["requests"] == len(small.requests)
    assert by_model[big_label]["requests"] == len(big.requests)
    # the server reports usage: each model's tokens are what its server billed
    assert by_model[big_label]["prompt_tokens"] == sum(len(p) // 4 for p in _prompts(big))


def test_one_budget_stops_both_servers(capsys, servers):
    small, big = servers
    code, data = two_servers(capsys, small, big, "--concurrency", "1", "--max-requests", "6")
    assert code == 1 and data["stop_reason"] == "budget exhausted"
    assert len(small.requests) + len(big.requests) == data["requests"] == 6
    assert small.requests and big.requests  # both were called, and both stopped at the cap
    by_model = data["spend_by_model"]
    assert [m["requests"] for m in by_model.values()] == [len(small.requests), len(big.requests)]


def test_the_trace_and_the_events_name_the_model_of_each_call(capsys, tmp_path: Path):
    trace, events = tmp_path / "run.json", tmp_path / "events.jsonl"
    data = solved(
        capsys,
        "--model",
        "sim:error=2",
        "--model-for",
        "merge=sim:error=0",
        "--trace",
        str(trace),
        "--events",
        str(events),
    )
    strong = data["model_for"]["merge"]
    calls = json.loads(trace.read_text())["calls"]
    assert {c["model"] for c in calls if c["kind"] == "merge"} == {strong}
    assert {c["model"] for c in calls if c["kind"] != "merge"} == {data["model"]}
    records = [json.loads(line) for line in events.read_text().splitlines()]
    finished = [r for r in records if r.get("event") == "call_finished"]
    assert len(finished) == data["calls"]
    assert {r["model"] for r in finished if r["kind"] == "merge"} == {strong}
    started = [r for r in records if r.get("event") == "call_started"]
    assert {r["model"] for r in started if r["kind"] == "part"} == {data["model"]}


def test_the_jupyter_summary_has_a_row_per_model():
    from thoughtgraph.viewer.jupyter import result_rows

    result = thoughtgraph.solve("sorting", INPUT_32, "sim:error=2", models={"merge": "sim:error=0"})
    rows = dict(result_rows(result))
    strong = result.model_for["merge"]
    spent = result.spend_by_model[strong]
    assert rows[f"model {strong}"] == f"{spent.calls} calls, {spent.tokens:,} tokens, $0.0000"
    assert f"model {result.model}" in rows
    plain = dict(result_rows(thoughtgraph.solve("sorting", [3, 1, 2], "sim")))
    assert not [name for name in plain if name.startswith("model ")]


def test_a_routed_kind_the_graph_never_calls_is_a_note(capsys):
    code, _, err = run(
        capsys, "--input", "[3, 1, 2]", "--scheme", "io", "--model-for", "merge=sim:error=0"
    )
    assert code == 0
    assert err == "note: --model-for merge: this graph makes no merge call (it calls: io)\n"


def test_show_prompts_names_the_model_each_routed_prompt_goes_to(capsys):
    code, out, err = run(
        capsys,
        "--input",
        "[3, 1, 2, 0]",
        "--parts",
        "2",
        "--model-for",
        "merge=openai:big@http://user:pw@127.0.0.1:9/v1",
        "--show-prompts",
        "--json",
    )
    assert code == 0, err
    prompts = json.loads(out)["prompts"]
    merges = [p for p in prompts if p["prompt"] == "merge"]
    assert merges and all(p["model"] == "openai:big@http://***@127.0.0.1:9/v1" for p in merges)
    assert all(p["model"] is None for p in prompts if p["prompt"] != "merge")
    assert "pw" not in out
    code, _, err = run(capsys, "--input", "[3, 1]", "--model-for", "merg=sim", "--show-prompts")
    assert code == 2 and err.startswith("error: --model-for: unknown call kind 'merg'")
