"""Errors thoughtgraph raises on purpose.

Every error a user can cause (bad input, an invalid graph, an unknown task or model) is a
`ThoughtgraphError`, so the CLI can print its message as one line and exit 2 instead of a traceback.
"""

from __future__ import annotations

import reprlib
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
    """A budget cap (e.g. max_requests) forbids the next request."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped `solve`: still a `KeyboardInterrupt`, and `result` holds the run so far
    (stop reason "interrupted", status "not clean"), so nothing paid is lost from view."""

    def __init__(self, result: Any) -> None:
        super().__init__("interrupted")
        self.result = result


SHOWN_CHARS = 80


class _Bounded(reprlib.Repr):
    """`reprlib` with room for a readable line, and integers too long for `repr` (Python
    refuses more than 4300 digits) named by their size instead."""

    def __init__(self) -> None:
        super().__init__()
        self.maxstring = self.maxother = self.maxlong = SHOWN_CHARS
        self.maxlevel = 3

    def repr_int(self, x: int, level: int) -> str:
        digits = x.bit_length() * 30103 // 100000 + 1  # log10(2) without converting
        if digits > 40:
            return f"<an integer of about {digits} digits>"
        return repr(x)


_BOUNDED = _Bounded()


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """`value` as an error message quotes it: its repr, at most `limit` characters.

    Every error that can hold user data (a file's value, a typed option) quotes it through
    here: a repr of a user's object is unbounded (a YAML alias chain expands to gigabytes, a
    5000-digit integer cannot be repr'd at all), and one error line must stay one line.
    `reprlib` stops at a few items and levels, so the work is bounded too, not just the text.
    """
    text = _BOUNDED.repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
