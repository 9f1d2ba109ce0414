"""The model interface: anything that turns a prompt into one or more answers.

A model is an object with `async complete(prompt, n=1) -> list[Completion]`, a `name` and a
`simulated` flag (`LanguageModel`). A model that sends its own HTTP requests says
`reports_requests = True` (`ReportsRequests`): its `complete` then also takes a keyword
`recorder` (a `spend.ledger.RequestRecorder`) and reserves and records every request there; call
it through `complete_with` below, which passes the recorder only to such a model. Four optional
capabilities, each a small protocol read
through one function here, tell the engine more: `settings` (answer-relevant options such as
`max_tokens`, for cache keys and token estimates; `completion_cap`, the cap a request is sent with
when it differs, for the estimates), `requests_needed(n)` (an endpoint that
ignores `n` needs n requests), `would_answer(prompt, n)` (a cache knows a call is free) and
`complete_delivering(prompt, n, deliver)` (each answer handed over the moment it arrives, so a
cache keeps the answers of parallel single requests that arrived before a kill -9).
`WrapperModel` forwards exactly these, so wrappers (cache, rate limits, accounting) compose in any
order. A plain function `prompt -> str` (sync or async) becomes a model through
`FunctionModel` (`modelspec.py`'s `as_model` does it for whatever a user hands in).

A model whose answers depend on which sample of its prompt they are (`TakesSamples`: a user's
function with a keyword `sample`) reads the index of each answer a call asks for with
`asked_samples`; the layer that numbers a run's answers (the answer cache, else
`samples.NumberedModel`) says them with `asking`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard, TypeVar, runtime_checkable

from thoughtgraph.errors import ModelError, UnknownNameError, shown
from thoughtgraph.io.sources import source_digest
from thoughtgraph.records import quick_init
from thoughtgraph.spend.ledger import RequestRecorder
from thoughtgraph.spend.pricing import Price
from thoughtgraph.spend.usage import NO_USAGE, Usage


@quick_init
@dataclass(frozen=True, slots=True, weakref_slot=True)
class Completion:
    """One answer from a model, with the tokens it cost (0 when the model does not say);
    `estimated` when those tokens were counted from the texts because the model did not say.

    A reasoning model's thinking is kept apart from its answer (`models.reasoning`): `text` is
    the answer alone, `reasoning` the thinking before it, `reasoning_tokens` how many of the
    completion tokens were thinking (billed within `usage`), `cut` says the reply stopped
    at the completion cap and `cut_at` which cap that was (kept with a cached answer, so that a
    reply replayed from the cache says why it holds no answer as the paid one did)."""

    text: str
    usage: Usage = NO_USAGE
    cached: bool = False
    estimated: bool = False
    reasoning: str = ""
    reasoning_tokens: int = 0
    cut: bool = False
    cut_at: int | None = None  # the completion cap that cut it, when known

    @property
    def reasons(self) -> bool:
        """The reply shows the model reasoning: thinking text, or thinking tokens billed."""
        return bool(self.reasoning.strip()) or self.reasoning_tokens > 0


@runtime_checkable
class LanguageModel(Protocol):
    """What the executor needs from a model (plain attributes or properties both satisfy it)."""

    @property
    def name(self) -> str: ...

    @property
    def simulated(self) -> bool: ...

    async def complete(self, prompt: str, n: int = 1) -> list[Completion]: ...


class ReportsRequests(Protocol):
    """A model that reports each HTTP request it sends to the recorder it is handed (reserved
    before it leaves, recorded when it ends): see `thoughtgraph.spend.ledger`."""

    reports_requests: bool  # True

    async def complete(
        self, prompt: str, n: int = 1, *, recorder: RequestRecorder | None = None
    ) -> list[Completion]: ...


def reports_requests(model: object) -> bool:
    """True when `model` takes a `recorder` and reports its requests to it (`ReportsRequests`)."""
    return bool(getattr(model, "reports_requests", False))


async def complete_with(
    model: LanguageModel, prompt: str, n: int, recorder: RequestRecorder | None
) -> list[Completion]:
    """`model.complete(prompt, n)`, with the recorder when the model reports its requests."""
    if recorder is not None and reports_requests(model):
        return await model.complete(prompt, n, recorder=recorder)  # type: ignore[call-arg]
    return await model.complete(prompt, n)


@runtime_checkable
class HasSettings(Protocol):
    """The model's answer-relevant settings (temperature, max_tokens, ...)."""

    @property
    def settings(self) -> Mapping[str, Any]: ...


