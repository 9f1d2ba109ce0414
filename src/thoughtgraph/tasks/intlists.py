"""How a list of integers is written in prompts and answers: `[1, 2, 3]`.

One writer for the sorting and set-intersection tasks, their prompts' examples and the simulated
model's answers, so they all write a list the same way. Why a table: a 32,768-number sorting run
writes every number once per merge level (the merge prompts show their parents' lists, and the
simulated model answers with them), and looking small numbers up as text is 3-4 times faster
than turning each into a new string.
"""

from __future__ import annotations

from collections.abc import Iterable

_TEXT = {n: str(n) for n in range(-256, 1024)}  # what `str` writes for each small integer
_LOOKUP = _TEXT.__getitem__  # bound once: most lists are short (a part's 8 numbers)


def show_ints(items: Iterable[int]) -> str:
    """`[1, 2, 3]`: the integers as `str` writes them, parted by ", ", in brackets (a value
    equal to a small integer, such as `True`, is written as that integer)."""
    if not isinstance(items, (list, tuple)):  # (a tuple of types: faster than list | tuple)
        items = list(items)  # read twice below when a number is outside the table
    try:
        return f"[{', '.join(map(_LOOKUP, items))}]"
    except KeyError:  # a number outside the table
        return f"[{', '.join(map(str, items))}]"
