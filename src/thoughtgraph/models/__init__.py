"""Language models: the protocol, adapters, built-in implementations and wrappers.

Wrappers (`WrapperModel` subclasses) compose in any order, and cache hits cost neither rate
limit nor budget either way: `CachedModel(RateLimitedModel(OpenAIModel(...), rpm=...), path)`
and `RateLimitedModel(CachedModel(OpenAIModel(...), path), rpm=...)` behave alike.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # at run time each name loads on first use: importing one model module
    # must not pull in aiolimiter, sqlite3 and every other model
    from typing import Any

    from thoughtgraph.models.base import (
        Completion,
        FunctionModel,
        LanguageModel,
        WrapperModel,
        model_settings,
        requests_needed,
        would_answer,
    )
    from thoughtgraph.models.cache import CachedModel
    from thoughtgraph.models.limits import RateLimitedModel
    from thoughtgraph.models.openai import OpenAIModel
    from thoughtgraph.spend.pricing import Price, price_for

_LAZY = {
    **dict.fromkeys(
        [
            "Completion",
            "FunctionModel",
            "LanguageModel",
            "WrapperModel",
            "model_settings",
            "requests_needed",
            "would_answer",
        ],
        ".base",
    ),
    "CachedModel": ".cache",
    "RateLimitedModel": ".limits",
    "OpenAIModel": ".openai",
    **dict.fromkeys(["Price", "price_for"], "thoughtgraph.spend.pricing"),
}


def __getattr__(name: str) -> Any:
    """Load a name's module on first use (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "CachedModel",
    "Completion",
    "FunctionModel",
    "LanguageModel",
    "OpenAIModel",
    "Price",
    "RateLimitedModel",
    "WrapperModel",
    "model_settings",
    "price_for",
    "requests_needed",
    "would_answer",
]
