"""Language models: the protocol, adapters and built-in implementations."""

from .base import Completion, FunctionModel, LanguageModel, as_model, from_spec

__all__ = ["Completion", "FunctionModel", "LanguageModel", "as_model", "from_spec"]
