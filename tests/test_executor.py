"""The executor: real overlap of calls, readiness, the concurrency limit, order and determinism."""

from __future__ import annotations

import asyncio

import pytest

import thoughtgraph
from thoughtgraph.engine.executor import execute
from thoughtgraph.engine.graph import Graph
from thoughtgraph.engine.trace import state_dict
from thoughtgraph.events import Event, OpStarted
from thoughtgraph.schemes import got
from thoughtgraph.tasks import SortingTask
from thoughtgraph.testing import ScriptedModel, ints, prompt_kind, section

from .conftest import INPUT_32


def test_parts_run_concurrently_and_merges_of_a_level_overlap():
    model = ScriptedModel(delay=0.02)
    thoughtgraph.solve("sorting", INPUT_32, model=model, parts=4)
    starts = [kind for event, kind, _ in model.log[:4]]
    assert model.max_in_flight == 4
    assert [e for e, _, _ in model.log[:4]] == ["start"] * 4 and starts == ["part"] * 4
    # both level-1 merges are in flight at the same time
    in_flight, peak = 0, 0
    for event, kind, _ in model.log:
        if kind == "merge":
            in_flight += 1 if event == "start" else -1
            peak = max(peak, in_flight)
    assert peak == 2


def test_a_merge_starts_as_soon_as_its_two_inputs_are_ready():
    def is_slow(prompt: str) -> bool:  # part 3 (numbers 16..23) is slow
        return prompt_kind(prompt) == "part" and ints(section(prompt, "part")) == INPUT_32[16:24]

    def delay(prompt: str) -> float:
        return 0.2 if is_slow(prompt) else 0.01

    model = ScriptedModel(delay=delay)
    thoughtgraph.solve("sorting", INPUT_32, model=model, parts=4)
    slow_calls = [n for n, prompt in enumerate(model.prompts) if is_slow(prompt)]
    assert len(slow_calls) == 1  # exactly one slow part was asked, once
    order = [(event, kind, n) for event, kind, n in model.log]
    slow_end = next(i for i, (e, _, n) in enumerate(order) if e == "end" and n == slow_calls[0])
    first_merge_start = next(
        i for i, (e, k, _) in enumerate(order) if e == "start" and k == "merge"
    )
    assert first_merge_start < slow_end  # merge_1_1 did not wait for part 3


def test_concurrency_limit_bounds_calls_in_flight():
    model = ScriptedModel(delay=0.01)
    thoughtgraph.solve("sorting", list(range(64, 0, -1)), model=model, parts=8, concurrency=3)
    assert model.max_in_flight == 3


def test_default_concurrency_runs_sixteen_parts_in_one_round():
    model = ScriptedModel(delay=0.02)
    result = thoughtgraph.solve("sorting", list(range(128, 0, -1)), model=model, parts=16)
    assert model.max_in_flight == 16
    assert result.depth == 5  # 1 round of parts + 4 merge levels


def test_depth_counts_sequential_model_rounds_on_the_critical_path():
    tries = {"n": 0}

    def respond(prompt, _n):
        answer = sorted(
            ints(section(prompt, "part")) or ints(section(prompt, "a") + section(prompt, "b"))
        )
        if prompt_kind(prompt) == "part" and ints(section(prompt, "part")) == INPUT_32[:8]:
            tries["n"] += 1
            if tries["n"] < 3:
                return str(answer[1:])
        return str(answer)

    result = thoughtgraph.solve("sorting", INPUT_32, model=ScriptedModel(respond), parts=4)
    assert result.clean
    assert result.depth == 3 + 2  # part_1 took 3 sequential attempts, then 2 merge levels


def _spy(graph: Graph, concurrency: int) -> tuple[list[str], dict]:
    started: list[str] = []

    def on_event(event: Event) -> None:
        if isinstance(event, OpStarted):
            started.append(event.op_id)

    state = asyncio.run(
        execute(
            graph,
            SortingTask(),
            INPUT_32,
            ScriptedModel(),
            concurrency=concurrency,
            on_event=on_event,
        )
    ).state
    return started, state_dict(state)


def test_concurrency_one_runs_ops_in_the_controllers_bfs_order():
    graph = got(parts=4)
    started, _ = _spy(graph, 1)
    assert started == graph.bfs_order()
    assert started[:5] == ["split", "select_1", "select_2", "select_3", "select_4"]


