"""A task written from scratch, checked once and given the contract's defaults once.

docs/tasks.md promises that any object with the `Task` protocol's methods is a task, whether or
not it subclasses `BaseTask`. The engine, though, reads every optional hook directly
(`task.score_name`, `task.parse_reply(...)`), which only a `BaseTask` has. So `check_task`
(tasks/loading.py), where every task object enters (`get_task`), refuses an incomplete one
with one line and wraps one that is not a `BaseTask` in a `DuckTask` (this module): the
object's own required methods, its own optional hooks where it has them (read here, once) and
`BaseTask`'s defaults for the others.
"""

from __future__ import annotations

from thoughtgraph.tasks.base import OPTIONAL_HOOKS, AnswerT, BaseTask, ProblemT, Task
from thoughtgraph.tasks.score import Score


class DuckTask(BaseTask[ProblemT, AnswerT]):
    """A `Task` that is not a `BaseTask`, as one: its required methods are the object's, each
    optional hook the object's own when it has one (a capability only then, so a graph that
    needs one it lacks is still refused), else `BaseTask`'s default."""

    def __init__(self, task: Task[ProblemT, AnswerT]) -> None:
        self.task = task
        self.name = task.name
        for hook in OPTIONAL_HOOKS:  # the one read of what the object offers
            own = getattr(task, hook, None)
            if own is not None:
                setattr(self, hook, own)

    def parse_input(self, raw: object) -> ProblemT:
        return self.task.parse_input(raw)

    def describe(self, problem: ProblemT) -> str:
        return self.task.describe(problem)

    def format(self) -> str:
        return self.task.format()

    def default_parts(self, problem: ProblemT) -> int:
        return self.task.default_parts(problem)

    def split(self, problem: ProblemT, parts: int) -> list[ProblemT]:
        return self.task.split(problem, parts)

    def join(self, problems: list[ProblemT]) -> ProblemT:
        return self.task.join(problems)

    def render(self, value: ProblemT | AnswerT) -> str:
        return self.task.render(value)

    def parse(self, text: str) -> AnswerT:
        return self.task.parse(text)

    def score(self, problem: ProblemT, content: AnswerT) -> Score:
        return self.task.score(problem, content)

    def score_unparsed(self, problem: ProblemT, reason: str) -> Score:
        return self.task.score_unparsed(problem, reason)

    def __repr__(self) -> str:
        return f"DuckTask({self.task!r})"
