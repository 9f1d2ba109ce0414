"""Built-in tasks and the name registry (`get_task("sorting")`)."""

from __future__ import annotations

from typing import Any

from thoughtgraph.tasks.base import BaseTask, FirstNumberScore, ParseError, Task
from thoughtgraph.tasks.docmerge import DocMergeTask
from thoughtgraph.tasks.duck import check_task
from thoughtgraph.tasks.keywords import KeywordCountingTask
from thoughtgraph.tasks.loading import load_task
from thoughtgraph.tasks.sets import SetIntersectionTask, SetProblem
from thoughtgraph.tasks.sorting import SortingTask

TASKS: dict[str, type[BaseTask[Any, Any]]] = {
    "sorting": SortingTask,
    "set-intersection": SetIntersectionTask,
    "keyword-counting": KeywordCountingTask,
    "doc-merge": DocMergeTask,
}


def get_task(task: str | Task[Any, Any]) -> BaseTask[Any, Any]:
    """A task by built-in name, task file path, `package.module:Class` import string or
    installed plugin name (tasks/loading.py), or the task object itself once `check_task` found
    it complete (one written from scratch with `BaseTask`'s defaults, tasks/duck.py). Every way
    it can fail is one `UnknownNameError` line."""
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
