"""OpenTelemetry spans for a run, built from its events (the optional `[otel]` extra).

One span per run (`invoke_workflow thoughtgraph`), one per op, one per model call
(`text_completion MODEL`, kind CLIENT), nested run > op > call, with the GenAI semantic-convention
attribute names, so any OpenTelemetry backend shows a run as an LLM workflow. Off unless
configured: nothing here is imported by the core, and `opentelemetry` is imported only when a
`SpanHandler` is made.

    handler = SpanHandler()                      # the global tracer provider
    thoughtgraph.solve("sorting", numbers, on_event=handler)
"""

from __future__ import annotations

import os
import sys
from typing import Any

from thoughtgraph.errors import InputError, shown
from thoughtgraph.events import (
    CallFinished,
    CallStarted,
    Event,
    OpFinished,
    OpStarted,
    OpStatus,
    RunFinished,
    RunStarted,
    ThoughtMade,
)

# GenAI semantic-convention attribute names (opentelemetry.semconv._incubating gen_ai_attributes).
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
CHOICE_COUNT = "gen_ai.request.choice.count"
PROMPT_NAME = "gen_ai.prompt.name"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
WORKFLOW_NAME = "gen_ai.workflow.name"
ERROR_TYPE = "error.type"

INSTALL_HINT = (
    "OpenTelemetry is not installed: pip install 'thoughtgraph[otel]' "
    "(from a clone: pip install -e '.[otel]')"
)


def _api() -> Any:
    try:
        from opentelemetry import trace
    except ImportError:
        raise InputError(INSTALL_HINT) from None
    return trace


