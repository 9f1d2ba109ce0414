"""A task file's paper-style prompts: the baselines every task gets (tasks/prompts.py),
their merge worded by the file's `join`, and the `score` prompt of a task the model rates.

The task's own words reach these prompts only as values (`{{task}}`, `{{format}}`, and the
rubric as a fixed value), never as template text: a description that holds `{{input}}` is sent
literally, as every user value is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from thoughtgraph.tasks.prompts import PromptTemplate, baseline_prompts
from thoughtgraph.tasks.taskfile import TaskFileSpec

_JOIN_WORDS = {
    "concatenate": "put their results together in order",
    "union": "list every item that any of them has, each once",
    "add": "add up the counts of each name",
    "model": "combine them into one answer that takes the best of each",
}

SCORE = (
    "{{task}}\n\nRate the answer in <answer> to the input in <input> from 0 to {scale} by this "
    "rubric ({scale} is best):\n<rubric>{{rubric}}</rubric>\nYou may explain your rating "
    "first; end with the line `Score:` followed by the number only.\n\n"
    "<input>\n{{original}}\n</input>\n<answer>\n{{current}}\n</answer>"
)


class FixedValues(PromptTemplate):
    """A template with some values fixed when it is made (the rubric): they are inserted as
    values, like any other, and are not asked of the op."""

    def __init__(self, source: str, fixed: Mapping[str, Any]) -> None:
        super().__init__(source)
        self.fixed = dict(fixed)

    @property
    def variables(self) -> set[str]:
        return super().variables - set(self.fixed)

    def render(self, values: Mapping[str, Any]) -> str:
        return super().render({**values, **self.fixed})


def prompts_for(spec: TaskFileSpec) -> dict[str, PromptTemplate]:
    """The task's own templates (the words around the values are ours, fixed per join)."""
    prompts = baseline_prompts(_JOIN_WORDS[spec.join])
    if spec.score.by == "model":
        source = SCORE.replace("{scale}", str(spec.score.scale))
        prompts["score"] = FixedValues(source, {"rubric": spec.score.rubric or ""})
    return prompts
