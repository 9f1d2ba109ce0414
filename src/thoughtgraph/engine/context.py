"""What an op sees while it runs: the task and problem, the run state, the call gateway
(`gateway.py`) and the thought factory (`thoughts.py`), under one name, `ctx`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from thoughtgraph.engine.gateway import CallGateway
from thoughtgraph.engine.state import RunState
from thoughtgraph.engine.thoughts import ThoughtFactory
from thoughtgraph.errors import GraphError, shown
from thoughtgraph.tasks.base import Task
from thoughtgraph.tasks.prompts import TEMPLATES, PromptTemplate


def template_for(
    task: Task, name: str, graph_prompts: Mapping[str, PromptTemplate] | None = None
) -> PromptTemplate:
    """The graph's own template of that name, else the task's, else the spec's (part, merge,
    refine, ...). The graph's comes first so a graph file can replace a stock prompt."""
    graph_prompts = graph_prompts or {}
    if name in graph_prompts:
        return graph_prompts[name]
    # getattr, not isinstance(task, FewShotPrompts): the same test (the attribute exists) at a
    # fraction of a runtime protocol check's cost, on every prompt rendered
    own: Mapping[str, PromptTemplate] = getattr(task, "prompts", None) or {}
    if name in own:
        return own[name]
    if name in TEMPLATES:
        return TEMPLATES[name]
    known = sorted(set(graph_prompts) | set(own) | set(TEMPLATES))
    raise GraphError(
        f"task {shown(task.name)} has no prompt {shown(name)} (known: {', '.join(known)})"
    )


@dataclass(frozen=True)
class RunContext:
    """An op's view of the run: it asks the model through `gateway` (for answers it
    parses itself) and makes thoughts through `thoughts` (the factory), which own the rules."""

    task: Task
    problem: Any
    state: RunState
    gateway: CallGateway
    thoughts: ThoughtFactory
    prompts: Mapping[str, PromptTemplate] = field(default_factory=dict)  # the graph's own

    def render(self, name: str, **values: Any) -> str:
        return template_for(self.task, name, self.prompts).render(values)
