"""Test doubles for your own tests: a scripted model that records every prompt it gets.

model = ScriptedModel(lambda prompt, n: "[1, 2, 3]")
thoughtgraph.solve("sorting", [3, 2, 1], model=model)
assert len(model.prompts_of("part")) == 1
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable, Callable
from typing import Any

from thoughtgraph.models.base import Completion, _tokens
from thoughtgraph.sim import sorting
from thoughtgraph.sim.model import SimulatedModel
from thoughtgraph.spend.usage import Usage

_FIRST_LINES = {
    "Solve this part of a larger task.": "part",
    "Combine the two partial results": "merge",
    "The result below is close": "refine",
}


def prompt_kind(prompt: str) -> str | None:
    """Which of the spec's prompts this is: "part", "merge", "refine" (None for others)."""
    for start, kind in _FIRST_LINES.items():
        if prompt.startswith(start):
            return kind
    return None


def section(prompt: str, tag: str) -> str:
    """The text between `<tag>` and `</tag>` in a prompt ("" when absent)."""
    match = re.search(rf"<{tag}>(.*?)</{tag}>", prompt, re.DOTALL)
    return match.group(1) if match else ""


def ints(text: str) -> list[int]:
    return [int(tok) for tok in re.findall(r"-?\d+", text)]


def perfect_sorting_answer(prompt: str) -> list[int]:
    """What a flawless model answers to a sorting prompt (the spec's or the paper-style ones)."""
    sections = {name: body for name, body in sorting.SECTION.findall(prompt)}
    answer = sorting.sort_answer(sorting.prompt_kind(sections), sections, prompt)
    if answer is None:
        raise ValueError("not a sorting prompt")
    return answer


def perfect_sorting_text(prompt: str) -> str:
    """A flawless answer as text; a split prompt gets the JSON object it asks for."""
    return _FLAWLESS.answer(prompt, random.Random(0))


_FLAWLESS = SimulatedModel(error=0)

Responder = Callable[[str, int], str] | Callable[[str, int], Awaitable[str]]


class ScriptedModel:
    """Answers with `respond(prompt, answer_number)`; records prompts and peak calls in flight.

    `answer_number` counts from 0 over all answers given. `delay` (seconds, or a function of the
    prompt) makes calls overlap so tests can observe concurrency.
    """

    simulated = False

    def __init__(
        self,
        respond: Responder | None = None,
        *,
        delay: float | Callable[[str], float] = 0.0,
        name: str = "scripted",
    ) -> None:
        self.respond = respond or (lambda prompt, _n: perfect_sorting_text(prompt))
        self.delay = delay
        self.name = name
        self.prompts: list[str] = []  # one per request
        self.answers = 0  # answers given so far (a request may ask for n)
        self.in_flight = 0
        self.max_in_flight = 0
        self.log: list[tuple[str, str, int]] = []  # (event, kind, call_number) in order

    def prompts_of(self, kind: str) -> list[str]:
        return [p for p in self.prompts if prompt_kind(p) == kind]

    async def complete(self, prompt: str, n: int = 1) -> list[Completion]:
        """One request: the prompt is recorded once, `respond` is called for each of n answers."""
        number = len(self.prompts)
        self.prompts.append(prompt)
        kind = prompt_kind(prompt) or "other"
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.log.append(("start", kind, number))
        try:
            delay = self.delay(prompt) if callable(self.delay) else self.delay
            await asyncio.sleep(delay)
            texts = []
            for _ in range(n):
                text: Any = self.respond(prompt, self.answers)
                self.answers += 1
                if asyncio.iscoroutine(text):
                    text = await text
                texts.append(str(text))
        finally:
            self.in_flight -= 1
            self.log.append(("end", kind, number))
        return [Completion(t, Usage(_tokens(prompt), _tokens(t))) for t in texts]
