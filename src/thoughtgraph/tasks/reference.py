"""A problem's given reference (a data row's `reference`), for one run.

Two kinds of task take it. A task that reads references itself (`TakesReference`: a task file
scored against the reference) gets it in its problem (`tasks.base.attach_reference`), checked,
and its scorer and `matches_reference` use it. For any other task `with_reference` below binds
it to the task for the run: the `ground_truth` op then compares the answer with the row's
reference (`solved`) rather than the task's own solver, so a task without a solver can still be
checked against its data.
"""

from __future__ import annotations

from typing import Any

from thoughtgraph.tasks.base import TakesReference, Task


def reads_references(task: Any) -> bool:
    """Does the task take a reference into its problem (`TakesReference`)?"""
    return isinstance(task, TakesReference)


class ReferencedTask:
    """The task, with `reference(problem)` answering the row's reference for the run's problem
    (any other problem: the task's own solver, if it has one). Everything else is the task's."""

    def __init__(self, task: Task, problem: Any, reference: Any) -> None:
        self._task = task
        self._problem = problem
        self._reference = reference

    @property
    def name(self) -> str:
        return self._task.name

    def reference(self, problem: Any) -> Any:
        if problem is self._problem or problem == self._problem:
            return self._reference
        own = getattr(self._task, "reference", None)
        return None if own is None else own(problem)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._task, name)

    def __repr__(self) -> str:
        return f"ReferencedTask({self._task!r})"


def with_reference(task: Task, problem: Any, reference: Any) -> Task:
    """The task to run `problem` with, given its reference (None, or a task that reads
    references into its problem: the task as it is)."""
    if reference is None or reads_references(task):
        return task
    return ReferencedTask(task, problem, reference)  # type: ignore[return-value]


def answer_matches(
    task: Any, problem: Any, output: Any, verdict: bool | None, reference: Any
) -> bool:
    """Does `output` answer the problem's `reference`: the ground_truth op's `verdict` when the
    graph had one, else the task's own comparison (`matches_reference(problem, output)`: a task
    file's order and case rules), else equality."""
    if verdict is not None:
        return bool(verdict)
    matches = getattr(task, "matches_reference", None)
    if matches is not None and output is not None:
        found = matches(problem, output)
        if found is not None:
            return bool(found)
    return bool(output == reference)
