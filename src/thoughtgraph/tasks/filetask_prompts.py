"""Paper-style prompts for a task file's task (`io`, `cot`, `improve`, `paper_merge`, `score`).

The task's own words reach these prompts only as values (`{{task}}`, `{{format}}`, and the
rubric as a fixed value), never as template text: a description that holds `{{input}}` is sent
literally, as every user value is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from thoughtgraph.tasks.prompts import PromptTemplate
from thoughtgraph.tasks.taskfile import TaskFileSpec

IO = (
    "{{task}}\n\nReply only with the answer, in the format: {{format}}\n\n"
    "<input>\n{{input}}\n</input>"
)

COT = (
    "{{task}}\n\nWork step by step through the input in <input>: go through it piece by "
    "piece, note what each piece adds to the answer, then check the answer against the task. "
    "You may write your steps first; end with the line `Answer:` followed by the answer in the "
    "format: {{format}}\n\n<input>\n{{input}}\n</input>"
)

IMPROVE = (
    "{{task}}\n\nThe answer in <answer> to the input in <input> may be incomplete or wrong."
    "{{#if errors}} A check found these errors:\n<errors>{{errors}}</errors>{{/if}}\n"
    "Write a corrected answer. Reply only with the answer, in the format: {{format}}\n\n"
    "<input>\n{{original}}\n</input>\n<answer>\n{{current}}\n</answer>"
)

_JOIN_WORDS = {
    "concatenate": "put their results together in order",
    "union": "list every item that any of them has, each once",
    "add": "add up the counts of each name",
    "model": "combine them into one answer that takes the best of each",
}

PAPER_MERGE = (
    "{{task}}\n\nEach of the {{count}} results in <results> answers a part of the input in "
    "<input>, or is an attempt at all of it. Combine them into one answer for the whole input: "
    "{join}. Reply only with the answer, in the format: {{format}}\n\n"
    "<input>\n{{original}}\n</input>\n<results>\n{{results}}\n</results>"
)

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
    prompts: dict[str, PromptTemplate] = {
        "io": PromptTemplate(IO),
        "cot": PromptTemplate(COT),
        "improve": PromptTemplate(IMPROVE),
        "paper_merge": PromptTemplate(PAPER_MERGE.replace("{join}", _JOIN_WORDS[spec.join])),
    }
    if spec.score.by == "model":
        source = SCORE.replace("{scale}", str(spec.score.scale))
        prompts["score"] = FixedValues(source, {"rubric": spec.score.rubric or ""})
    return prompts
