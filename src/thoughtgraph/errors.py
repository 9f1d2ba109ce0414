"""Errors thoughtgraph raises on purpose.

Every error a user can cause (bad input, an invalid graph, an unknown task or model) is a
`ThoughtgraphError`, so the CLI can print its message as one line and exit 2 instead of a traceback.
"""

from __future__ import annotations

from typing import Any


class ThoughtgraphError(Exception):
    """Base class: a problem the user can fix; its message is one readable line."""


class InputError(ThoughtgraphError, ValueError):
    """The problem input (or an option about it) is malformed."""


class GraphError(ThoughtgraphError):
    """A graph of operations is invalid (cycle, unknown input, duplicate id, unknown kind...)."""


class UnknownNameError(ThoughtgraphError, LookupError):
    """An unknown task, model, scheme or dataset name."""


class ModelError(ThoughtgraphError):
    """A model call failed in a way the op may retry (timeout, malformed answer, server error)."""


class FatalModelError(ThoughtgraphError):
    """A model failure that must stop the run (rejected key, unreachable endpoint, bad request).

    When `solve` raises it, the run has already stopped cleanly and `result` holds the run so
    far (best thought, every call, status "not clean"), so no paid answer is lost.
    """

    result: Any = None


class BudgetExhausted(ThoughtgraphError):
    """A budget cap (e.g. max_calls) forbids the next model call."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped `solve`: still a `KeyboardInterrupt`, and `result` holds the run so far
    (stop reason "interrupted", status "not clean"), so nothing paid is lost from view."""

    def __init__(self, result: Any) -> None:
        super().__init__("interrupted")
        self.result = result