@runtime_checkable
class CountsRequests(Protocol):
    """How many requests a call for `n` answers takes (n when the endpoint ignores `n`)."""

    def requests_needed(self, n: int) -> int: ...


@runtime_checkable
class Foresees(Protocol):
    """Whether the next `complete(prompt, n)` is answered without a paid call (a cache)."""

    def would_answer(self, prompt: str, n: int = 1) -> bool: ...


AnswerSink = Callable[[Completion], None]
"""Takes one answer the moment it arrives (`Delivers`); must not raise."""


@runtime_checkable
class Delivers(Protocol):
    """Hands each answer of a call to `deliver` as soon as it arrives, before the call returns
    (an endpoint that ignores `n` answers n single requests one by one)."""

    async def complete_delivering(
        self, prompt: str, n: int, deliver: AnswerSink
    ) -> list[Completion]: ...  # and a keyword `recorder` when it `reports_requests`


# Each capability is told apart by its attribute (a method that is not None), which is what
# `isinstance` against these runtime-checkable protocols tests, at a tenth of its cost: they are
# read on every model call, and the protocol check was an eighth of a 10,000-op run's CPU. The
# guards below narrow to the protocol, so the call after them is type-checked.


def has_settings(model: object) -> TypeGuard[HasSettings]:
    return getattr(model, "settings", None) is not None


def counts_requests(model: object) -> TypeGuard[CountsRequests]:
    return getattr(model, "requests_needed", None) is not None


def foresees(model: object) -> TypeGuard[Foresees]:
    return getattr(model, "would_answer", None) is not None


def completion_cap(model: object) -> int | None:
    """The tokens each answer may have as the model sends its requests (`completion_cap`, which
    may be above the `max_tokens` of its settings: room for a reasoning model to think, or None,
    no cap, where its server refused that room), else its settings' `max_tokens`; None: no cap
    known. What a request is expected to cost."""
    if hasattr(model, "completion_cap"):  # None there: the model sends no cap at all
        cap = model.completion_cap
        return cap or None if isinstance(cap, int) else None
    value = model_settings(model).get("max_tokens")
    return value if isinstance(value, int) and value > 0 else None


def thinking_cap(model: object) -> int | None:
    """The completion cap `model` sends once it knows the model reasons, the budget aside
    (`OpenAIModel.thinking_cap`; 0: no cap), or None when it cannot say (a user's function).
    What the answer cache measures a stored reply the cap cut while thinking against."""
    cap = getattr(model, "thinking_cap", None)
    return cap if isinstance(cap, int) and not isinstance(cap, bool) else None


def saw_reasoning(model: object) -> None:
    """Tell `model` that a reply of its showed reasoning, one it did not read itself (an answer
    from the cache): a model that learns it (`OpenAIModel`: room to think on its default cap)
    has a `saw_reasoning()` method; wrappers pass it on."""
    method = getattr(model, "saw_reasoning", None)
    if method is not None:
        method()


def model_settings(model: object) -> dict[str, Any]:
    """The model's settings, or {} when it has none (`HasSettings`)."""
    return dict(model.settings) if has_settings(model) else {}


def model_price(model: object) -> Price | None:
    """The price a model's spec carries (`price_in=`, `price_out=`: its `price` attribute), or
    None: the run's price flags, else the built-in table, price it. Not in `settings`: a price
    changes what an answer costs, never the answer (nor its cache key)."""
    price = getattr(model, "price", None)
    return price if isinstance(price, Price) else None


