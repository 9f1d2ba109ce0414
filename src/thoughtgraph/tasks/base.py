"""The task contract: what the engine needs to know about a problem to run a graph on it.

A task turns user input into a problem, describes it for the prompts, splits it into parts in
code, joins parts back (so a merge knows what it must cover), parses model answers and scores
them in code (the `Task` protocol, required). Everything else a task may say is declared here
too, once: an optional attribute or method with its default on `BaseTask`, or a capability
protocol a graph may need (checked before any call). Nothing reads a task by probing it. Sorting
is the first implementation; see docs/tasks.md for writing your own.
"""

from __future__ import annotations

import operator
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence, Sized
from dataclasses import replace
from typing import Any, Generic, Protocol, TypeVar, cast, runtime_checkable

from thoughtgraph.conforms import conforms
from thoughtgraph.errors import InputError, shown
from thoughtgraph.tasks.prompts import PromptTemplate
from thoughtgraph.tasks.score import Score


class ParseError(ValueError):
    """A model answer holds no usable result. The op turns it into a scored failure."""


ProblemT = TypeVar("ProblemT", bound=Sized)
"""A task's problem: whatever the task chooses, with a size (`len`: its items, sentences,
documents ...), which the engine checks and the schemes scale with."""
AnswerT = TypeVar("AnswerT")
"""A task's answer (the content of a thought): whatever the task's `parse` returns."""
ProblemIn = TypeVar("ProblemIn", bound=Sized, contravariant=True)
AnswerIn = TypeVar("AnswerIn", contravariant=True)
AnswerOut = TypeVar("AnswerOut", covariant=True)
ItemT = TypeVar("ItemT")

PaperConfig = dict[int, dict[str, dict[str, Any]]]
"""A task's schemes' options by input size, as `schemes.PAPER_CONFIG` holds them (option values
are the scheme functions' keyword arguments)."""


@runtime_checkable
class Task(Protocol[ProblemT, AnswerT]):
    """The required part of the contract: what a task written from scratch (no `BaseTask`)
    must have. `check_task` refuses an object that lacks any of these and gives one that is
    not a `BaseTask` the defaults of every optional hook (tasks/duck.py)."""

    name: str

    def parse_input(self, raw: object) -> ProblemT:
        """User input (text or object) -> problem. Raise `InputError` with one clear line."""

    def describe(self, problem: ProblemT) -> str:
        """The `{{task}}` text of the prompts."""

    def format(self) -> str:
        """The `{{format}}` text: how the model must write its answer."""

    def default_parts(self, problem: ProblemT) -> int:
        """How many parts `split` makes when the user does not say."""

    def split(self, problem: ProblemT, parts: int) -> list[ProblemT]:
        """Cut the problem into `parts` sub-problems, in code."""

    def join(self, problems: list[ProblemT]) -> ProblemT:
        """The problem that a merge of answers to `problems` must solve."""

    def render(self, value: ProblemT | AnswerT) -> str:
        """Show a sub-problem or a parsed answer inside a prompt."""

    def parse(self, text: str) -> AnswerT:
        """Model answer -> content. Raise `ParseError` when there is nothing usable."""

    def score(self, problem: ProblemT, content: AnswerT) -> Score:
        """Code check of `content` as an answer to `problem`: error count and actionable errors."""

    def score_unparsed(self, problem: ProblemT, reason: str) -> Score:
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
class ModelSplit(Protocol[ProblemT]):
    """`split` by the model: read the model's answer as `parts` pieces (raise `ParseError`);
    `parts_from_split` (a `BaseTask` hook: the pieces themselves by default) makes them the
    sub-problems (set intersection puts the first set back with every piece)."""

    def parse_split(self, text: str, parts: int) -> list[Any]: ...

    def parts_from_split(self, problem: ProblemT, pieces: list[Any]) -> list[ProblemT]: ...


@runtime_checkable
class ModelScore(Protocol):
    """The model scorer: one answer -> a number (`parse_score`); `combine_scores` (a `BaseTask`
    hook) combines the samples otherwise than by their mean."""

    def parse_score(self, text: str) -> float: ...

    def combine_scores(self, texts: list[str]) -> Score | None: ...


@runtime_checkable
class Validates(Protocol[ProblemIn, AnswerIn]):
    """Is an answer acceptable as it is? (`validate_and_improve`; default: a perfect score)."""

    def validate(self, problem: ProblemIn, content: AnswerIn) -> bool: ...


@runtime_checkable
class JoinsAnswers(Protocol[AnswerT]):
    """Answers joined in code, for a merge whose every attempt failed (default: lists, tuples
    and texts end to end). Never required: a merge without it falls back to the default."""

    def join_answers(self, contents: list[AnswerT]) -> AnswerT: ...


