"""A task's `score` called where a user's code runs: a scorer that raises (a task class's
`score`, a task file's `score.function`) or returns what is not a `Score` stops the run with
one line naming the scorer's `file:line` (`ScorerFailed`), never a traceback, and `eval` adds
the row and the scheme it was scoring.

Why stop rather than give the answer a worst score: a scorer that fails is a bug in the user's
code, and a run that went on would report it as the model's errors in every figure.
"""

from __future__ import annotations

import os
import traceback
from pathlib import Path
from typing import Any

from thoughtgraph.errors import InputError, ThoughtgraphError
from thoughtgraph.io.imports import first_line
from thoughtgraph.tasks.base import BaseTask
from thoughtgraph.tasks.score import Score

_PACKAGE = Path(__file__).resolve().parents[1]  # thoughtgraph's own source


class ScorerFailed(InputError):
    """A task's scorer raised, or returned what is not a `Score`: one line naming its
    `file:line` (in an evaluation, the row and the scheme too). An `InputError`: the task is
    the user's."""


def scored(task: BaseTask[Any, Any], problem: object, content: object) -> Score:
    """`task.score(problem, content)`; what fails in it is one `ScorerFailed` line."""
    try:
        score = task.score(problem, content)
    except ThoughtgraphError:  # the task's own one line (a task file's checks of its function)
        raise
    except Exception as exc:
        raise ScorerFailed(
            f"the score of task {task.name!r} raised {first_line(exc)} ({raised_at(exc)})"
        ) from None
    if not isinstance(score, Score):
        raise ScorerFailed(
            f"the score of task {task.name!r} returned {type(score).__name__}, not a "
            "thoughtgraph Score"
        )
    return score


def raised_at(exc: BaseException) -> str:
    """Where the user's code raised `exc`, as `file:line`: in the first file outside
    thoughtgraph the traceback enters (the scorer's), the last line it passed through there (a
    helper of the scorer's own file included, a library it calls not); the innermost line when
    every frame is thoughtgraph's."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "line unknown"
    outside = [frame for frame in frames if not _ours(frame.filename)]
    chosen = frames[-1]
    if outside:
        chosen = [frame for frame in outside if frame.filename == outside[0].filename][-1]
    return f"{_shown_path(chosen.filename)}:{chosen.lineno}"


def _ours(filename: str) -> bool:
    return Path(filename).resolve().is_relative_to(_PACKAGE)


def _shown_path(filename: str) -> str:
    """A file under the current directory by its path from there, any other as it is."""
    path = Path(filename).resolve()
    return os.path.relpath(path) if path.is_relative_to(Path.cwd().resolve()) else filename
