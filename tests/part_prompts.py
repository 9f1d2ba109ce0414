"""Got part prompts as thoughtgraph sends them, shared by the reader tests that read replies
to them (a reply's reading depends on its prompt: the format example, the part's input)."""

from __future__ import annotations

SET_PART = (
    "Solve this part of a larger task.\n<part>Set 1: [9, 22, 57, 5, 18]\nSet 2: [33, 18, 9]"
    "</part>\n\nReturn only the result for this part, in the format: a list of integers in"
    " square brackets, such as [3, 11, 14]"
)
