"""A thought: one node of the graph of thoughts, immutable plain data.

Apart from the run state (`state.py`) so the modules that only read thoughts (the volume and
latency metrics, the op kinds' records) need nothing else of the run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from thoughtgraph.io.bounds import clip_text
from thoughtgraph.records import quick_init
from thoughtgraph.tasks.score import Score


@quick_init
@dataclass(frozen=True, slots=True)
class Thought:
    """One node of the graph of thoughts: an input, a part, a model answer or a code result."""

    id: str
    op_id: str
    kind: str  # "input", "split", "part", "merge", "refine", ... (the op kind or prompt kind)
    content: Any  # parsed content (task specific), None when the answer could not be parsed
    text: str  # the model's raw answer, or the rendered content for code-made thoughts
    problem: Any = None  # the sub-problem this thought answers (used to score it)
    parents: tuple[str, ...] = ()
    previous_attempt: str | None = None
    attempt: int = 1
    score: Score | None = None
    valid: bool = True  # False when the answer could not be parsed or failed validation
    validated: bool = False  # True once a validate op checked it
    solved: bool | None = None  # set by ground_truth: equal to the task's reference answer
    prompt: str | None = None
    call_id: str | None = None
    round: int = 0  # model rounds on the critical path until this thought existed
    kept: bool = True  # False for attempts that lost to a better one

    @property
    def error_count(self) -> float | None:
        return None if self.score is None else self.score.value

    def with_score(self, score: Score | None) -> Thought:
        return replace(self, score=score)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Thought:
        data = dict(data)
        value, errors = data.pop("score"), data.pop("errors", [])
        data.pop("volume", None), data.pop("latency", None)
        data["parents"] = tuple(data.get("parents", ()))
        score = None if value is None else Score(value, tuple(errors))
        return cls(**data, score=score)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["parents"] = list(self.parents)
        data["score"] = None if self.score is None else self.score.value
        data["errors"] = [] if self.score is None else list(self.score.errors)
        data["text"] = clip_text(self.text)
        return data