@runtime_checkable
class HasReference(Protocol[ProblemIn, AnswerOut]):
    """The exact answer, computed in code (`ground_truth` ops and tests; never used to choose)."""

    def reference(self, problem: ProblemIn) -> AnswerOut | None: ...


@runtime_checkable
class TakesReference(Protocol[ProblemT]):
    """A task whose score reads the row's reference answer (a task file scored `by:
    reference`): `with_reference` returns the problem carrying it, checked (one `InputError`
    for a reference that does not fit the task's answers)."""

    def with_reference(self, problem: ProblemT, reference: object) -> ProblemT: ...


CAPABILITIES: dict[type, str] = {
    FewShotPrompts: "its own prompts (prompts)",
    ModelSplit: "a reader for the model's split (parse_split)",
    ModelScore: "a reader for the model's score (parse_score)",
    Validates: "a validator (validate)",
    HasReference: "a reference solver (reference)",
}
"""Each optional capability a graph can need, as a refusal names it."""

OPTIONAL_HOOKS = (
    "score_name",
    "part_size",
    "unit_names",
    "rating_scale",
    "rating_note",
    "proxy_name",
    "proxy_note",
    "checks_in_code",
    "paper_config",
    "parse_reply",
    "brief",
    "unchecked",
    "parts_from_split",
    "combine_scores",
    "prompts",
    "parse_split",
    "parse_score",
    "validate",
    "join_answers",
    "reference",
    "with_reference",
    "matches_reference",
)
"""Every optional attribute and method of the contract: a default on `BaseTask`, or one of the
capabilities above. A task that is not a `BaseTask` keeps those it has (tasks/duck.py)."""


def lacks(task: object, capability: type) -> str | None:
    """What the task lacks for `capability` (one of the protocols above), or None."""
    return None if conforms(task, capability) else CAPABILITIES.get(capability, capability.__name__)


def own_prompts(task: object) -> Mapping[str, PromptTemplate]:
    """The task's own templates (`FewShotPrompts`), or none."""
    return cast(FewShotPrompts, task).prompts if conforms(task, FewShotPrompts) else {}


