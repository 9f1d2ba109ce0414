"""`py:package.module:function`: a model that is your own Python code.

The function takes the prompt (a str) and returns the answer text, sync or async; an object
with `async complete(prompt, n)` (a `LanguageModel`) is used as it is. It is imported when the
model is built, before any call, so a module not found, a missing name, an import that raises or
a name that is not callable is one error line. Its answers must be str: anything else stops the
run (a programming error, not a flaky answer); an exception the function raises is a failed call
the op may retry, reported with its first line.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from thoughtgraph.errors import FatalModelError, ModelError, UnknownNameError
from thoughtgraph.io.imports import first_line, import_string
from thoughtgraph.models.base import Completion, FunctionModel, LanguageModel, PromptFunction


class ImportedModel(FunctionModel):
    """A `prompt -> text` function named by an import string (`py:pkg.mod:fn`)."""

    def __init__(self, fn: PromptFunction, target: str) -> None:
        super().__init__(fn, name=f"py:{target}")
        self.target = target

    @classmethod
    def from_spec(cls, target: str, given: str) -> LanguageModel:
        """The model `py:TARGET` names (`given` is the spec as typed, for errors)."""
        if not target.strip():
            raise UnknownNameError(
                f"model {given!r} names no function (expected py:package.module:function)"
            )
        value = import_string(target.strip(), "model")
        if isinstance(value, LanguageModel) and not isinstance(value, type):
            return value
        if not callable(value) or isinstance(value, type):
            kind = "a class" if isinstance(value, type) else type(value).__name__
            raise UnknownNameError(
                f"model {given!r} is {kind}, not a function prompt -> text "
                "(sync or async, taking the prompt str and returning the answer str)"
            )
        _check_takes_the_prompt(value, given)
        return cls(value, target.strip())

    async def _one(self, prompt: str) -> Completion:
        try:
            return await super()._one(prompt)
        except (ModelError, FatalModelError):
            raise
        except Exception as exc:
            raise ModelError(f"{self.name} raised {first_line(exc)}") from None

    def _not_text(self, value: object) -> Exception:
        return FatalModelError(
            f"{self.name} returned {type(value).__name__}, not text: the model function must "
            "return the answer as a str"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its import string (a Ray worker imports the function again)."""
        return (_rebuild, (self.target,))


def _check_takes_the_prompt(fn: Callable[..., object], given: str) -> None:
    """Refuse, before any call, a function that cannot be called with the prompt alone
    (`def answer()`, `def answer(prompt, model)`): every call would fail the same way, each
    one reported as a flaky answer and retried."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin or C callable without one: try it
        return
    try:
        signature.bind("prompt")
    except TypeError:
        raise UnknownNameError(
            f"model {given!r} takes {_shown_parameters(signature)}: a model function is "
            "called with one argument, the prompt str"
        ) from None


def _shown_parameters(signature: inspect.Signature) -> str:
    return (
        str(signature.replace(return_annotation=inspect.Signature.empty))
        if signature.parameters
        else "no argument"
    )


def _rebuild(target: str) -> LanguageModel:
    return ImportedModel.from_spec(target, f"py:{target}")
