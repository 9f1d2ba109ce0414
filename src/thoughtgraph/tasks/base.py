"""The `Task` protocol: what the engine needs to know about a problem to run a graph on it.

A task turns user input into a problem, describes it for the prompts, splits it into parts in
code, joins parts back (so a merge knows what it must cover), parses model answers and scores
them in code. Sorting is the first implementation; see docs/tasks.md for writing your own.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Protocol, cast, runtime_checkable

from thoughtgraph.errors import InputError, UnknownNameError, shown
from thoughtgraph.tasks.prompts import PromptTemplate
from thoughtgraph.tasks.score import Score


class ParseError(ValueError):
    """A model answer holds no usable result. The op turns it into a scored failure."""


@runtime_checkable
class Task(Protocol):
    """Everything task-specific the engine needs for every run. `problem` and `content` are
    whatever types the task chooses. `check_task` refuses an object that lacks any of these."""

    name: str

    def parse_input(self, raw: Any) -> Any:
        """User input (text or object) -> problem. Raise `InputError` with one clear line."""

    def describe(self, problem: Any) -> str:
        """The `{{task}}` text of the prompts."""

    def format(self) -> str:
        """The `{{format}}` text: how the model must write its answer."""

    def default_parts(self, problem: Any) -> int:
        """How many parts `split` makes when the user does not say."""

    def split(self, problem: Any, parts: int) -> list[Any]:
        """Cut the problem into `parts` sub-problems, in code."""

    def join(self, problems: list[Any]) -> Any:
        """The problem that a merge of answers to `problems` must solve."""

    def render(self, value: Any) -> str:
        """Show a sub-problem or a parsed answer inside a prompt."""

    def parse(self, text: str) -> Any:
        """Model answer -> content. Raise `ParseError` when there is nothing usable."""

    def score(self, problem: Any, content: Any) -> Score:
        """Code check of `content` as an answer to `problem`: error count and actionable errors."""

    def score_unparsed(self, problem: Any, reason: str) -> Score:
        """The score of an answer that could not be parsed: worse than any parsed answer."""


REQUIRED_METHODS = (
    "parse_input",
    "describe",
    "format",
    "default_parts",
    "split",
    "join",
    "render",
    "parse",
    "score",
    "score_unparsed",
)
"""The methods of `Task`, checked once by `check_task` (`get_task`) before anything runs."""


# --- optional capabilities: a graph that needs one the task lacks is refused before any call ---
@runtime_checkable
class FewShotPrompts(Protocol):
    """The task's own templates by name (`io`, `cot`, `improve`, `split`, ...)."""

    prompts: Mapping[str, PromptTemplate]


@runtime_checkable
class ModelSplit(Protocol):
    """`split` by the model: read the model's answer as `parts` pieces (raise `ParseError`).

    A task may add `parts_from_split(problem, pieces)` when its sub-problems need more than the
    pieces (set intersection); `model_split` uses it when present.
    """

    def parse_split(self, text: str, parts: int) -> list[Any]: ...


@runtime_checkable
class ModelScore(Protocol):
    """The model scorer: one answer -> a number. A task may add `combine_scores(texts) -> Score`
    to combine the samples otherwise than by their mean (`model_score` uses it when present; an
    unreadable set of replies: `unrated(texts)`), `rating_scale` (ratings go 0..scale, default
    10) and `rating_note` (one sentence saying what the rating measures, for eval summaries)."""

    def parse_score(self, text: str) -> float: ...


@runtime_checkable
class Validates(Protocol):
    """Is an answer acceptable as it is? (`validate_and_improve`; default: a perfect score)."""

    def validate(self, problem: Any, content: Any) -> bool: ...


@runtime_checkable
class JoinsAnswers(Protocol):
    """Answers joined in code, for a merge whose every attempt failed (default: lists, tuples
    and texts end to end). Never required: a merge without it falls back to the default."""

    def join_answers(self, contents: list[Any]) -> Any: ...


@runtime_checkable
class HasReference(Protocol):
    """The exact answer, computed in code (`ground_truth` ops and tests; never used to choose)."""

    def reference(self, problem: Any) -> Any: ...


@runtime_checkable
class TakesReference(Protocol):
    """A task whose score reads the row's reference answer (a task file scored `by:
    reference`): `with_reference` returns the problem carrying it, checked (one `InputError`
    for a reference that does not fit the task's answers)."""

    def with_reference(self, problem: Any, reference: Any) -> Any: ...


def attach_reference(task: Task, problem: Any, reference: Any) -> Any:
    """`problem` carrying a data row's `reference` for a task that reads one (`TakesReference`);
    any other task's problem unchanged (the built-in tasks compute their own truth)."""
    if reference is None or not isinstance(task, TakesReference):
        return problem
    return task.with_reference(problem, reference)


def check_task(task: object) -> Task:
    """`task` as a `Task`, or one `UnknownNameError` line naming every missing method.

    Checked once, before any call, so that a user's task never fails half-way through a paid run
    with a raw `AttributeError`.
    """
    missing = [m for m in REQUIRED_METHODS if not callable(getattr(task, m, None))]
    if not isinstance(getattr(task, "name", None), str):
        missing.insert(0, "name")
    if missing:
        raise UnknownNameError(
            f"not a task: {type(task).__name__} lacks {', '.join(missing)} "
            "(give a task name or a Task object; subclass thoughtgraph.BaseTask for defaults)"
        )
    return cast(Task, task)


