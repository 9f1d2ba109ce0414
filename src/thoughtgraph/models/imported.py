"""`py:package.module:function`: a model that is your own Python code.

The function takes the prompt (a str) and returns the answer text, sync or async; one with a
keyword `sample` is also told which sample of the prompt it answers (0, 1, ... within a run: see
`samples.py`), so k samples of one prompt can be k different answers. An object with a method
`complete(prompt, n)` (sync or async, returning n answers: str or `Completion`) is the object
form (`ImportedObject`); its tokens are counted from the texts when it reports none. The target
is imported when the model is built, before any call, so a module not found, a missing name, an
import that raises or a target that is neither is one error line. A function's answers must be
str: anything else stops the run (a programming error, not a flaky answer); an exception the
code raises is a failed call the op may retry, reported with its first line. The code's digest
(the named module's source and that of the function or class, `io.sources`) is among the
model's `settings`: its name stays when the code changes, and neither the answer cache nor a
resumed eval may take the old code's answers for the new one's.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, cast

from thoughtgraph.errors import FatalModelError, ModelError, ThoughtgraphError, UnknownNameError
from thoughtgraph.io.imports import first_line, import_string
from thoughtgraph.io.sources import source_digest
from thoughtgraph.models.base import (
    Completion,
    FunctionModel,
    LanguageModel,
    PromptFunction,
    Threads,
    WrapperModel,
    asked_samples,
    has_keyword,
    is_async,
    model_settings,
    reports_requests,
)
from thoughtgraph.spend.ledger import RequestRecorder
from thoughtgraph.spend.usage import counted_usage


class ImportedModel(FunctionModel):
    """A `prompt -> text` function named by an import string (`py:pkg.mod:fn`)."""

    def __init__(self, fn: PromptFunction, target: str) -> None:
        super().__init__(fn, name=f"py:{target}")
        self.target = target
        self.code = source_digest(fn, _module_of(target))  # the module named, and fn's own

    @classmethod
    def from_spec(cls, target: str, given: str) -> LanguageModel:
        """The model `py:TARGET` names (`given` is the spec as typed, for errors)."""
        if not target.strip():
            raise UnknownNameError(
                f"model {given!r} names no function (expected py:package.module:function)"
            )
        value = import_string(target.strip(), "model")
        if _is_own_model(value):
            return cast(LanguageModel, value)
        if callable(getattr(value, "complete", None)) and not isinstance(value, type):
            _check_complete(value, given)
            return ImportedObject(value, target.strip())
        if not callable(value) or isinstance(value, type):
            kind = "a class" if isinstance(value, type) else type(value).__name__
            raise UnknownNameError(
                f"model {given!r} is {kind}, not a function prompt -> text "
                "(sync or async, taking the prompt str and returning the answer str) "
                "nor an object with a method complete(prompt, n)"
            )
        _check_takes_the_prompt(value, given)
        return cls(value, target.strip())

    async def _one(self, prompt: str, sample: int | None = None) -> Completion:
        try:
            return await super()._one(prompt, sample)
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


class ImportedObject(WrapperModel):
    """A `py:` object with a method `complete(prompt, n)`, sync or async, returning `n` answers
    (each a str or a `Completion`).

    Its `name` is its own when it has one, else `py:TARGET`; it is never `simulated` (that
    flag marks the built-in stand-in, whose figures say so and which plays only the built-in
    tasks), whatever it says. When its `complete` takes a keyword `sample`, each call is
    `complete(prompt, n, sample=i)` for answers to samples i, i+1, ..., i+n-1 of the prompt
    (`asked_samples`). A request whose answers report no tokens is counted from the texts and
    marked estimated, as a server's that reports none is (`spend.usage.counted_usage`), so its
    cost is shown. Its `settings`, if any, key the answer cache, with `code`: the digest of its
    class's and the named module's source (`io.sources`), so changed code never gets the old
    code's cached answers nor its results in a resumed eval.
    """

    simulated = False

    def __init__(self, value: object, target: str | None) -> None:
        # Only the capability functions read `inner` (by getattr, safe on any object); the name
        # and the simulated flag are this wrapper's own. `target` None: given from Python.
        super().__init__(cast(LanguageModel, value))
        self.target = target
        own = getattr(value, "name", None)
        fallback = f"py:{target}" if target is not None else f"object:{type(value).__name__}"
        self._name = own if isinstance(own, str) and own.strip() else fallback
        complete: Callable[..., object] = getattr(value, "complete")  # noqa: B009
        self._complete = complete
        self._takes_samples = has_keyword(complete, "sample")
        self._is_async = is_async(complete)
        self._threads = Threads()
        self.code = source_digest(type(value), _module_of(target) if target else None)

    @property
    def name(self) -> str:
        return self._name

    @property
    def settings(self) -> dict[str, Any]:
        own = model_settings(self.inner)
        return own if self.code is None else {**own, "code": self.code}

    @property
    def takes_samples(self) -> bool:
        return self._takes_samples

    async def complete(
        self, prompt: str, n: int = 1, *, recorder: RequestRecorder | None = None
    ) -> list[Completion]:
        if not self.takes_samples:
            return await self._request(prompt, n, None, recorder)
        answers: list[Completion] = []
        for first, count in _runs(asked_samples(n)):
            answers += await self._request(prompt, count, first, recorder)
        return answers

    async def _request(
        self, prompt: str, n: int, sample: int | None, recorder: RequestRecorder | None
    ) -> list[Completion]:
        """One `complete` call of the object, its answers checked and their tokens counted."""
        options: dict[str, object] = {} if sample is None else {"sample": sample}
        if recorder is not None and reports_requests(self.inner):
            options["recorder"] = recorder
        call = functools.partial(self._complete, prompt, n, **options)
        try:
            result = call() if self._is_async else await self._threads.run(call)
            if inspect.isawaitable(result):
                result = await result
        except ThoughtgraphError:
            raise
        except Exception as exc:
            raise ModelError(f"{self.name} raised {first_line(exc)}") from None
        return self._answers(prompt, n, result)

    def _answers(self, prompt: str, n: int, result: object) -> list[Completion]:
        if not isinstance(result, list | tuple) or not all(
            isinstance(a, str | Completion) for a in result
        ):
            raise FatalModelError(
                f"{self.name} returned {type(result).__name__}, not a list of answers: "
                "complete(prompt, n) must return n answers, each a str or a Completion"
            )
        if len(result) != n:
            raise FatalModelError(
                f"{self.name} returned {len(result)} of the {n} answers asked for: "
                "complete(prompt, n) must return n answers"
            )
        texts = [a if isinstance(a, str) else a.text for a in result]
        counted = counted_usage(prompt, texts) if texts else []
        return [
            a
            if isinstance(a, Completion) and (a.cached or a.usage.total_tokens)
            else Completion(text, usage, estimated=True)
            for a, text, usage in zip(result, texts, counted, strict=True)
        ]

    @classmethod
    def given(cls, value: object) -> ImportedObject:
        """An object with `complete(prompt, n)` given from Python (`model=`, `models=`), checked
        as a `py:` one is, before any call."""
        _check_complete(value, type(value).__name__)
        return cls(value, None)

    def __repr__(self) -> str:
        return f"ImportedObject({self.target or self.inner!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its import string (a Ray worker imports the object again), or, given from
        Python, as the object itself."""
        if self.target is None:
            return (ImportedObject.given, (self.inner,))
        return (_rebuild, (self.target,))


