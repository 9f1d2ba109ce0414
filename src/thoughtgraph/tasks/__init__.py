"""Built-in tasks and the name registry (`get_task("sorting")`)."""

from __future__ import annotations

from thoughtgraph.errors import UnknownNameError
from thoughtgraph.tasks.base import BaseTask, ParseError, Task, check_task
from thoughtgraph.tasks.docmerge import DocMergeTask
from thoughtgraph.tasks.keywords import KeywordCountingTask
from thoughtgraph.tasks.sets import SetIntersectionTask, SetProblem
from thoughtgraph.tasks.sorting import SortingTask

TASKS: dict[str, type] = {
    "sorting": SortingTask,
    "set-intersection": SetIntersectionTask,
    "keyword-counting": KeywordCountingTask,
    "doc-merge": DocMergeTask,
}


def get_task(task: str | Task) -> Task:
    """A task by name, or the task object itself once `check_task` found it complete."""
    if not isinstance(task, str):
        return check_task(task)
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
    "check_task",
    "get_task",
]