class BaseTask(ABC, Generic[ProblemT, AnswerT]):
    """The task contract in full: implement the abstract methods, inherit defaults for the
    other required ones (`parse_input`, `default_parts`, `split`, `join`, `render`,
    `score_unparsed`) and for every optional hook below. Every task the engine runs is one
    (`check_task` gives a task written from scratch these defaults, tasks/duck.py).

    It provides none of the optional capabilities: a subclass has `prompts`, `parse_split`,
    `parse_score`, `validate`, `join_answers`, `reference` or `with_reference` only when it
    defines them (or mixes in `FirstNumberScore`), so `check_graph` can refuse, before any call,
    a graph that needs one it lacks."""

    name: str = "task"

    # --- optional attributes: read where they are used, never probed --------------------------
    score_name: str = "errors"
    """What the score counts, in the CLI summary ("error scope" for sorting)."""
    part_size: int = 8
    """Items per part: `default_parts`, the spec's `got` of `schemes.build`, tune's part sizes."""
    part_count: int | None = None
    """A fixed number of parts (a task file's `split.parts`, never more than the items) in
    place of `part_size`'s: `default_parts` and the spec's `got` of `schemes.build` alike, so
    `solve` and `eval` run the same graph."""
    unit_names: str = "items"
    """What the problem's items are called, plural: the solve header's "4 paragraphs"."""
    rating_scale: int = 10
    """A model scorer's ratings go from 0 to this (a graph that rates with the model)."""
    rating_note: str = "the model's rating of the final answer"
    """What the model's rating measures, one sentence for eval summaries and figures."""
    proxy_name: str = "code check errors"
    """The code score's name beside a model's rating, in eval summaries."""
    proxy_note: str = "the task's check in code (lower is better)"
    """What the code score checks, beside a model's rating, in eval summaries."""
    checks_in_code: bool = True
    """Does code check anything of an answer? False (a task file's free text rated by the
    model): `tune` holds `got`'s regenerations, extra merges and refines at 0."""
    paper_config: PaperConfig | None = None
    """The schemes' options by size for a task that is not built in (`schemes.paper_options`);
    None: the schemes' own defaults."""

    # --- required methods: the abstract ones and their defaults ------------------------------
    def parse_input(self, raw: object) -> ProblemT:
        return cast(ProblemT, raw)  # the default takes the input as the problem, unread

    @abstractmethod
    def describe(self, problem: ProblemT) -> str: ...

    @abstractmethod
    def format(self) -> str: ...

    def default_parts(self, problem: ProblemT) -> int:
        return parts_at(self, len(problem))

    def split(self, problem: ProblemT, parts: int) -> list[ProblemT]:
        """Contiguous chunks of near-equal size (sizes differ by at most one): the default for a
        problem that is a list or a tuple (any other shape defines its own)."""
        return cast(list[ProblemT], chunks(cast(Sequence[object], problem), parts))

    def join(self, problems: list[ProblemT]) -> ProblemT:
        """The problems end to end (`+`): the default for lists, tuples and texts."""
        joined: object = cast(Sequence[object], problems[0])[:0]
        for problem in problems:
            joined = operator.add(joined, problem)
        return cast(ProblemT, joined)

    def render(self, value: ProblemT | AnswerT) -> str:
        return str(value)

    @abstractmethod
    def parse(self, text: str) -> AnswerT: ...

    @abstractmethod
    def score(self, problem: ProblemT, content: AnswerT) -> Score: ...

    def score_unparsed(self, problem: ProblemT, reason: str) -> Score:
        return Score(float(len(problem) + 1), (reason,))

    # --- optional methods: called wherever they apply, each default is the plain behaviour ---
    def parse_reply(self, text: str, problem: ProblemT | None, prompt: str) -> AnswerT:
        """A model answer -> content, knowing the problem and the prompt that asked for it
        (None and "" when unknown): a candidate that merely repeats the prompt (its format
        example, an example, the input) is a poor choice (tasks/answers.py). Every answer of a
        run is read through this; the default is `parse(text)`."""
        return self.parse(text)

    def brief(self, value: ProblemT | AnswerT) -> str:
        """A code thought's content as traces and the viewer show it (prompts `render` it anew):
        a set-intersection part names its first set by size. Default: `render(value)`."""
        return self.render(value)

    def unchecked(self, problem: ProblemT) -> str | None:
        """Why an answer to `problem` cannot be fully checked in code (a reference-scored task
        file's row without a reference): `solve` prints it as a note, `eval` refuses the data.
        Default None: the score checks everything."""
        return None

    def parts_from_split(self, problem: ProblemT, pieces: list[Any]) -> list[ProblemT]:
        """The sub-problems for the pieces `parse_split` read from a model's split (`ModelSplit`).
        Default: the pieces themselves."""
        return pieces

    def matches_reference(
        self, problem: ProblemT, content: AnswerT | None, reference: AnswerT | None = None
    ) -> bool | None:
        """Is `content` a right answer to `problem`, whose expected answer is `reference`? This
        decides `solved` everywhere (the `ground_truth` op, `solve`'s "output matches the
        reference", eval's rows and `tune`'s measure). A task whose right answers are not one
        value says so here: a set answer in any order, a sorted list with the same items. None:
        unknown (no reference). Default: equality. A task that reads the reference from its
        problem (`TakesReference`: a task file, by its case and order rules) may ignore
        `reference`."""
        if reference is None:
            return None
        return content is not None and bool(content == reference)

    def combine_scores(self, texts: list[str]) -> Score | None:
        """The model scorer's samples (`ModelScore`) -> one `Score`; document merging averages
        two numbers separately and takes their harmonic mean. Default None: the mean of the
        ratings `parse_score` reads."""
        return None


def chunks(items: Sequence[ItemT], parts: int) -> list[Sequence[ItemT]]:
    """`items` cut into `parts` contiguous chunks of near-equal size (each a slice: a list of a
    list, a tuple of a tuple)."""
    check_parts(parts, len(items))
    size, extra = divmod(len(items), parts)
    pieces, start = [], 0
    for index in range(parts):
        end = start + size + (1 if index < extra else 0)
        pieces.append(items[start:end])
        start = end
    return pieces


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
    combined = task.combine_scores(list(texts))
    score = combined if combined is not None else mean_score(task, texts)
    return replace(score, rated_by_model=True)


def model_split(
    task: ModelSplit[ProblemT], problem: ProblemT, text: str, parts: int
) -> list[ProblemT]:
    """A model's split answer -> sub-problems (`parse_split`, then `parts_from_split`)."""
    return task.parts_from_split(problem, task.parse_split(text, parts))


def check_parts(parts: int, size: int) -> None:
    """`parts` is a whole number from 1 to the problem's `size`, or one `InputError` line."""
    if not isinstance(parts, int) or isinstance(parts, bool):
        raise InputError(f"parts must be an integer, got {shown(parts)}")
    if parts < 1:
        raise InputError(f"parts must be at least 1, got {parts}")
    if parts > size:
        raise InputError(f"parts ({parts}) cannot exceed the number of input items ({size})")


def parts_at(task: object, size: int) -> int:
    """The default parts of a problem of `size` items: the task's `part_count` (at most
    `size`), else `size` in parts of its `part_size` (8 when it says none)."""
    count = getattr(task, "part_count", None)
    if isinstance(count, int) and count >= 1:
        return max(1, min(size, count))
    part_size = getattr(task, "part_size", None)
    if not isinstance(part_size, int) or part_size < 1:
        part_size = BaseTask.part_size
    return max(1, -(-size // part_size))