def _module_of(target: str) -> ModuleType | None:
    """The module an import string names (imported by then), for its source."""
    return sys.modules.get(target.partition(":")[0].strip())


def _runs(samples: Sequence[int]) -> list[tuple[int, int]]:
    """Consecutive sample numbers as (first, count) runs: [0, 1, 2, 5] -> [(0, 3), (5, 1)]."""
    runs: list[tuple[int, int]] = []
    for sample in samples:
        if runs and sum(runs[-1]) == sample:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((sample, 1))
    return runs


def _is_own_model(value: object) -> bool:
    """One of thoughtgraph's own models (an `OpenAIModel`, a `CachedModel`, ... built in the
    user's module): used as it is, with everything it reports."""
    return isinstance(value, LanguageModel) and type(value).__module__.startswith("thoughtgraph.")


def _check_complete(value: object, given: str) -> None:
    """Refuse, before any call, an object whose `complete` cannot be called as
    `complete(prompt, n)` (with `sample=` when it takes one)."""
    complete = getattr(value, "complete")  # noqa: B009
    try:
        signature = inspect.signature(complete)
    except (TypeError, ValueError):
        return
    options = {"sample": 0} if has_keyword(complete, "sample") else {}
    try:
        signature.bind("prompt", 1, **options)
    except TypeError:
        raise UnknownNameError(
            f"model {given!r} has complete{_shown_parameters(signature)}: it is called as "
            "complete(prompt, n) (and sample=, when it takes one)"
        ) from None


def _check_takes_the_prompt(fn: Callable[..., object], given: str) -> None:
    """Refuse, before any call, a function that cannot be called with the prompt alone
    (`def answer()`, `def answer(prompt, model)`): every call would fail the same way, each
    one reported as a flaky answer and retried."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin or C callable without one: try it
        return
    options = {"sample": 0} if has_keyword(fn, "sample") else {}
    try:
        signature.bind("prompt", **options)
    except TypeError:
        raise UnknownNameError(
            f"model {given!r} takes {_shown_parameters(signature)}: a model function is "
            "called with one argument, the prompt str (and the keyword sample, when it takes one)"
        ) from None


def _shown_parameters(signature: inspect.Signature) -> str:
    return (
        str(signature.replace(return_annotation=inspect.Signature.empty))
        if signature.parameters
        else "no argument"
    )


def _rebuild(target: str) -> LanguageModel:
    return ImportedModel.from_spec(target, f"py:{target}")
