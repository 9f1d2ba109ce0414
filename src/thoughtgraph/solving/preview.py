"""The prompts a graph sends, rendered without a model (`solve --show-prompts`): what a user
writing a model or a task sees it will be sent, before any request.

The prepared graph runs, one op at a time in the reference order, on a stand-in model that
answers every request with markers and reaches nothing. Each op that calls the model shows its
first request's prompt exactly as the op rendered it: what is known before the run (the task's
description and format, the problem or the part an op is given) as it will be sent, and what
only the model's answers give at run time in their place: `⟨the answer of part_1⟩` where a merge,
a fix or a rating shows an earlier answer, `⟨errors ...⟩` where a prompt shows the errors the
task's score finds in one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from thoughtgraph.engine.executor import execute
from thoughtgraph.engine.graph import Op
from thoughtgraph.engine.ops import GenerateParams, SplitParams
from thoughtgraph.engine.options import PreparedRun
from thoughtgraph.engine.state import RunState
from thoughtgraph.models.base import Completion

ERRORS = "⟨errors the task's score finds in that answer⟩"
MODEL_SPLIT = (
    "its parts come from the model's answer at run time: the prompts after it show the code "
    "split in their place"
)
GROWS = (
    "if its best answer still has errors after its regenerations, it grows at run time: its "
    "part is split again in code into {fanout} pieces, each sent this prompt with its own piece, "
    "and merged back with the {merge} prompt (docs/graphs.md, growth at run time)"
)


@dataclass(frozen=True)
class SentPrompt:
    """The first request of one op: the op, its kind, the prompt's name, the answers it asks
    for (`n`) and the text, run-time values as placeholders; `note`: what else to know."""

    op: str
    kind: str
    prompt: str
    answers: int
    text: str
    note: str = ""


@dataclass(frozen=True)
class Preview:
    """What `prompts_of` found: the prompts sent, in the order the ops run, and the ops that
    may call the model but sent nothing on this pass (a refine of an answer with no errors)."""

    sent: list[SentPrompt]
    unsent: list[str]


class Placeholders:
    """The stand-in model: each answer a marker no task reads as an answer (letters only: a
    number would be a counting task's answer), so what the ops show of it can be found and
    named afterwards. It sends nothing anywhere."""

    name = "placeholders (no model is called)"
    simulated = False

    def __init__(self) -> None:
        self.made = 0

    async def complete(self, prompt: str, n: int = 1) -> list[Completion]:
        answers = []
        for _ in range(n):
            self.made += 1
            answers.append(Completion(marker(self.made)))
        return answers


def marker(number: int) -> str:
    """The `number`-th stand-in answer: `⟦answer a⟧`, ..., `⟦answer z⟧`, `⟦answer aa⟧`, ..."""
    letters = ""
    while number:
        number, digit = divmod(number - 1, 26)
        letters = chr(ord("a") + digit) + letters
    return f"⟦answer {letters}⟧"


async def prompts_of(prepared: PreparedRun) -> Preview:
    """Every model-calling op's first request, in the reference controller's order; no request
    leaves this process."""
    outcome = await execute(
        prepared.graph,
        prepared.task,
        prepared.problem,
        Placeholders(),
        concurrency=1,
        order="bfs",
        reference=prepared.reference,
    )
    return _preview(prepared, outcome.state)


def _preview(prepared: PreparedRun, state: RunState) -> Preview:
    names = _placeholders(state)
    first: dict[str, SentPrompt] = {}
    graph_ops = {op.id for op in prepared.graph.ops}
    for call in state.calls.values():
        if call.op_id not in first and call.op_id in graph_ops:  # a grown op's: said in a note
            op = prepared.graph.op(call.op_id)
            text = _filled(call.prompt, names)
            first[op.id] = SentPrompt(op.id, op.kind, call.kind, call.n, text, _note(op))
    order = {op_id: i for i, op_id in enumerate(prepared.graph.bfs_order())}
    sent = sorted(first.values(), key=lambda p: order[p.op])
    unsent = [op.id for op in prepared.graph.ops if op.prompt is not None and op.id not in first]
    return Preview(sent, unsent)


def _placeholders(state: RunState) -> dict[str, str]:
    """What to show instead of what the stand-in's answers left in a prompt: each marker as the
    answer of its op, and the errors the task's score found in a marker as `ERRORS`."""
    names: dict[str, str] = {}
    for call in state.calls.values():
        which = "the answer" if len(call.texts) == 1 else "an answer"
        for text in call.texts:
            names[text] = f"⟨{which} of {call.op_id}⟩"
    for thought in state.thoughts.values():
        if thought.text in names and thought.score is not None and thought.score.errors:
            names.setdefault("; ".join(thought.score.errors), ERRORS)
    return names


def _filled(prompt: str, names: dict[str, str]) -> str:
    """The prompt with each placeholder in place; the longest first (errors may quote an
    answer)."""
    for found in sorted(names, key=len, reverse=True):
        prompt = prompt.replace(found, names[found])
    return prompt


def _note(op: Op) -> str:
    if op.kind == "split" and op.params_as(SplitParams).by == "model":
        return MODEL_SPLIT
    grow = op.params_as(GenerateParams).grow if op.kind == "generate" else None
    if grow is not None:
        return GROWS.format(fanout=grow.fanout, merge=grow.merge_prompt)
    return ""


def as_text(preview: Preview, what: str, routes: Mapping[str, str] | None = None) -> str:
    """The prompts as `solve --show-prompts` prints them: a heading saying what they are of and
    what the placeholders mean, then each op's first request under a line naming it (and, for
    a kind routed to another model, `routes`: kind -> spec, the model it goes to)."""
    lines = [
        f"# the prompts {what} sends: each model-calling op's first request, no model called",
        "# ⟨...⟩: filled at run time from the model's answers (an earlier op's answer, the "
        "errors the task's score finds in it)",
    ]
    for sent in preview.sent:
        answers = f"{sent.answers} answer{'s' if sent.answers != 1 else ''}"
        to = f", to {routes[sent.prompt]}" if routes and sent.prompt in routes else ""
        lines += ["", f"=== {sent.op}: {sent.kind}, prompt {sent.prompt}, {answers}{to} ==="]
        if sent.note:
            lines.append(f"# {sent.note}")
        lines.append(sent.text)
    if preview.unsent:
        lines += [
            "",
            f"# sent nothing on this pass (they call the model only when an answer has errors): "
            f"{', '.join(preview.unsent)}",
        ]
    return "\n".join(lines) + "\n"


def as_json(preview: Preview, routes: Mapping[str, str] | None = None) -> dict[str, object]:
    """The prompts as `solve --show-prompts --json` prints them (`model`: the spec of the model
    a routed kind goes to, None: `--model`)."""
    return {
        "prompts": [
            {
                "op": s.op,
                "kind": s.kind,
                "prompt": s.prompt,
                "answers": s.answers,
                "text": s.text,
                "note": s.note,
                "model": (routes or {}).get(s.prompt),
            }
            for s in preview.sent
        ],
        "unsent": preview.unsent,
    }