def test_run_state_is_identical_whatever_the_concurrency_and_completion_order():
    graph = got(parts=8)
    problem = list(range(64, 0, -1))
    reference = None
    for concurrency, jitter in ((1, 0), (32, 1), (4, 2)):

        def delay(prompt: str, jitter=jitter) -> float:
            return (hash(prompt) % 7) * 0.002 * jitter  # completion order varies with jitter

        state = asyncio.run(
            execute(
                graph, SortingTask(), problem, ScriptedModel(delay=delay), concurrency=concurrency
            )
        ).state
        data = state_dict(state)
        for call in data["calls"]:
            call.pop("started"), call.pop("ended"), call.pop("latency")
        for op in data["ops"]:
            op.pop("started"), op.pop("ended")
        if reference is None:
            reference = data
        assert data == reference


def test_the_graph_is_logged_before_the_first_call_and_the_call_total_at_the_end(caplog):
    caplog.set_level("INFO", logger="thoughtgraph")
    model = ScriptedModel()
    thoughtgraph.solve("sorting", INPUT_32, model=model)
    messages = [r.getMessage() for r in caplog.records]
    assert messages[0].startswith('graph of operations: {"ops"')
    assert "run finished: 7 model calls" in messages
    assert any(m.startswith("7 model calls (part 4, merge 3, refine 0)") for m in messages)


