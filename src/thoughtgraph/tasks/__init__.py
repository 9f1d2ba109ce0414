"""The Task contract, the built-in tasks and `get_task` (tasks/loading.py), re-exported."""

from __future__ import annotations

from thoughtgraph.tasks.base import BaseTask, FirstNumberScore, ParseError, Task
from thoughtgraph.tasks.docmerge import DocMergeTask
from thoughtgraph.tasks.keywords import KeywordCountingTask
from thoughtgraph.tasks.loading import TASKS, check_task, get_task
from thoughtgraph.tasks.sets import SetIntersectionTask, SetProblem
from thoughtgraph.tasks.sorting import SortingTask

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
