"""A problem's given reference (a data row's `reference`), passed as a value to what compares.

Two kinds of task take it. A task that reads references itself (`TakesReference`: a task file
scored against the reference) gets it in its problem (`attach_reference`), checked, and its
scorer and `matches_reference` use it there. For any other task the reference travels beside
the problem (`given_reference`: `PreparedRun.reference`, then `RunContext.reference`), and the
`ground_truth` op compares answers with it (`expected`) rather than with the task's own solver,
so a task without a solver can still be checked against its data.
"""

from __future__ import annotations

from typing import Any, cast

from thoughtgraph.conforms import conforms
from thoughtgraph.tasks.base import AnswerT, BaseTask, HasReference, ProblemT, TakesReference


def attach_reference(
    task: BaseTask[ProblemT, Any], problem: ProblemT, reference: object
) -> ProblemT:
    """`problem` carrying a data row's `reference` for a task that reads one (`TakesReference`);
    any other task's problem unchanged (the built-in tasks compute their own truth)."""
    if reference is None or not conforms(task, TakesReference):
        return problem
    carried: ProblemT = cast(TakesReference[ProblemT], task).with_reference(problem, reference)
    return carried


def given_reference(task: BaseTask[Any, AnswerT], reference: AnswerT | None) -> AnswerT | None:
    """The reference a run carries beside its problem: the row's, unless the task took it into
    the problem (`attach_reference`: then the problem carries it, and the task compares)."""
    return None if conforms(task, TakesReference) else reference


def can_check(task: object, reference: object) -> bool:
    """Can a `ground_truth` op judge this run: a reference given beside the problem, or the
    task's own solver (`HasReference`)?"""
    return reference is not None or conforms(task, HasReference)


def expected(
    task: BaseTask[ProblemT, AnswerT],
    problem: ProblemT,
    run_problem: ProblemT,
    reference: AnswerT | None,
) -> AnswerT | None:
    """The exact answer to `problem`: the given `reference` when `problem` is the run's own
    problem, else the task's own solver's (`HasReference`), else None."""
    if reference is not None and (problem is run_problem or problem == run_problem):
        return reference
    if not conforms(task, HasReference):
        return None
    own: AnswerT | None = cast(HasReference[ProblemT, AnswerT], task).reference(problem)
    return own


def answer_matches(
    task: BaseTask[ProblemT, AnswerT],
    problem: ProblemT,
    output: AnswerT | None,
    verdict: bool | None,
    reference: AnswerT,
) -> bool:
    """Does `output` answer the problem's `reference`: the ground_truth op's `verdict` when the
    graph had one, else the task's `matches_reference` (equality unless the task says
    otherwise: a task file's order and case rules, a set answer in any order)."""
    if verdict is not None:
        return bool(verdict)
    return bool(task.matches_reference(problem, output, reference))
