"""The paper-style prompts every task gets from its own words: `io`, `cot`, `improve`,
`paper_merge`.

They are what the baseline schemes ask for (`io`, `cot`, `cot_sc`, `tot`, `tot2` and
`got_paper`). A task's words reach them only as values (`{{task}}` is `describe(problem)`,
`{{format}}` is `format()`, `{{input}}` and the others are `render`ed), never as template text,
so the same templates serve every task and a description holding `{{input}}` is sent
literally. A task's own prompts of these names come first (`task_prompts`); a task file words
its merge by its `join` (tasks/filetask_prompts.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from thoughtgraph.tasks.base import own_prompts
from thoughtgraph.tasks.prompts import PromptTemplate

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

PAPER_MERGE = (
    "{{task}}\n\nEach of the {{count}} results in <results> answers a part of the input in "
    "<input>, or is an attempt at all of it. Combine them into one answer for the whole input: "
    "{join}. Reply only with the answer, in the format: {{format}}\n\n"
    "<input>\n{{original}}\n</input>\n<results>\n{{results}}\n</results>"
)

MERGE_WORDS = "keep everything that is correct in each, without dropping or repeating anything"
"""How `paper_merge` asks to combine the results when the task says nothing of its join."""


def baseline_prompts(merge_words: str = MERGE_WORDS) -> dict[str, PromptTemplate]:
    """The four templates, the merge asking to combine results as `merge_words` say."""
    return {
        "io": PromptTemplate(IO),
        "cot": PromptTemplate(COT),
        "improve": PromptTemplate(IMPROVE),
        "paper_merge": PromptTemplate(PAPER_MERGE.replace("{join}", merge_words)),
    }


BASELINES: Mapping[str, PromptTemplate] = baseline_prompts()
"""Parsed once: every task that lacks a prompt of one of these names gets these."""


def task_prompts(task: object) -> dict[str, PromptTemplate]:
    """The templates a task's ops may name beside the spec's Part/Merge/Refine: its own
    (`FewShotPrompts`) over the baselines."""
    return {**BASELINES, **own_prompts(task)}