CAPABILITIES: dict[type, str] = {
    FewShotPrompts: "its own prompts (prompts)",
    ModelSplit: "a reader for the model's split (parse_split)",
    ModelScore: "a reader for the model's score (parse_score)",
    Validates: "a validator (validate)",
    HasReference: "a reference solver (reference)",
}
"""Each optional capability, as a refusal names it."""


def lacks(task: Task, capability: type) -> str | None:
    """What the task lacks for `capability` (one of the protocols above), or None."""
    return (
        None if isinstance(task, capability) else CAPABILITIES.get(capability, capability.__name__)
    )


def score_name(task: Task) -> str:
    """What the task's score counts, for summaries (optional attribute; default "errors")."""
    name = getattr(task, "score_name", None)
    return name if isinstance(name, str) and name else "errors"


class BaseTask(ABC):
    """Convenient base class: implement the abstract methods, inherit defaults for the other
    required ones (`parse_input`, `default_parts`, `split`, `join`, `render`, `score_unparsed`).

    It provides none of the optional capabilities: a subclass has `prompts`, `parse_split`,
    `parse_score`, `validate` or `reference` only when it defines them (or mixes in
    `FirstNumberScore`), so `check_graph` can refuse, before any call, a graph that needs one it
    lacks."""

    name: str = "task"
    score_name: str = "errors"  # what the score counts, for summaries ("error scope" for sorting)
    part_size: int = 8

    def parse_input(self, raw: Any) -> Any:
        return raw

    @abstractmethod
    def describe(self, problem: Any) -> str: ...

    @abstractmethod
    def format(self) -> str: ...

    def default_parts(self, problem: Any) -> int:
        return max(1, -(-len(problem) // self.part_size))

    def split(self, problem: Any, parts: int) -> list[Any]:
        """Contiguous chunks of near-equal size (sizes differ by at most one)."""
        check_parts(parts, len(problem))
        size, extra = divmod(len(problem), parts)
        chunks, start = [], 0
        for index in range(parts):
            end = start + size + (1 if index < extra else 0)
            chunks.append(problem[start:end])
            start = end
        return chunks

    def join(self, problems: list[Any]) -> Any:
        joined = problems[0][:0]
        for problem in problems:
            joined = joined + problem
        return joined

    def render(self, value: Any) -> str:
        return str(value)

    @abstractmethod
    def parse(self, text: str) -> Any: ...

    @abstractmethod
    def score(self, problem: Any, content: Any) -> Score: ...

    def score_unparsed(self, problem: Any, reason: str) -> Score:
        return Score(float(len(problem) + 1), (reason,))


class FirstNumberScore:
    """The model-scorer capability (`ModelScore`) for a task whose scorer answers with one
    number: the first number in the answer; the samples' mean is the score. Mix it in
    (`class MyTask(FirstNumberScore, BaseTask)`) to score by a model; a task with another rule
    writes its own `parse_score` (and `combine_scores`) instead."""

    def parse_score(self, text: str) -> float:
        """A model scorer's answer -> a number (the first number in the text)."""
        match = re.search(r"-?\d+(?:\.\d+)?", text)
        if not match:
            raise ParseError("the score answer holds no number")
        return float(match.group(0))


def mean_score(task: ModelScore, texts: list[str] | tuple[str, ...]) -> Score:
    """The mean of the samples `task.parse_score` can read; unreadable samples are skipped."""
    values = []
    for text in texts:
        try:
            values.append(float(task.parse_score(text)))
        except (ParseError, ValueError, TypeError):
            continue
    if not values:
        return unrated(texts)
    return Score(sum(values) / len(values))


def unrated(texts: list[str] | tuple[str, ...]) -> Score:
    """The model scorer's score when no reply held a readable rating (or none arrived)."""
    why = "no rating arrived" if not texts else "the model's score could not be parsed"
    return Score(0.0, (why,), rated_by_model=True, unrated=True)


def model_score(task: ModelScore, texts: list[str] | tuple[str, ...]) -> Score:
    """What the model scorer op records: the task's `combine_scores`, else the mean; marked as
    the model's rating (`rated_by_model`), and `unrated` when no reply arrived at all."""
    if not texts:
        return unrated(texts)
    combine = getattr(task, "combine_scores", None)
    score = combine(list(texts)) if combine is not None else mean_score(task, texts)
    return replace(score, rated_by_model=True)


def parse_answer(task: Any, text: str, problem: Any, prompt: str) -> Any:
    """A model answer -> content. A task may define `parse_reply(text, problem, prompt)` to see
    the prompt too: a candidate that merely repeats the prompt (its format example, an example,
    the input) is a poor choice (tasks/answers.py). Otherwise `parse(text)`."""
    parse_reply = getattr(task, "parse_reply", None)
    return parse_reply(text, problem, prompt) if parse_reply is not None else task.parse(text)


def model_split(task: ModelSplit, problem: Any, text: str, parts: int) -> list[Any]:
    """A model's split answer -> sub-problems (`parse_split`, then `parts_from_split`)."""
    pieces = task.parse_split(text, parts)
    rebuild = getattr(task, "parts_from_split", None)
    return rebuild(problem, pieces) if rebuild is not None else pieces


def check_parts(parts: int, size: int) -> None:
    if not isinstance(parts, int) or isinstance(parts, bool):
        raise InputError(f"parts must be an integer, got {shown(parts)}")
    if parts < 1:
        raise InputError(f"parts must be at least 1, got {parts}")
    if parts > size:
        raise InputError(f"parts ({parts}) cannot exceed the number of input items ({size})")
