"""Tokens: what one request (or one answer) used, and what it is expected to use before it is
sent.

`Usage` is plain data with no dependency on the engine, so models, tasks and the engine all
import it from here.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from thoughtgraph.records import quick_init


@quick_init
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


TOKENIZER_ENCODING = "o200k_base"  # the encoding of OpenAI's current chat models


def count_tokens(text: str) -> int:
    """The tokens of `text` when no server said: counted by `tiktoken` where it is installed
    and its encoding's data are at hand (it downloads them once; offline without them it is not
    used), else estimated at 4 characters a token."""
    encoder = _encoder()
    if encoder is not None:
        try:
            return len(encoder.encode(text, disallowed_special=()))
        except Exception:  # a text the encoder cannot take: estimate it instead
            pass
    return math.ceil(len(text) / 4)


@functools.cache
def _encoder() -> Any:
    try:
        import tiktoken

        return tiktoken.get_encoding(TOKENIZER_ENCODING)
    except Exception:  # not installed, or its data cannot be fetched (offline)
        return None


def counted_usage(prompt: str, texts: Sequence[str]) -> list[Usage]:
    """The tokens of each answer of one request whose response said none, counted from the
    texts (`count_tokens`): the prompt's spread evenly over the answers, so that their sum
    counts it once, as a server would have billed it."""
    shares = spread(count_tokens(prompt), [1] * len(texts))
    return [Usage(share, count_tokens(text)) for text, share in zip(texts, shares, strict=True)]


def spread(total: int, weights: list[int]) -> list[int]:
    """`total` split in proportion to `weights`, in whole numbers that sum to it (integer
    remainders go to the first shares)."""
    shares = [total * w // sum(weights) for w in weights]
    for i in range(total - sum(shares)):
        shares[i % len(shares)] += 1
    return shares


def tokenizer() -> str:
    """What `count_tokens` counts with, for messages and docs."""
    return f"tiktoken {TOKENIZER_ENCODING}" if _encoder() is not None else "4 characters a token"
