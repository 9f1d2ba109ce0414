"""Language models: the protocol, adapters, built-in implementations and wrappers.

Wrappers (`WrapperModel` subclasses) compose in any order, and cache hits cost neither rate
limit nor budget either way: `CachedModel(RateLimitedModel(OpenAIModel(...), rpm=...), path)`
and `RateLimitedModel(CachedModel(OpenAIModel(...), path), rpm=...)` behave alike.
"""

from .base import (
    Completion,
    FunctionModel,
    LanguageModel,
    WrapperModel,
    as_model,
    from_spec,
    model_settings,
    requests_needed,
    would_answer,
)
from .cache import CachedModel
from .limits import RateLimitedModel
from .openai import OpenAIModel
from .pricing import Price, price_for

__all__ = [
    "CachedModel",
    "Completion",
    "FunctionModel",
    "LanguageModel",
    "OpenAIModel",
    "Price",
    "RateLimitedModel",
    "WrapperModel",
    "as_model",
    "from_spec",
    "model_settings",
    "price_for",
    "requests_needed",
    "would_answer",
]