class SpanHandler:
    """An event handler that opens and closes spans as the run's events arrive.

    Spans are started and ended at the moment of the event, so their times are the run's own.
    Use one handler per run at a time. A `CallFinished` event's `prompt_tokens` and
    `completion_tokens` fill the usage attributes.
    """

    def __init__(
        self,
        tracer_provider: object = None,
        *,
        operation: str = "text_completion",
        workflow: str = "thoughtgraph",
    ) -> None:
        from thoughtgraph import __version__

        self._trace = _api()
        self._tracer = self._trace.get_tracer(
            "thoughtgraph", __version__, tracer_provider=tracer_provider
        )
        self.operation, self.workflow = operation, workflow
        self._provider = tracer_provider
        self._run: Any = None
        self._ops: dict[str, Any] = {}
        self._calls: dict[str, Any] = {}
        self._model = "model"

    # --- dispatch ------------------------------------------------------------------------
    def __call__(self, event: Event) -> None:
        match event:
            case RunStarted():
                self._on_run_started(event)
            case OpStarted():
                self._on_op_started(event)
            case CallStarted():
                self._on_call_started(event)
            case CallFinished():
                self._on_call_finished(event)
            case ThoughtMade():
                self._on_thought(event)
            case OpFinished():
                self._on_op_finished(event)
            case RunFinished():
                self._on_run_finished(event)

    def _child_of(self, span: object) -> Any:
        return None if span is None else self._trace.set_span_in_context(span)

    def _on_run_started(self, event: RunStarted) -> None:
        self._model = event.model or "model"
        self._run = self._tracer.start_span(
            f"invoke_workflow {self.workflow}",
            attributes={
                OPERATION: "invoke_workflow",
                WORKFLOW_NAME: self.workflow,
                REQUEST_MODEL: self._model,
                PROVIDER: _provider(self._model),
                "thoughtgraph.graph.ops": len(event.graph.get("ops", [])),
            },
        )

    def _on_op_started(self, event: OpStarted) -> None:
        self._ops[event.op_id] = self._tracer.start_span(
            f"op {event.op_id}",
            context=self._child_of(self._run),
            attributes={"thoughtgraph.op.id": event.op_id, "thoughtgraph.op.kind": event.kind},
        )

    def _on_call_started(self, event: CallStarted) -> None:
        model = event.model or self._model  # a kind routed to another model: that model's
        attributes: dict[str, Any] = {
            OPERATION: self.operation,
            REQUEST_MODEL: model,
            PROVIDER: _provider(model),
            PROMPT_NAME: event.kind,
            "thoughtgraph.call.id": event.call_id,
            "thoughtgraph.op.id": event.op_id,
        }
        if event.n != 1:
            attributes[CHOICE_COUNT] = event.n
        parent = self._ops.get(event.op_id, self._run)
        self._calls[event.call_id] = self._tracer.start_span(
            f"{self.operation} {model}",
            context=self._child_of(parent),
            kind=self._trace.SpanKind.CLIENT,
            attributes=attributes,
        )

    def _on_call_finished(self, event: CallFinished) -> None:
        span = self._calls.pop(event.call_id, None)
        if span is None:
            return
        span.set_attribute(INPUT_TOKENS, event.prompt_tokens)
        span.set_attribute(OUTPUT_TOKENS, event.completion_tokens)
        span.set_attribute("thoughtgraph.call.tokens", event.tokens)
        span.set_attribute("thoughtgraph.call.cached", event.cached)
        span.set_attribute("thoughtgraph.call.latency", event.latency)
        span.set_attribute("thoughtgraph.call.cost", event.cost)
        if event.error:
            span.set_attribute(ERROR_TYPE, "ModelError")
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, event.error))
        span.end()

    def _on_thought(self, event: ThoughtMade) -> None:
        span = self._ops.get(event.op_id)
        if span is None:
            return
        attributes: dict[str, Any] = {
            "thoughtgraph.thought.thought_id": event.thought_id,
            "thoughtgraph.thought.kind": event.kind,
            "thoughtgraph.thought.attempt": event.attempt,
        }
        if event.score is not None:
            attributes["thoughtgraph.thought.score"] = event.score
        span.add_event("thought", attributes)

    def _on_op_finished(self, event: OpFinished) -> None:
        span = self._ops.pop(event.op_id, None)
        if span is None:
            return
        span.set_attribute("thoughtgraph.op.status", str(event.status))
        if event.status != OpStatus.DONE:
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, f"op {event.status}"))
        span.end()

    def _on_run_finished(self, event: RunFinished) -> None:
        for span in [*self._calls.values(), *self._ops.values()]:  # a crash left them open
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, "run ended first"))
            span.end()
        self._calls.clear()
        self._ops.clear()
        if self._run is None:
            return
        self._run.set_attribute("thoughtgraph.run.calls", event.calls)
        if event.stop_reason is not None:
            self._run.set_attribute("thoughtgraph.run.stop_reason", str(event.stop_reason))
        self._run.set_attribute("thoughtgraph.run.cost", event.cost)
        self._run.end()
        self._run = None

    def shutdown(self) -> None:
        """Flush and close the tracer provider this handler made (see `from_env`)."""
        if self._provider is not None and hasattr(self._provider, "shutdown"):
            self._provider.shutdown()


def _provider(model: str) -> str:
    """`openai:gpt-4o` -> `openai`; `sim:error=1` -> `sim`."""
    return model.split(":", 1)[0] or "model"


def from_env() -> SpanHandler:
    """The handler behind the CLI's `--otel`.

    Uses the global tracer provider when one is set (e.g. by `opentelemetry-instrument`);
    otherwise makes one from `OTEL_TRACES_EXPORTER`: `otlp` (default; OTLP over HTTP, endpoint
    from `OTEL_EXPORTER_OTLP_ENDPOINT`) or `console` (spans as JSON on stderr).
    """
    trace = _api()
    if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return SpanHandler()
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    except ImportError:
        raise InputError(INSTALL_HINT) from None
    name = os.environ.get("OTEL_TRACES_EXPORTER", "otlp").split(",")[0].strip()
    if name == "console":
        exporter: Any = ConsoleSpanExporter(out=sys.stderr)
    elif name == "otlp":
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            raise InputError(
                "the OTLP exporter is not installed: pip install "
                "'thoughtgraph[otel]' (or set OTEL_TRACES_EXPORTER=console)"
            ) from None
        exporter = OTLPSpanExporter()
    else:
        raise InputError(f"unknown OTEL_TRACES_EXPORTER {shown(name)} (otlp, console)")
    service = os.environ.get("OTEL_SERVICE_NAME", "thoughtgraph")
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return SpanHandler(provider)