def test_events_cover_the_run():
    events: list[Event] = []
    thoughtgraph.solve("sorting", INPUT_32, model=ScriptedModel(), on_event=events.append)
    kinds = [e.name for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert kinds.count("call_started") == kinds.count("call_finished") == 7
    assert kinds.count("op_started") == kinds.count("op_finished") == len(got(4).ops)


@pytest.mark.anyio
async def test_asolve_works_inside_a_running_event_loop():
    result = await thoughtgraph.asolve("sorting", [3, 1, 2], model=ScriptedModel())
    assert result.output == [1, 2, 3]


@pytest.mark.anyio
async def test_sync_solve_works_inside_a_running_event_loop():
    result = thoughtgraph.solve("sorting", [3, 1, 2], model=ScriptedModel())
    assert result.output == [1, 2, 3]


def test_model_exceptions_that_are_not_model_errors_propagate():
    def broken(prompt: str) -> str:
        raise RuntimeError("bug in the user's model function")

    with pytest.raises(RuntimeError, match="bug in the user's model"):
        thoughtgraph.solve("sorting", [3, 1, 2], model=broken)


def test_every_op_that_fails_is_read_though_the_first_error_ends_the_run(caplog):
    """Parts fail side by side: the run raises the first error, and the others are retrieved
    too (asyncio logs an error that nothing read: "Task exception was never retrieved")."""

    async def broken(prompt: str) -> str:
        await asyncio.sleep(0)
        raise RuntimeError("bug in the user's model function")

    with pytest.raises(RuntimeError, match="bug in the user's model"):
        thoughtgraph.solve("sorting", INPUT_32, model=broken)  # got: 2 parts side by side
    import gc

    gc.collect()  # an unread task error is logged when the task is collected
    assert "never retrieved" not in caplog.text


def test_a_run_whose_ops_all_succeed_ends_once_the_last_task_has():
    started: list[str] = []

    def events(event: Event) -> None:
        if isinstance(event, OpStarted):
            started.append(event.op_id)

    result = thoughtgraph.solve("sorting", INPUT_32, model="sim:error=0", on_event=events)
    assert result.status == "clean"
    assert sorted(started) == sorted(op.id for op in result.graph.ops)
    assert all(record.status == "done" for record in result.state.ops.values())


def test_an_in_place_op_that_waits_still_lets_every_op_after_it_run(monkeypatch):
    """A user's in-place kind may await: a root task that ends meanwhile leaves no task running
    while the roots are still being launched, and the run must not end there."""
    from thoughtgraph.engine import kinds
    from thoughtgraph.engine.graph import Op
    from thoughtgraph.engine.ops import KeepValidParams

    async def pause(ctx, op, inputs):
        await asyncio.sleep(0.02)  # the root generate ends during this wait
        return list(inputs)

    kind = kinds.OpKind("pause_for_test", KeepValidParams, pause, in_place=True, plumbing=True)
    monkeypatch.setitem(kinds.KINDS, kind.name, kind)
    graph = Graph(
        ops=(
            Op(id="a", kind="generate", params={"prompt": "io"}),
            Op(id="b", kind="pause_for_test"),
            Op(id="c", kind="generate", inputs=["a", "b"], params={"prompt": "io"}),
        )
    )
    result = thoughtgraph.solve("sorting", [3, 1, 2], graph=graph, model="sim:error=0")
    assert {op_id: str(r.status) for op_id, r in result.state.ops.items()} == {
        "a": "done",
        "b": "done",
        "c": "done",
    }


def test_model_errors_are_failed_attempts():
    calls = {"n": 0}

    def flaky(prompt: str) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            raise thoughtgraph.ModelError("timed out")
        return str(sorted(ints(section(prompt, "part"))))

    result = thoughtgraph.solve("sorting", [3, 1, 2], model=flaky)
    first = result.state.thoughts["part_1:0.1"]
    assert not first.valid and "the model call failed: timed out" in first.score.errors[0]
    assert result.clean and result.calls_by_kind["part"] == 2
    assert result.state.calls["part_1:0.1"].error == "timed out"


def test_code_only_ops_run_in_place_and_every_other_op_as_a_task(monkeypatch):
    """Selects and keep_best never wait: the scheduler runs them where it stands (a task each
    would cost more than they do); ops that call the model still overlap as tasks."""
    graph = got(parts=8)
    created: list[str] = []
    real_create_task = asyncio.create_task

    def spy(coro, **kwargs):
        created.append(coro.cr_frame.f_locals.get("op").kind if coro.cr_frame else "?")
        return real_create_task(coro, **kwargs)

    from thoughtgraph.engine import executor as executor_module

    monkeypatch.setattr(executor_module.asyncio, "create_task", spy)
    started, state = _spy(graph, 16)
    in_place = [op for op in graph.ops if op.kind in ("select", "keep_best")]
    assert len(in_place) == 8
    assert sorted(started) == sorted(op.id for op in graph.ops)  # every op ran
    assert "select" not in created and "keep_best" not in created
    assert created.count("generate") == 8 and created.count("aggregate") == 7
    assert all(op["status"] == "done" for op in state["ops"])


def test_a_score_in_code_runs_in_place_and_a_score_by_the_model_as_a_task(monkeypatch):
    """A score op that scores in code never waits, so it runs where the scheduler stands; one
    that asks the model for a rating is a task, so its call overlaps the others."""
    from thoughtgraph.engine import executor as executor_module
    from thoughtgraph.engine import kinds
    from thoughtgraph.engine.ops import ScoreParams
    from thoughtgraph.schemes import got_paper

    assert kinds.get("score").runs_in_place(ScoreParams())
    assert not kinds.get("score").runs_in_place(ScoreParams(scorer="model"))
    graph = got_paper(parts=2)
    created: list[str] = []
    real_create_task = asyncio.create_task

    def spy(coro, **kwargs):
        created.append(coro.cr_frame.f_locals.get("op").kind if coro.cr_frame else "?")
        return real_create_task(coro, **kwargs)

    monkeypatch.setattr(executor_module.asyncio, "create_task", spy)
    started, state = _spy(graph, 16)
    scores = [op.id for op in graph.ops if op.kind == "score"]
    generates = [op.id for op in graph.ops if op.kind == "generate"]
    assert len(scores) == 4 and set(scores) <= set(started)
    assert "score" not in created and created.count("generate") == len(generates) == 3
    assert all(op["status"] == "done" for op in state["ops"])
    assert all(t["score"] is not None for t in state["thoughts"] if t["op_id"] in scores)


def test_the_run_states_graph_data_is_the_graphs_and_its_op_order_the_graphs():
    """The state keeps the `Graph` and builds its data on first use: what a trace gets must be
    exactly the graph's data, and the export order the graph's order, before and after."""
    from thoughtgraph.engine.state import RunState

    graph = got(parts=4)
    state = asyncio.run(execute(graph, SortingTask(), INPUT_32, ScriptedModel())).state
    assert state.op_ids() == [op.id for op in graph.ops]
    assert [op["id"] for op in state_dict(state)["ops"]] == [op.id for op in graph.ops]
    assert state.graph == graph.to_dict() and state_dict(state)["graph"] == graph.to_dict()
    loaded = RunState.from_dict(state_dict(state))
    assert loaded.op_ids() == state.op_ids() and loaded.graph == state.graph
    assert state_dict(loaded) == state_dict(state)
