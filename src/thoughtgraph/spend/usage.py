"""Tokens: what one request (or one answer) used, and what it is expected to use before it is
sent.

`Usage` is plain data with no dependency on the engine, so models, tasks and the engine all
import it from here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


NO_USAGE = Usage()


def usage_of(prompt_tokens: int, completion_tokens: int) -> Usage:
    """A `Usage`, the zero one shared: every call of a simulated or cached run records two
    (usage and saved), and they are frozen."""
    if prompt_tokens == 0 and completion_tokens == 0:
        return NO_USAGE
    return Usage(prompt_tokens, completion_tokens)


def estimate_tokens(prompt: str, n: int, max_tokens: int | None) -> Usage:
    """What a request is expected to cost before it is sent (prompt at 4 characters a token)."""
    return Usage(math.ceil(len(prompt) / 4), n * (max_tokens or 0))
