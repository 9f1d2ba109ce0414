"""`Score`: a judgement of an answer, the one type a task's `score` returns.

Why here and not beside the thoughts that carry it (`engine/state.py`): a task scores answers
without the engine, so the tasks, the engine and a user's own task all import it from here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Score:
    """A code (or model) judgement of a thought: `value` is an error count, 0 is perfect."""

    value: float
    errors: tuple[str, ...] = ()

    @property
    def perfect(self) -> bool:
        return self.value == 0 and not self.errors
