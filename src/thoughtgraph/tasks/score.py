"""`Score`: a judgement of an answer, the one type a task's `score` returns.

Why here and not beside the thoughts that carry it (`engine/state.py`): a task scores answers
without the engine, so the tasks, the engine and a user's own task all import it from here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Score:
    """A code (or model) judgement of a thought.

    In code, `value` is an error count, 0 is perfect. From the model scorer (`rated_by_model`),
    `value` is the model's rating (higher is better); `unrated` says no rating could be read
    from its replies, so `value` (0) is a placeholder that must not be reported as a rating.
    """

    value: float
    errors: tuple[str, ...] = ()
    rated_by_model: bool = False
    unrated: bool = False

    @property
    def perfect(self) -> bool:
        return self.value == 0 and not self.errors