def requests_needed(model: object, n: int) -> int:
    """The requests a call for `n` answers takes, 1 unless the model says otherwise
    (`CountsRequests`)."""
    return int(model.requests_needed(n)) if counts_requests(model) else 1


def would_answer(model: object, prompt: str, n: int = 1) -> bool:
    """True when the model says the call is free (answered from a cache); False if it cannot say
    (`Foresees`)."""
    return bool(model.would_answer(prompt, n)) if foresees(model) else False


class TakesSamples(Protocol):
    """A model whose answers depend on which sample of its prompt they are: a user's function
    (or `py:` object) with a keyword `sample`. Asked for the same sample again it may give the
    same answer, so every run numbers the answers to each prompt for it (`asking`)."""

    takes_samples: bool  # True


def takes_samples(model: object) -> bool:
    """True when `model` reads the index of the samples it answers (`TakesSamples`)."""
    return bool(getattr(model, "takes_samples", False))


# The sample indices of the call in progress. A context variable because the layer that numbers
# a run's answers (the answer cache, or `samples.NumberedModel`) is the outermost and the one
# that reads them (a user's function) the innermost, with rate limits, repeats and caps between
# that pass the call on unchanged; and because it is scoped to the asyncio task of one call,
# parallel calls never see each other's.
_ASKED: ContextVar[tuple[int, ...] | None] = ContextVar("thoughtgraph_asked", default=None)


def asked_samples(n: int) -> list[int]:
    """The sample index of each of the `n` answers the call in progress asks for: as the layer
    numbering the run's answers said (`asking`), else 0..n-1."""
    given = _ASKED.get()
    return list(given) if given is not None and len(given) == n else list(range(n))


@contextlib.contextmanager
def asking(samples: Sequence[int]) -> Iterator[None]:
    """Within this block, the model called is asked for `samples` (`asked_samples`)."""
    token = _ASKED.set(tuple(samples))
    try:
        yield
    finally:
        _ASKED.reset(token)


def has_keyword(fn: Callable[..., object], name: str) -> bool:
    """Whether `fn` declares a parameter `name` that can be passed by keyword (a `**options`
    catch-all does not count: a function must ask for the sample index by name)."""
    try:
        parameter = inspect.signature(fn).parameters.get(name)
    except (TypeError, ValueError):  # a builtin or C callable without a signature
        return False
    keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return parameter is not None and parameter.kind in keyword


def ignore_answer(answer: Completion) -> None:
    """An `AnswerSink` for a caller that needs the answers only when the call returns."""


async def complete_delivering(
    model: LanguageModel,
    prompt: str,
    n: int,
    deliver: AnswerSink,
    recorder: RequestRecorder | None = None,
) -> list[Completion]:
    """`complete_with(model, prompt, n, recorder)`, handing each answer to `deliver` as it
    arrives when the model can (`Delivers`), else all of them when the call returns. Every
    answer returned has been delivered exactly once."""
    method = getattr(model, "complete_delivering", None)
    if method is None:
        answers = await complete_with(model, prompt, n, recorder)
        for answer in answers:
            deliver(answer)
        return answers
    delivered: set[int] = set()

    def once(answer: Completion) -> None:
        delivered.add(id(answer))
        deliver(answer)

    if recorder is not None and reports_requests(model):
        answers = list(await method(prompt, n, once, recorder=recorder))
    else:
        answers = list(await method(prompt, n, once))
    for answer in answers:  # a model that returned answers it did not deliver
        if id(answer) not in delivered:
            once(answer)
    return answers


