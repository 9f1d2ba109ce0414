"""The prompts every task has and a one-pass Handlebars-subset renderer.

Every task has the spec's Part, Merge and Refine prompts (`TEMPLATES`) and the paper-style
baselines the other schemes ask for, `io`, `cot`, `improve` and `paper_merge` (`BASELINES`),
under its own prompts of those names. A task's words reach them only as values (`{{task}}` is
`describe(problem)`, `{{format}}` is `format()`, `{{input}}` and the others are `render`ed),
never as template text, so the same templates serve every task; a task file words its merge by
its `join` (tasks/filetask_prompts.py).

Supported syntax: `{{name}}`, `{{#if name}} ... {{else}} ... {{/if}}` (nestable). A tag alone on
its line removes that line, as in Handlebars. Values are inserted exactly as given and the output
is never scanned again, so user data containing `{{task}}` or `{{#if x}}` is sent literally.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from thoughtgraph.errors import ThoughtgraphError, shown

PART = """\
Solve this part of a larger task. Work only on the part below.

<task>{{task}}</task>
<part>{{part}}</part>

{{#if previous_errors}}
A previous attempt at this part had these errors. Avoid them:
<errors>{{previous_errors}}</errors>
{{/if}}

Return only the result for this part, in the format: {{format}}"""

MERGE = """\
Combine the two partial results below into one result for the task.
Keep everything that is correct in each; do not drop or duplicate items.

<task>{{task}}</task>
<a>{{result_a}}</a>
<b>{{result_b}}</b>

Return only the merged result, in the format: {{format}}"""

REFINE = """\
The result below is close, but a check found errors in it.

<task>{{task}}</task>
<result>{{result}}</result>
<errors>{{errors}}</errors>

Fix exactly these errors and change nothing else.
Return only the corrected result, in the format: {{format}}"""

MERGE_MANY = """\
Combine the {{count}} partial results below into one result for the task.
Keep everything that is correct in each; do not drop or duplicate items.

<task>{{task}}</task>
{{results}}

Return only the merged result, in the format: {{format}}"""
"""The Merge prompt generalised to more than two inputs (graphs with arity > 2)."""

_STANDALONE = re.compile(r"^[ \t]*(\{\{(?:#if\s+\w+|/if|else)\}\})[ \t]*\r?\n", re.MULTILINE)
_TAG = re.compile(r"\{\{\s*(#if\s+\w+|/if|else|\w+)\s*\}\}")


@dataclass(frozen=True)
class _If:
    name: str
    then: tuple[Any, ...]
    otherwise: tuple[Any, ...]


@dataclass(frozen=True)
class _Var:
    name: str


class TemplateError(ThoughtgraphError, ValueError):
    """A template is malformed or a variable it uses was not given."""


class PromptTemplate:
    """A parsed template. Parsing happens once; `render` walks the parsed nodes in one pass."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._nodes = _parse(_STANDALONE.sub(r"\1", source))
        self._variables = frozenset(_names(self._nodes))  # asked for every op and call

    def __eq__(self, other: object) -> bool:
        """A template is its source (two graphs with the same prompts are equal)."""
        return isinstance(other, PromptTemplate) and other.source == self.source

    def __hash__(self) -> int:
        return hash(self.source)

    def __repr__(self) -> str:
        return f"PromptTemplate({self.source!r})"

    @property
    def variables(self) -> set[str]:
        return set(self._variables)

    def render(self, values: Mapping[str, Any]) -> str:
        out: list[str] = []
        _render(self._nodes, values, out)
        return "".join(out)


def _parse(text: str) -> tuple[Any, ...]:
    stack: list[tuple[str | None, list[Any], list[Any] | None]] = [(None, [], None)]
    pos = 0
    for match in _TAG.finditer(text):
        current = stack[-1][2] if stack[-1][2] is not None else stack[-1][1]
        if match.start() > pos:
            current.append(text[pos : match.start()])
        pos = match.end()
        tag = match.group(1)
        if tag.startswith("#if"):
            stack.append((tag[3:].strip(), [], None))
        elif tag == "else":
            name, then, otherwise = stack[-1]
            if name is None or otherwise is not None:
                raise TemplateError("{{else}} outside an {{#if}} block")
            stack[-1] = (name, then, [])
        elif tag == "/if":
            name, then, otherwise = stack.pop()
            if name is None or not stack:
                raise TemplateError("{{/if}} without a matching {{#if}}")
            node = _If(name, tuple(then), tuple(otherwise or ()))
            parent = stack[-1][2] if stack[-1][2] is not None else stack[-1][1]
            parent.append(node)
        else:
            current.append(_Var(tag))
    if len(stack) != 1:
        raise TemplateError(f"unclosed {{{{#if {stack[-1][0]}}}}}")
    if pos < len(text):
        stack[0][1].append(text[pos:])
    _check_no_stray_tags(text)
    return tuple(stack[0][1])


def _check_no_stray_tags(text: str) -> None:
    """A `{{` that starts no supported tag (`{{part}`, `{{#each x}}`) would be sent as is and
    leave the value out of the prompt: refuse it, as Handlebars would."""
    rest = _TAG.sub("", text)
    start = rest.find("{{")
    if start >= 0:
        snippet = rest[start : start + 24].split("\n", 1)[0]
        raise TemplateError(
            f"{snippet!r} is not a template tag: write {{{{name}}}}, {{{{#if name}}}}, "
            "{{else}} or {{/if}}"
        )


def _names(nodes: tuple[Any, ...]) -> set[str]:
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, _Var):
            found.add(node.name)
        elif isinstance(node, _If):
            found |= {node.name} | _names(node.then) | _names(node.otherwise)
    return found


def _render(nodes: tuple[Any, ...], values: Mapping[str, Any], out: list[str]) -> None:
    for node in nodes:
        kind = type(node)  # the parser makes exactly these three: no isinstance per node
        if kind is str:
            out.append(node)
        elif kind is _Var:
            if node.name not in values:
                raise TemplateError(f"prompt variable {shown(node.name)} was not given")
            out.append(str(values[node.name]))
        else:
            _render(node.then if values.get(node.name) else node.otherwise, values, out)


def read_templates(task_name: str, prompts: object) -> dict[str, PromptTemplate]:
    """A task's own `prompts` (name -> template text or `PromptTemplate`) as templates, each
    text parsed once here; one `TemplateError` line naming the task and the prompt for a text
    that is no template, a value that is neither, or a `prompts` that is no mapping."""
    where = f"task {shown(task_name)}"
    if not isinstance(prompts, Mapping):
        raise TemplateError(
            f"{where}: prompts must be a mapping of prompt names to template texts, "
            f"got {type(prompts).__name__}"
        )
    templates = {}
    for name, source in prompts.items():
        if not isinstance(name, str):
            raise TemplateError(f"{where}: prompts: {shown(name)} is not a prompt name")
        if isinstance(source, PromptTemplate):
            templates[name] = source
            continue
        if not isinstance(source, str):
            raise TemplateError(
                f"{where}: prompt {shown(name)} must be a template text (str) or a "
                f"PromptTemplate, got {type(source).__name__}"
            )
        try:
            templates[name] = PromptTemplate(source)
        except TemplateError as exc:
            raise TemplateError(f"{where}: prompt {shown(name)}: {exc}") from None
    return templates


TEMPLATES: dict[str, PromptTemplate] = {
    "part": PromptTemplate(PART),
    "merge": PromptTemplate(MERGE),
    "refine": PromptTemplate(REFINE),
    "merge_many": PromptTemplate(MERGE_MANY),
}


def render(kind: str, **values: object) -> str:
    """Render one of the built-in templates by kind (`part`, `merge`, `refine`)."""
    return TEMPLATES[kind].render(values)


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
"""Parsed once: a task that has no prompt of one of these names gets these (`run_prompts`)."""
