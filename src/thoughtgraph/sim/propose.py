"""How the simulated model answers `tune --propose`'s meta-prompt (tuning/propose.py).

The sim ignores wording: its slips follow the job it reads (task, kind, length), never the
instructions around it. So it cannot write a better prompt, and does not pretend to: it answers
with the current template and one instruction sentence of a fixed set put in front (drawn from
the call's seeded randomness), inside <template> tags. The feature then runs end to end on the
sim (calls, budget, choices, graph files) while the texts cannot change a score.
"""

from __future__ import annotations

import random

OPEN, CLOSE = "<current_template>", "</current_template>"
SENTENCES = (
    "Work carefully and check your answer before you reply.",
    "Read the whole input once before you start.",
    "Be exact: every item of the input matters.",
    "Take it one item at a time.",
    "Double-check the count of items in your answer.",
    "Answer in the requested format and nothing else.",
)


def is_meta_prompt(prompt: str) -> bool:
    return OPEN in prompt and CLOSE in prompt and "<template>" in prompt


def rewrite(prompt: str, rng: random.Random) -> str:
    """The current template with one sentence added, as a proposal."""
    current = prompt.split(OPEN, 1)[1].split(CLOSE, 1)[0].strip("\n")
    return f"<template>\n{rng.choice(SENTENCES)}\n{current}\n</template>"