class DeliveringModel(ABC):
    """A model written as `complete_delivering` alone: its `complete` is that call with nobody
    to hand the answers to one by one (the cache, the rate limits and the HTTP model)."""

    async def complete(
        self, prompt: str, n: int = 1, *, recorder: RequestRecorder | None = None
    ) -> list[Completion]:
        return await self.complete_delivering(prompt, n, ignore_answer, recorder=recorder)

    @abstractmethod
    async def complete_delivering(
        self,
        prompt: str,
        n: int,
        deliver: AnswerSink,
        *,
        recorder: RequestRecorder | None = None,
    ) -> list[Completion]:
        """`n` answers to `prompt`, each handed to `deliver` the moment it arrives."""


class WrapperModel:
    """A model that wraps another and forwards what the protocols name.

    `LanguageModel` (`name`, `simulated`, `complete` with its `recorder`), `reports_requests`,
    `complete_delivering` (`Delivers`), `takes_samples`, `completion_cap`, `thinking_cap`,
    `saw_reasoning` and the three optional capabilities (`HasSettings`, `CountsRequests`,
    `Foresees`) go to `inner` unless a subclass overrides them; nothing else does (a wrapper's
    own attributes, such as a cache's `hits`, are read on the wrapper that has them). So
    `CachedModel(RateLimitedModel(m))` and `RateLimitedModel(CachedModel(m))` both keep `m`'s
    name and settings, and cache hits stay free of budget and rate limits either way.
    """

    def __init__(self, inner: LanguageModel) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def simulated(self) -> bool:
        return bool(self.inner.simulated)

    @property
    def takes_samples(self) -> bool:
        return takes_samples(self.inner)

    @property
    def settings(self) -> dict[str, Any]:
        return model_settings(self.inner)

    @property
    def completion_cap(self) -> int | None:
        return completion_cap(self.inner)

    @property
    def thinking_cap(self) -> int | None:
        return thinking_cap(self.inner)

    def saw_reasoning(self) -> None:
        saw_reasoning(self.inner)

    @property
    def price(self) -> Price | None:
        """Its own, when its spec gave one (a `py:` object's), else the inner model's."""
        return self.__dict__.get("_price") or model_price(self.inner)

    @price.setter
    def price(self, price: Price | None) -> None:
        self.__dict__["_price"] = price

    def requests_needed(self, n: int) -> int:
        return requests_needed(self.inner, n)

    def would_answer(self, prompt: str, n: int = 1) -> bool:
        return would_answer(self.inner, prompt, n)

    @property
    def reports_requests(self) -> bool:
        return reports_requests(self.inner)

    async def complete(
        self, prompt: str, n: int = 1, *, recorder: RequestRecorder | None = None
    ) -> list[Completion]:
        return await complete_with(self.inner, prompt, n, recorder)

    async def complete_delivering(
        self,
        prompt: str,
        n: int,
        deliver: AnswerSink,
        *,
        recorder: RequestRecorder | None = None,
    ) -> list[Completion]:
        """Forwarded to `inner` unless a subclass changes `complete` (then its `complete` runs
        and the answers are delivered when it returns: nothing is skipped)."""
        if type(self).complete is not WrapperModel.complete:
            answers = await complete_with(self, prompt, n, recorder)
            for answer in answers:
                deliver(answer)
            return answers
        return await complete_delivering(self.inner, prompt, n, deliver, recorder)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.inner!r})"


class SampledPromptFunction(Protocol):
    """A function `prompt -> text` that is told which sample of the prompt it answers."""

    def __call__(self, prompt: str, *, sample: int) -> str | Awaitable[str]: ...


PromptFunction = Callable[[str], str] | Callable[[str], Awaitable[str]] | SampledPromptFunction

T = TypeVar("T")


class Threads:
    """A private thread pool for a user's blocking code, made on first use, so that a blocking
    client still gets parallel calls (asyncio's default pool has a handful of threads)."""

    def __init__(self, max_threads: int = 64) -> None:
        self.max_threads = max_threads
        self._pool: ThreadPoolExecutor | None = None

    async def run(self, call: Callable[[], T]) -> T:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.max_threads, thread_name_prefix="tg-model")
        return await asyncio.get_running_loop().run_in_executor(self._pool, call)


