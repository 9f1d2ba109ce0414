"""Got part prompts as thoughtgraph sends them, shared by the reader tests that read replies
to them (a reply's reading depends on its prompt: the format example, the part's input)."""

from __future__ import annotations

SET_PART = (
    "Solve this part of a larger task.\n<part>Set 1: [9, 22, 57, 5, 18]\nSet 2: [33, 18, 9]"
    "</part>\n\nReturn only the result for this part, in the format: a list of integers in"
    " square brackets, such as [3, 11, 14]"
)


def sort_part(part: list[int]) -> str:
    """The spec's Part prompt for one part of a 16-number sorting problem."""
    return (
        "Solve this part of a larger task. Work only on the part below.\n\n<task>Sort a list of"
        f" 16 integers in ascending order.</task>\n<part>{part}</part>\n\nReturn only the result"
        " for this part, in the format: a list of integers in square brackets, ascending, such as"
        " [0, 1, 1, 4, 9]"
    )


SORT_PART = sort_part([7, 9, 4, 0, 1, 9, 3, 0])
COUNT_PART = (
    "Solve this part of a larger task.\n<part>Japan traded with China.</part>\n\nReturn only the"
    " result for this part, in the format: a JSON object mapping each country to its count, such"
    ' as {"Peru": 2, "Chile": 1}'
)
