"""Language models: the protocol, adapters, built-in implementations and wrappers.

Wrap in this order so that cache hits cost neither rate limit nor budget:
`CachedModel(RateLimitedModel(OpenAIModel(...), rpm=..., tpm=...), "answers.sqlite")`.
"""

from .base import Completion, FunctionModel, LanguageModel, as_model, from_spec
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
    "as_model",
    "from_spec",
    "price_for",
]