def is_async(fn: object) -> bool:
    """Whether calling `fn` gives an awaitable: an `async def`, or an object whose `__call__`
    is one."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(type(fn), "__call__", None)  # noqa: B004 - objects with async __call__
    )


class FunctionModel:
    """Adapts a plain `prompt -> str` function (sync or async) to `LanguageModel`.

    Sync functions run in a private thread pool, so a blocking client still gets parallel calls.
    A function with a keyword `sample` (`takes_samples`) is passed the index of the sample each
    call answers (`asked_samples`); one without is called n times with the same prompt. Its
    `settings` hold `code`, the digest of its source (`io.sources`): its name stays when its
    code changes, and the answer cache and a resumed eval must not take the old code's answers
    for the new one's.
    """

    simulated = False
    price: Price | None = None  # its spec's `price_in=`/`price_out=` (modelspec.py), if any

    def __init__(self, fn: PromptFunction, name: str | None = None, max_threads: int = 64) -> None:
        self.fn = fn
        self.name = name or f"function:{getattr(fn, '__name__', type(fn).__name__)}"
        self.takes_samples = has_keyword(fn, "sample")
        self.code = source_digest(fn)
        self._is_async = is_async(fn)
        self._threads = Threads(max_threads)

    @property
    def settings(self) -> dict[str, Any]:
        """What besides the prompt decides its answers: its code."""
        return {} if self.code is None else {"code": self.code}

    async def complete(self, prompt: str, n: int = 1) -> list[Completion]:
        if not self.takes_samples:
            return list(await asyncio.gather(*(self._one(prompt) for _ in range(n))))
        return list(await asyncio.gather(*(self._one(prompt, s) for s in asked_samples(n))))

    async def _one(self, prompt: str, sample: int | None = None) -> Completion:
        fn: Callable[..., object] = self.fn
        call = (
            functools.partial(fn, prompt)
            if sample is None
            else functools.partial(fn, prompt, sample=sample)
        )
        text = call() if self._is_async else await self._threads.run(call)
        if inspect.isawaitable(text):  # an async function, or a sync one returning a coroutine
            text = await text
        if not isinstance(text, str):
            raise self._not_text(text)
        return Completion(text=text, usage=Usage(_tokens(prompt), _tokens(text)), estimated=True)

    def _not_text(self, value: object) -> Exception:
        """What an answer that is not a str raises: a failed attempt the op may retry."""
        return ModelError(f"the model function returned {type(value).__name__}, not text")


def _tokens(text: str) -> int:
    """A rough token estimate (4 characters a token) for models that do not report usage."""
    return max(1, len(text) // 4)


def parse_options(text: str, spec: str) -> dict[str, str]:
    """`key=value,key=value` of a model spec (`sim:error=0,seed=1`), each key once."""
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UnknownNameError(
                f"bad model option {shown(item)} in {shown(spec)} (expected key=value)"
            )
        if key.strip() in options:
            raise UnknownNameError(
                f"model option {shown(key.strip())} is given twice in {shown(spec)}"
            )
        options[key.strip()] = value.strip()
    return options


SIMULATED_NOTE = "SIMULATED: the built-in offline stand-in, not a real LLM"


def display_name(model: object) -> str:
    """A model's name: its `name`, else its class's name. The one rule for it (events, results,
    the shared concurrency slot, summaries)."""
    name = getattr(model, "name", None)
    return str(name) if name else type(model).__name__


def shown_name(model: object) -> str:
    """A model's name as output shows it: a simulated model always says so."""
    name = display_name(model)
    return f"{name} ({SIMULATED_NOTE})" if getattr(model, "simulated", False) else name


def routes_note(routed: Mapping[str, object]) -> str:
    """What follows the model's name where kinds of call go to other models (kind -> model):
    ` (merge: NAME; refine: NAME)`, "" when none do."""
    if not routed:
        return ""
    return " (" + "; ".join(f"{kind}: {display_name(m)}" for kind, m in routed.items()) + ")"
