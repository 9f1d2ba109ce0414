"""OpenTelemetry spans from run events: one per run, op and model call, nested, with the GenAI
semantic-convention attribute names (checked with the SDK's in-memory exporter)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from typing import Any

import pytest

import thoughtgraph
from thoughtgraph.errors import InputError, ModelError
from thoughtgraph.events import (
    CallFinished,
    CallStarted,
    OpFinished,
    OpStarted,
    RunFinished,
    RunStarted,
    StopReason,
)
from thoughtgraph.testing import ScriptedModel, perfect_sorting_answer

from .conftest import INPUT_32

pytest.importorskip(
    "opentelemetry.sdk", reason="the [otel] extra (opentelemetry-sdk) is not installed"
)

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from thoughtgraph.io.otel import SpanHandler, from_env


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def provider(exporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def one_wrong_part(prompt: str, number: int) -> str:
    """The first answer drops a number: part_1 is regenerated once."""
    answer = perfect_sorting_answer(prompt)
    return str(answer[1:] if number == 0 else answer)


def test_a_span_per_run_op_and_call_nested_with_genai_names(provider, exporter):
    result = thoughtgraph.solve(
        "sorting",
        INPUT_32,
        model=ScriptedModel(one_wrong_part),
        parts=4,
        concurrency=1,
        on_event=SpanHandler(provider),
    )
    spans = exporter.get_finished_spans()
    runs = [s for s in spans if s.name == "invoke_workflow thoughtgraph"]
    ops = {s.attributes["thoughtgraph.op.id"]: s for s in spans if s.name.startswith("op ")}
    calls = [s for s in spans if s.kind == SpanKind.CLIENT]
    assert len(runs) == 1 and len(spans) == 1 + len(ops) + len(calls)
    run = runs[0]
    assert run.parent is None
    assert run.attributes["gen_ai.operation.name"] == "invoke_workflow"
    assert run.attributes["gen_ai.workflow.name"] == "thoughtgraph"
    assert run.attributes["gen_ai.request.model"] == "scripted"
    assert run.attributes["thoughtgraph.run.calls"] == result.calls

    assert set(ops) == {op.id for op in result.graph.ops}
    for span in ops.values():
        assert span.parent.span_id == run.context.span_id
        assert span.context.trace_id == run.context.trace_id
        assert span.attributes["thoughtgraph.op.status"] == "done"
    assert ops["part_1"].attributes["thoughtgraph.op.kind"] == "generate"
    thought_events = [e.attributes["thoughtgraph.thought.thought_id"] for e in ops["part_1"].events]
    assert thought_events == ["part_1:0.1", "part_1:0.2"]  # the regeneration is visible

    assert len(calls) == result.calls == 8  # 4 parts + 1 regeneration + 3 merges
    by_call = {s.attributes["thoughtgraph.call.id"]: s for s in calls}
    for call_id, call in result.state.calls.items():
        span = by_call[call_id]
        assert span.name == "text_completion scripted"
        assert span.parent.span_id == ops[call.op_id].context.span_id  # call inside its op
        assert span.attributes["gen_ai.operation.name"] == "text_completion"
        assert span.attributes["gen_ai.request.model"] == "scripted"
        assert span.attributes["gen_ai.provider.name"] == "scripted"
        assert span.attributes["gen_ai.prompt.name"] == call.kind
        assert span.attributes["thoughtgraph.call.tokens"] == call.usage.total_tokens
        assert span.status.status_code == StatusCode.UNSET
        assert span.start_time <= span.end_time
        op_span = ops[call.op_id]
        assert op_span.start_time <= span.start_time and span.end_time <= op_span.end_time


def test_real_runs_fill_the_usage_attributes(provider, exporter):
    result = thoughtgraph.solve(
        "sorting", INPUT_32, model=ScriptedModel(), parts=4, on_event=SpanHandler(provider)
    )
    by_call = {
        s.attributes["thoughtgraph.call.id"]: s
        for s in exporter.get_finished_spans()
        if s.kind == SpanKind.CLIENT
    }
    for call_id, call in result.state.calls.items():
        assert by_call[call_id].attributes["gen_ai.usage.input_tokens"] == call.usage.prompt_tokens
        assert (
            by_call[call_id].attributes["gen_ai.usage.output_tokens"]
            == call.usage.completion_tokens
        )


def test_usage_failures_and_choice_count_map_to_genai_attributes(provider, exporter):
    handler = SpanHandler(provider)

    def finished(time: float, call_id: str, **fields: object) -> CallFinished:
        values: dict[str, Any] = {
            "latency": 0.1,
            "error": None,
            "tokens": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "cached": False,
            "cost": 0.0,
            "requests": 1,
            "answers": 1,
        }
        return CallFinished(time, "part_1", call_id, "part", **{**values, **fields})

    for event in (
        RunStarted(0.0, {"ops": [{}]}, "openai:gpt-4o-mini"),
        OpStarted(0.1, "part_1", "generate"),
        CallStarted(0.2, "part_1", "c1", "part", 3),
        finished(0.3, "c1", tokens=30, prompt_tokens=20, completion_tokens=10, cached=True),
        CallStarted(0.4, "part_1", "c2", "part", 1),
        finished(0.5, "c2", error="timed out", answers=0),
        OpFinished(0.6, "part_1", "generate", "stopped"),
        RunFinished(0.7, 2, StopReason.BUDGET, 0.0),
    ):
        handler(event)
    spans = {s.name: s for s in exporter.get_finished_spans() if s.kind != SpanKind.CLIENT}
    c1, c2 = sorted(
        (s for s in exporter.get_finished_spans() if s.kind == SpanKind.CLIENT),
        key=lambda s: s.attributes["thoughtgraph.call.id"],
    )
    assert c1.name == "text_completion openai:gpt-4o-mini"
    assert c1.attributes["gen_ai.provider.name"] == "openai"
    assert c1.attributes["gen_ai.request.choice.count"] == 3
    assert c1.attributes["gen_ai.usage.input_tokens"] == 20
    assert c1.attributes["gen_ai.usage.output_tokens"] == 10
    assert c1.attributes["thoughtgraph.call.cached"] is True
    assert "gen_ai.request.choice.count" not in c2.attributes
    assert c2.status.status_code == StatusCode.ERROR and c2.status.description == "timed out"
    assert c2.attributes["error.type"] == "ModelError"
    assert spans["op part_1"].status.status_code == StatusCode.ERROR
    assert (
        spans["invoke_workflow thoughtgraph"].attributes["thoughtgraph.run.stop_reason"]
        == "budget exhausted"
    )


def test_a_failed_model_call_is_an_error_span(provider, exporter):
    failures = [ModelError("server said 503")]  # the first call fails, once

    def respond(prompt: str, _n: int) -> str:
        if failures:
            raise failures.pop()
        return str(perfect_sorting_answer(prompt))

    thoughtgraph.solve(
        "sorting",
        INPUT_32,
        model=ScriptedModel(respond),
        parts=4,
        concurrency=1,
        on_event=SpanHandler(provider),
    )
    failed = [s for s in exporter.get_finished_spans() if s.status.status_code == StatusCode.ERROR]
    assert [s.attributes["thoughtgraph.call.id"] for s in failed] == ["part_1:0.1"]
    assert "503" in failed[0].status.description


def test_spans_left_open_by_a_crash_are_closed(provider, exporter):
    def respond(prompt: str, number: int) -> str:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        thoughtgraph.solve(
            "sorting",
            INPUT_32,
            model=ScriptedModel(respond),
            parts=4,
            concurrency=1,
            on_event=SpanHandler(provider),
        )
    spans = exporter.get_finished_spans()
    assert any(s.name == "invoke_workflow thoughtgraph" for s in spans)
    crashed = [s for s in spans if s.kind == SpanKind.CLIENT]
    assert len(crashed) == 1 and crashed[0].status.status_code == StatusCode.ERROR


def test_the_run_joins_the_callers_trace(provider, exporter):
    tracer = provider.get_tracer("app")
    with tracer.start_as_current_span("my request") as outer:
        thoughtgraph.solve(
            "sorting", [3, 1, 2], model=ScriptedModel(), on_event=SpanHandler(provider)
        )
    run = next(s for s in exporter.get_finished_spans() if s.name.startswith("invoke_workflow"))
    assert run.parent.span_id == outer.get_span_context().span_id


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def test_from_env_builds_an_exporter_or_says_why_not(monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    handler = from_env()
    assert handler._provider is not None
    handler.shutdown()
    if _installed("opentelemetry.exporter.otlp.proto.http"):  # the [otel] extra
        monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")  # never reached
        from_env().shutdown()  # no span, so nothing is sent
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "zipkin-by-pigeon")
    with pytest.raises(InputError, match="unknown OTEL_TRACES_EXPORTER"):
        from_env()


@pytest.mark.slow
def test_the_core_never_imports_opentelemetry():
    code = (
        "import sys, thoughtgraph, thoughtgraph.cli.main, thoughtgraph.io.otel, "
        "thoughtgraph.io.eventlog, "
        "thoughtgraph.viewer.html, thoughtgraph.cli.trace; "
        "assert not [m for m in sys.modules if m.startswith('opentelemetry')], 'imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
