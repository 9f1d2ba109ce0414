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
from thoughtgraph.tasks.base import BaseTask, own_prompts
from thoughtgraph.tasks.prompts import BASELINES, TEMPLATES, PromptTemplate


def template_for(
    task: BaseTask[Any, Any], name: str, graph_prompts: Mapping[str, PromptTemplate] | None = None
) -> PromptTemplate:
    """The graph's own template of that name, else the task's, else the spec's (part, merge,
    refine, ...). The graph's comes first so a graph file can replace a stock prompt."""
    return pick_template(task.name, name, run_prompts(task, graph_prompts or {}))


def run_prompts(
    task: BaseTask[Any, Any], graph_prompts: Mapping[str, PromptTemplate]
) -> dict[str, PromptTemplate]:
    """The templates a run may name beside the spec's: the task's own (`FewShotPrompts`, over
    the baselines every task gets) under the graph's own. Worked out once a run: every prompt
    rendered looks a name up in it."""
    return {**BASELINES, **own_prompts(task), **graph_prompts}


def pick_template(
    task_name: str, name: str, prompts: Mapping[str, PromptTemplate]
) -> PromptTemplate:
    """`prompts` (`run_prompts`) by name, else the spec's; one `GraphError` for neither."""
    if name in prompts:
        return prompts[name]
    if name in TEMPLATES:
        return TEMPLATES[name]
    known = sorted(set(prompts) | set(TEMPLATES))
    raise GraphError(
        f"task {shown(task_name)} has no prompt {shown(name)} (known: {', '.join(known)})"
    )


@dataclass(frozen=True)
class RunContext:
    """An op's view of the run: it asks the model through `gateway` (for answers it
    parses itself) and makes thoughts through `thoughts` (the factory), which own the rules."""

    task: BaseTask[Any, Any]
    problem: object
    state: RunState
    gateway: CallGateway
    thoughts: ThoughtFactory
    prompts: Mapping[str, PromptTemplate] = field(default_factory=dict)  # `run_prompts`
    reference: object = None  # the problem's given reference (tasks/reference.py), for ground_truth
    _variables: dict[str, frozenset[str]] = field(default_factory=dict, repr=False, compare=False)

    def render(self, name: str, **values: object) -> str:
        return pick_template(self.task.name, name, self.prompts).render(values)

    def variables(self, name: str) -> frozenset[str]:
        """The values template `name` uses, looked up once a run: an op works out only those
        (a merge's `original` is its whole joined problem rendered, which the spec's Merge
        prompt never shows)."""
        found = self._variables.get(name)
        if found is None:
            found = self._variables[name] = frozenset(
                pick_template(self.task.name, name, self.prompts).variables
            )
        return found
