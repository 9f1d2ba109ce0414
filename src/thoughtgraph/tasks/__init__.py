"""Built-in tasks and the name registry (`get_task("sorting")`)."""

from __future__ import annotations

from ..errors import UnknownNameError
from .base import BaseTask, ParseError, Task
from .docmerge import DocMergeTask
from .keywords import KeywordCountingTask
from .sets import SetIntersectionTask, SetProblem
from .sorting import SortingTask

TASKS: dict[str, type] = {
    "sorting": SortingTask,
    "set-intersection": SetIntersectionTask,
    "keyword-counting": KeywordCountingTask,
    "doc-merge": DocMergeTask,
}


def get_task(task: str | Task) -> Task:
    """A task by name, or the task object itself."""
    if not isinstance(task, str):
        missing = [
            m
            for m in ("parse_input", "describe", "format", "parse", "score")
            if not callable(getattr(task, m, None))
        ]
        if missing:
            raise UnknownNameError(
                f"not a task: {type(task).__name__} lacks {', '.join(missing)} "
                "(give a task name or a Task object)"
            )
        return task
    try:
        return TASKS[task.strip().lower()]()
    except KeyError:
        raise UnknownNameError(
            f"unknown task {task!r} (known: {', '.join(sorted(TASKS))})"
        ) from None


__all__ = [
    "TASKS",
    "BaseTask",
    "DocMergeTask",
    "KeywordCountingTask",
    "ParseError",
    "SetIntersectionTask",
    "SetProblem",
    "SortingTask",
    "Task",
    "get_task",
]
