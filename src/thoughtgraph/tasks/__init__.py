"""Built-in tasks and the name registry (`get_task("sorting")`)."""

from __future__ import annotations

from thoughtgraph.tasks.base import BaseTask, FirstNumberScore, ParseError, Task, check_task
from thoughtgraph.tasks.docmerge import DocMergeTask
from thoughtgraph.tasks.keywords import KeywordCountingTask
from thoughtgraph.tasks.loading import load_task
from thoughtgraph.tasks.sets import SetIntersectionTask, SetProblem
from thoughtgraph.tasks.sorting import SortingTask

TASKS: dict[str, type[BaseTask]] = {
    "sorting": SortingTask,
    "set-intersection": SetIntersectionTask,
    "keyword-counting": KeywordCountingTask,
    "doc-merge": DocMergeTask,
}


def get_task(task: str | Task) -> Task:
    """A task by built-in name, task file path, `package.module:Class` import string or
    installed plugin name (tasks/loading.py), or the task object itself once `check_task` found
    it complete. Every way it can fail is one `UnknownNameError` line."""
    if not isinstance(task, str):
        return check_task(task)
    return load_task(task, TASKS)


__all__ = [
    "TASKS",
    "BaseTask",
    "DocMergeTask",
    "FirstNumberScore",
    "KeywordCountingTask",
    "ParseError",
    "SetIntersectionTask",
    "SetProblem",
    "SortingTask",
    "Task",
    "check_task",
    "get_task",
]
