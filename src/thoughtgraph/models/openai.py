"""Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp, LM Studio).

Requests go through a transport (`transport`: aiohttp + orjson by default, the official SDK
with `transport=sdk`) that only sends them, bounded in time and size; this module retries
408/409/429/5xx (honouring Retry-After), timeouts and dropped connections itself, with the SDK's
exponential backoff, so that every HTTP request is reserved against the run's budget before it
is sent and counted, with its outcome, when it ends: the run hands `complete` a
`RequestRecorder` (`thoughtgraph.spend.ledger`) and `_send` reports every request to it, in one
place; retries inside a client library would be invisible to both. On top of that:

- one request with `n` choices, topped up with parallel single calls when the endpoint returns
  fewer choices or rejects `n` (local servers often do); the endpoint is then remembered as
  ignoring `n`, and later calls go straight to parallel singles (llama.cpp's `llama-server`
  refuses `n > 1` with "Only one completion choice is allowed", as a 400 or a 500: recognised
  by its message whatever the status). A single that fails is one
  missing answer: the answers of its siblings are returned (the call raises only when no
  answer arrived at all);
- a whole-response deadline (`timeout` bounds connect, headers and body together) and a size
  cap (`max_response_bytes`): a response past either is a failed, counted request;
- errors mapped to the engine's two kinds: `ModelError` (this attempt failed, the op may retry)
  and `FatalModelError` (rejected key, unreachable endpoint, bad request: stop the run);
- the API key kept out of every message, repr, log line and name; a key that is a secret (not
  a placeholder such as `x` or `EMPTY`, see `secrets`) is also scrubbed from every answer text
  (an endpoint that echoes the request's headers cannot leak it into a trace), and secrets in
  the base URL (`user:password@`, `?api-key=...`) are left out of messages.

The HTTP libraries are imported only when a model is created, so `import thoughtgraph` stays
fast.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import email.utils
import logging
import math
import os
import random
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from thoughtgraph.errors import (
    BudgetExhausted,
    FatalModelError,
    ModelError,
    ThoughtgraphError,
    UnknownNameError,
    shown,
)
from thoughtgraph.io.strictload import RefusedDocument
from thoughtgraph.models import clients, inflight, reasoning, secrets, transport
from thoughtgraph.models.base import AnswerSink, Completion, DeliveringModel, parse_options
from thoughtgraph.models.singles import gather_singles
from thoughtgraph.spend.budget import Ticket
from thoughtgraph.spend.ledger import UNMETERED, Attempt, RequestRecorder
from thoughtgraph.spend.pricing import Price
from thoughtgraph.spend.usage import Usage, count_tokens, spread

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
_REASON_CHARS = 160
_CUT_NOTED: set[tuple[str, int]] = set()  # (model, cap) whose thinking a cap cut: said once
# Backoff between retries, as the SDK's own: 0.5 s doubling to at most 8 s, less up to 25%
# jitter; a server's Retry-After (up to a minute) wins.
_BACKOFF_START, _BACKOFF_MAX, _RETRY_AFTER_MAX = 0.5, 8.0, 60.0
_TOKENS_MAX = 2**53  # a reported token count above this is not real (SQLite holds 2**63)

REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
"""The values of `reasoning_effort` (`--reasoning-effort`), sent as the request's own field:
OpenAI's whole set (gpt-5 takes `minimal`, gpt-5.1 `none`, the models after gpt-5.1-codex-max
`xhigh`; the o-series, vLLM and Ollama low, medium and high)."""


def _yes_no(value: object) -> bool:
    """A spec's `reasoning=true` (true/false, yes/no, 1/0, on/off) or a flag's bool."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in ("true", "yes", "1", "on"):
        return True
    if word in ("false", "no", "0", "off"):
        return False
    raise ValueError(word)


# The options an `openai:MODEL,key=value` spec (or its overrides) may set, and their types.
SPEC_OPTIONS: dict[str, Any] = {
    "base_url": str,
    "api_key_env": str,
    "temperature": float,
    "max_tokens": int,
    "timeout": float,
    "max_retries": int,
    "max_in_flight": int,
    "max_response_bytes": int,
    "transport": str,
    "reasoning": _yes_no,
    "reasoning_effort": str,
}


class _Secret:
    """Holds the API key so that no repr, `vars()` dump, f-string or pickle can show it.

    A pickled key is only the name of the environment variable it came from: unpickled (in a
    Ray worker, a subprocess), it reads the key from that process's own environment."""

    __slots__ = ("_digest", "_env", "_value")

    def __init__(self, value: str | None, env: str = KEY_ENV) -> None:
        self._value = value or None
        self._env = env
        self._digest: str | None = None
        secrets.register(self._value)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (_secret_from_environment, (self._env,))

    def __copy__(self) -> _Secret:
        return self  # immutable; a copy stays in this process, so it keeps the key as given

    def __deepcopy__(self, memo: dict[int, Any]) -> _Secret:
        return self  # without this, deepcopy would go through __reduce__ and the environment

    @property
    def present(self) -> bool:
        return self._value is not None

    def reveal(self) -> str:
        return self._value or transport.KEYLESS

    def digest(self) -> str:
        """The clients pool's digest of the key (`clients.key_digest`), worked out once."""
        if self._digest is None:
            self._digest = clients.key_digest(self.reveal())
        return self._digest

    def scrub(self, text: str) -> str:
        """The text with every secret (so any `Bearer <key>`, which becomes `Bearer ***`)
        replaced; a placeholder key such as `x` or `1` is not a secret and changes nothing."""
        return secrets.redact(text)

    def __repr__(self) -> str:
        return "<secret>" if self._value else "<no key>"


def _secret_from_environment(env: str) -> _Secret:
    """The key of an unpickled model: read again from this process's environment."""
    value = os.environ.get(env)
    return _Secret(_checked(value, env) if value else None, env)


class _NRejected(Exception):
    """The endpoint refused a request with n > 1 because of `n`."""


class _Ended:
    """How one request ended, filled in by `_attempt` for `_send` to report. Left as it is
    (cancelled in flight, an unexpected error), the request counts with unknown tokens: the
    server may still bill it."""

    __slots__ = ("attempt", "sent")

    def __init__(self) -> None:
        self.attempt = Attempt("cancelled", prompt_tokens=None, completion_tokens=None)
        self.sent = True  # False: no connection was ever made, nothing to count

    def report(self, recorder: RequestRecorder, ticket: Ticket) -> None:
        if self.sent:
            recorder.record(ticket, self.attempt)
        else:
            recorder.unsent(ticket)


class _RoomRefused(Exception):
    """The endpoint refused a default cap widened for a reasoning model: the prompt and the cap
    pass the model's context (vLLM, SGLang) or its most completion tokens (OpenAI); `room`,
    what its words say it holds."""

    def __init__(self, room: inflight.ServerRoom) -> None:
        super().__init__("room to think refused")
        self.room = room


class _Retryable(Exception):
    """An attempt failed in a way a new attempt may not (429, 5xx, timeout, broken connection)."""

    def __init__(self, error: ModelError, retry_after: float | None) -> None:
        super().__init__(str(error))
        self.error, self.retry_after = error, retry_after


class OpenAIModel(DeliveringModel):
    """`openai:MODEL`: a chat model behind an OpenAI-compatible API.

    `base_url` defaults to $OPENAI_BASE_URL, else OpenAI's. The key comes from `api_key`, else
    the variable named by `api_key_env` (default OPENAI_API_KEY). A local endpoint needs no key;
    OpenAI's own endpoint does, and is refused here rather than on the first call.
    """

    simulated = False
    reports_requests = True  # `complete` reports every request to its `recorder`
    price: Price | None = None  # its spec's `price_in=`/`price_out=` (modelspec.py), if any

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        api_key_env: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout: float = 120.0,
        max_retries: int = 3,
        max_in_flight: int | None = None,
        max_response_bytes: int = transport.DEFAULT_MAX_RESPONSE_BYTES,
        transport: str = "lean",
        reasoning: bool = False,
        reasoning_effort: str | None = None,
    ) -> None:
        if not model.strip():
            raise UnknownNameError("an openai model needs a model name, e.g. openai:gpt-4o-mini")
        _check_settings(base_url or os.environ.get(BASE_URL_ENV), temperature, timeout, max_retries)
        if max_tokens is not None and max_tokens < 0:
            raise UnknownNameError(f"openai option max_tokens must be 0 or more, got {max_tokens}")
        if max_in_flight is not None and max_in_flight < 1:
            raise UnknownNameError("openai option max_in_flight must be at least 1")
        if not isinstance(max_response_bytes, int) or max_response_bytes < 1:
            raise UnknownNameError(
                f"openai option max_response_bytes must be at least 1, got {max_response_bytes}"
            )
        _check_transport(transport)
        if reasoning_effort is not None and reasoning_effort.lower() not in REASONING_EFFORTS:
            raise UnknownNameError(
                f"openai option reasoning_effort must be one of {', '.join(REASONING_EFFORTS)}, "
                f"got {shown(reasoning_effort)}"
            )
        self.model = model.strip()
        self.base_url = (base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/")
        for value in secrets.url_secrets(self.base_url):
            secrets.register(value)
        secrets.install_log_masking()  # the SDK and httpx log request URLs (-v)
        self._key = _Secret(
            _resolve_key(api_key, api_key_env, self.base_url), api_key_env or KEY_ENV
        )
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.cap_default = False  # max_tokens is the run's default cap, not the user's
        self.reasoning = bool(reasoning)  # declared a reasoning model: room to think from the start
        self.reasoning_effort = None if reasoning_effort is None else reasoning_effort.lower()
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_response_bytes = max_response_bytes
        self.transport = transport
        self.name = f"openai:{self.model}" + _host_suffix(self.base_url)
        if max_in_flight is not None:
            self.endpoint.set_limit(max_in_flight)

    @classmethod
    def from_spec(cls, rest: str, spec: str, **overrides: object) -> OpenAIModel:
        """`MODEL[@URL][,key=value...]` with keys base_url (or `@URL`: the endpoint, e.g.
        `openai:qwen@http://127.0.0.1:8001/v1`), api_key_env, temperature, max_tokens,
        timeout, max_retries, max_in_flight, max_response_bytes, transport (lean or sdk),
        reasoning (true: a model that thinks first), reasoning_effort (`REASONING_EFFORTS`).
        (No api_key option: keys do not belong in command lines.)
        `overrides` (e.g. from command-line flags) win over the spec's options."""
        model, options = parse_spec(rest, spec)
        values: dict[str, Any] = {}
        for key, value in [*options.items(), *overrides.items()]:
            if key not in SPEC_OPTIONS:
                known = ", ".join(SPEC_OPTIONS)
                raise UnknownNameError(
                    f"unknown openai option {shown(key)} in {shown(spec)} (known: {known})"
                )
            try:
                values[key] = SPEC_OPTIONS[key](value)
            except ValueError:
                raise UnknownNameError(f"openai option {key}={shown(value)} is not valid") from None
        return cls(model, **values)

    @property
    def settings(self) -> dict[str, Any]:
        """What besides the model and prompt changes the answer (part of a cache key). The
        default cap is there as the default gives it, whether or not the model reasons (the
        room it is given to think is not: the answer is the same, and a model found to reason
        halfway through a run must not change the keys of the answers after it);
        `reasoning_effort` only when set, so that keys made without it stay as they were."""
        settings: dict[str, Any] = {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens or None,
        }
        if self.reasoning_effort is not None:
            settings["reasoning_effort"] = self.reasoning_effort
        return settings

    def with_default_max_tokens(self, cap: int) -> OpenAIModel:
        """This model with answers capped at `cap` tokens, unless its user set `max_tokens`
        (`0`: no cap at all); see `engine.answer_cap`. A model that reasons (declared, or seen
        reasoning by this process) is given `reasoning.THINKING_ROOM` more as it sends
        (`completion_cap`). A copy: the model may be shared by runs of other problems (an
        evaluation's pairs)."""
        if self.max_tokens is not None:
            return self
        capped = copy.copy(self)
        capped.max_tokens = cap
        capped.cap_default = True
        return capped

    @property
    def thinks(self) -> bool:
        """Declared a reasoning model, or seen reasoning in a reply by this process."""
        return self.reasoning or self.endpoint.reasons(self.model)

    @property
    def completion_cap(self) -> int | None:
        """The `max_tokens` requests are sent with (None: no cap): the user's cap as set, the
        default with room to think for a model that reasons, or no cap for one whose server
        refused that room (its context is smaller: its own limit is the most there is; under a
        budget `_budgeted` gives it what the budget leaves instead)."""
        if not self.max_tokens:
            return None
        if self.cap_default and self.thinks:
            if self.endpoint.refuses_room(self.model):
                return None
            return self.max_tokens + reasoning.THINKING_ROOM
        return self.max_tokens

    @property
    def thinking_cap(self) -> int:
        """The cap a request is sent with once the model is known to reason, the budget aside
        (0: none): a reply cut while thinking at a lower one (the room the budget held back, or
        not yet given) may answer when asked again, so the answer cache does not replay it."""
        if not self.max_tokens:
            return 0
        if self.cap_default:
            refused = self.endpoint.refuses_room(self.model)
            return 0 if refused else self.max_tokens + reasoning.THINKING_ROOM
        return self.max_tokens

    def _budgeted(
        self, cap: int | None, prompt: str, n: int, recorder: RequestRecorder
    ) -> int | None:
        """`cap`, its room to think held to what the budget's token and cost caps leave (the
        room is our default, not the user's: it must not carry a request past the budget);
        never below the plain default. A model whose server refused that room goes without a
        cap only while no budget limits tokens: under one it goes with what the budget leaves,
        held to what the server said it holds (the plain default when it said nothing)."""
        roomless = cap is None and self._room_refused()
        if not (roomless or self._widened(cap)) or self.max_tokens is None:
            return cap
        left = recorder.tokens_left()
        if left is None:
            return cap
        prompt_tokens = count_tokens(prompt)
        room = (left - prompt_tokens) // n
        if cap is not None:
            room = min(room, cap)
        else:
            held = self.endpoint.room(self.model).for_prompt(prompt_tokens)
            room = min(room, self.max_tokens if held is None else held)
        return max(self.max_tokens, room)

    def _room_refused(self) -> bool:
        """A default cap whose room to think the server refused (requests go without one)."""
        return self.cap_default and bool(self.max_tokens) and self.endpoint.refuses_room(self.model)

    def _widened(self, cap: int | None) -> bool:
        """`cap` is a default cap with room to think added."""
        return self.cap_default and cap is not None and cap > (self.max_tokens or 0)

    @property
    def url(self) -> str:
        """The endpoint as shown in messages: no user:password@, query values masked."""
        return secrets.public_url(self.base_url)

    @property
    def endpoint(self) -> inflight.Endpoint:
        """What this process knows about the endpoint (in-flight limit, `n` memory), shared by
        every model of its base URL (`inflight`)."""
        return inflight.endpoint(self.base_url)

    @property
    def n_honoured(self) -> bool:
        """False once this endpoint has returned fewer choices than asked or rejected `n`."""
        return not self.endpoint.ignores_n(self.model)

    def requests_needed(self, n: int) -> int:
        """HTTP requests `complete(prompt, n)` will make (as far as known): for rate limits."""
        return 1 if n == 1 or self.n_honoured else n

    def __repr__(self) -> str:
        return f"OpenAIModel({self.name!r})"

    # --- the protocol ---------------------------------------------------------------------
    async def complete_delivering(
        self,
        prompt: str,
        n: int,
        deliver: AnswerSink,
        *,
        recorder: RequestRecorder | None = None,
    ) -> list[Completion]:
        """`n` answers to `prompt`, each handed to `deliver` the moment its response is read
        (the parallel singles of an endpoint that ignores `n` end one by one; `complete` is
        this with no one to deliver to). Raises `ModelError` or `FatalModelError` (see module
        doc). Every request is reserved with, and reported to, `recorder` (none: not metered)."""
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        meter = recorder or UNMETERED
        if n == 1 or not self.n_honoured:
            return await self._singles(prompt, n, meter, deliver)
        try:
            answers = (await self._send(prompt, n, meter))[:n]
        except _NRejected:
            self._forget_n("rejected n")
            return await self._singles(prompt, n, meter, deliver)
        for answer in answers:
            deliver(answer)
        if len(answers) < n:
            self._forget_n(f"returned {len(answers)} of {n} choices")
            answers += await self._singles(
                prompt, n - len(answers), meter, deliver, have=len(answers)
            )
        return answers

    async def aclose(self) -> None:
        """Close this endpoint's HTTP connections on the running loop (optional: they are also
        closed when the loop ends). The client is shared: see `clients`."""
        await clients.aclose(self.base_url, self._key.reveal(), self.timeout, self.transport)

    # --- internals ------------------------------------------------------------------------
    def _forget_n(self, why: str) -> None:
        if self.n_honoured:
            logger.info("%s %s; using parallel single calls from now on", self.name, why)
        self.endpoint.forget_n(self.model)

    async def _singles(
        self,
        prompt: str,
        count: int,
        recorder: RequestRecorder,
        deliver: AnswerSink,
        have: int = 0,
    ) -> list[Completion]:
        """`count` parallel single requests (see `gather_singles`); `have` counts the answers
        already in hand, so that with some the call never fails for want of more. One request
        (the usual call) is awaited here: a gather would cost it a task."""
        try:
            if count > 1:
                return await gather_singles(
                    [self._send(prompt, 1, recorder) for _ in range(count)], deliver
                )
            answers = (await self._send(prompt, 1, recorder))[:1]
            for answer in answers:
                deliver(answer)
            return answers
        except ThoughtgraphError:
            if have:
                return []
            raise

    async def _send(self, prompt: str, n: int, recorder: RequestRecorder) -> list[Completion]:
        """One request for `n` answers (`_request`). A reply that shows reasoning teaches this
        process that the model reasons; one cut by the default cap while the model thought is
        asked again at once with room to think (a new request, reserved and counted like any
        other; refused by the budget, the cut answers stand)."""
        cap = self._budgeted(self.completion_cap, prompt, n, recorder)
        answers, cap = await self._roomy(prompt, n, recorder, cap)
        if any(a.reasons for a in answers):
            self._learn_reasoning()
        wider = self._budgeted(self.completion_cap, prompt, n, recorder)
        cut = sum(_cut_thinking(a) for a in answers)
        if cut and cap is not None and wider != cap and (wider is None or wider > cap):
            try:
                again, wider = await self._roomy(prompt, cut, recorder, wider)
            except (BudgetExhausted, ModelError):  # the cut answers were paid: they stand
                again = []
            if again:
                answers = [a for a in answers if not _cut_thinking(a)] + again
                cap = wider
        if cap is not None and any(_cut_thinking(a) for a in answers):
            full = self.completion_cap  # the room to think the budget did not hold back
            self._note_cut(cap, held=self.cap_default and (full is None or cap < full))
        return answers

    async def _roomy(
        self, prompt: str, n: int, recorder: RequestRecorder, cap: int | None
    ) -> tuple[list[Completion], int | None]:
        """`_request` at `cap`, and the cap it was answered at: a server that refuses the room
        to think a default cap was given (its context is smaller) is asked again, and so is
        every later request of the model, with no cap (its own limit) or, under a budget, what
        the budget leaves within what the server holds (`_budgeted`), never as much as it
        refused (else the plain default)."""
        try:
            return await self._request(prompt, n, recorder, cap), cap
        except _RoomRefused as refused:
            first = not self.endpoint.refuses_room(self.model)
            self.endpoint.refuse_room(self.model, refused.room)
            again = self._budgeted(None, prompt, n, recorder)
            if again is not None and cap is not None and again >= cap:
                again = self.max_tokens  # as much was refused: the server counts more
            if first:
                self._note_refused(cap, budgeted=again is not None)
        try:
            return await self._request(prompt, n, recorder, again), again
        except _RoomRefused:  # the server counts the prompt longer than we do
            return await self._request(prompt, n, recorder, self.max_tokens), self.max_tokens

    def _note_refused(self, cap: int | None, budgeted: bool) -> None:
        """Say once per model that its server refused the room to think, and what follows."""
        then = (
            "its requests go with what --max-tokens/--max-cost leave, held to what the server holds"
            if budgeted
            else "its requests go without a cap, to the server's own limit"
        )
        logger.warning(
            "%s refused a cap of %s tokens, room for the model to think (its context is "
            "smaller): %s (--max-completion-tokens N sets one)",
            self._where(),
            f"{cap or 0:,}",
            then,
        )

    def saw_reasoning(self) -> None:
        """A reply of this model read elsewhere (the answer cache) showed reasoning."""
        self._learn_reasoning()

    def _learn_reasoning(self) -> None:
        if not self.endpoint.reasons(self.model):
            logger.info(
                "%s reasons before it answers: its default cap has room to think", self.name
            )
        self.endpoint.learn_reasons(self.model)

    def _note_cut(self, cap: int, held: bool = False) -> None:
        """Say once per model and cap that the cap cut the model's thinking; `held`: a default
        cap the budget held below its room to think (a cap no one set: the budget says why)."""
        if (self.name, cap) in _CUT_NOTED:
            return
        _CUT_NOTED.add((self.name, cap))
        why = f" ({cap:,} tokens: the default cap, with the room to think the budget left)"
        logger.warning("%s%s", reasoning.hit_cap_line(cap), why if held else "")

    async def _request(
        self, prompt: str, n: int, recorder: RequestRecorder, cap: int | None
    ) -> list[Completion]:
        """One request for `n` answers capped at `cap` tokens, retried up to `max_retries`
        times. The one place requests are accounted for: every attempt is reserved with
        `recorder` before it leaves and reported to it when it ends. When the budget refuses a
        retry, the last failure stands (the run's stop reason says which cap)."""
        last: _Retryable | None = None
        for retry in range(self.max_retries + 1):
            if last is not None:
                await asyncio.sleep(_backoff(retry, last.retry_after))
            try:
                ticket = recorder.reserve(n)
            except BudgetExhausted:
                if last is None:
                    raise
                raise self._final(last.error, retry - 1) from None
            ended = _Ended()
            try:
                return await self._attempt(prompt, n, ended, cap)
            except _Retryable as exc:
                last = exc
            finally:
                ended.report(recorder, ticket)
        assert last is not None
        raise self._final(last.error, self.max_retries)

    def _final(self, error: ModelError, retries: int) -> ModelError:
        return ModelError(f"{error} (after {retries} retr{'y' if retries == 1 else 'ies'})")

    async def _attempt(
        self, prompt: str, n: int, ended: _Ended, cap: int | None
    ) -> list[Completion]:
        """One HTTP request; how it ended goes into `ended` (which `_send` reports)."""
        slot = None  # its place at the endpoint's gate
        try:
            # The request waits for a slot here, not in the server's queue (models/inflight.py).
            async with self.endpoint.slot() as slot:
                reply = await self._client().post(
                    "/chat/completions", self._arguments(prompt, n, cap), self.max_response_bytes
                )
                self.endpoint.learn_from_answer()
        except transport.Timeout as exc:  # a queueing server? lower its gate
            if slot is not None:
                self.endpoint.learn_from_timeout(self.name, slot)
            error = ModelError(f"{self._where()} did not answer within {self.timeout:g}s")
            if exc.connected:
                ended.attempt = Attempt(
                    "timeout", prompt_tokens=None, completion_tokens=None, error=str(error)
                )
            else:  # no connection was made: nothing was sent
                ended.sent = False
            raise _Retryable(error, None) from None
        except transport.Unreachable:
            ended.sent = False
            raise FatalModelError(
                f"cannot reach the endpoint at {self.url} (connection refused or host not found)"
            ) from None
        except transport.Broken as exc:
            error = ModelError(f"the connection to {self.url} failed ({exc.cause})")
            ended.attempt = Attempt(
                "connection", prompt_tokens=None, completion_tokens=None, error=str(error)
            )
            raise _Retryable(error, None) from None
        except transport.TooLarge as exc:  # not retried: the same answer would come again
            error = ModelError(
                f"{self._where()} sent a response larger than {exc.limit:,} bytes "
                "(max_response_bytes)"
            )
            ended.attempt = Attempt(
                "too large", prompt_tokens=None, completion_tokens=None, error=str(error)
            )
            raise error from None
        if not 200 <= reply.status < 300:
            self._refused(reply, n, ended, cap)
        unread = None  # why the body could not be read
        try:
            data = transport.loads(reply.body)
        except RefusedDocument as exc:  # nested 200,000 deep, a 5,000-digit number
            data, unread = None, f"a body it cannot read ({exc})"
        except ValueError:
            data, unread = None, "a body that is not JSON"
        try:
            answers = self._parse(data, prompt, unread)
        except ModelError as exc:
            usage = _body_usage(data)
            ended.attempt = Attempt(
                "malformed",
                0,
                None if usage is None else usage.prompt_tokens,
                None if usage is None else usage.completion_tokens,
                str(exc),
            )
            raise
        answers = [replace(a, cut_at=cap) if a.cut and cap else a for a in answers]
        billed = _sum_usage(answers)
        ended.attempt = Attempt(
            "ok",
            len(answers),
            billed.prompt_tokens,
            billed.completion_tokens,
            estimated=any(a.estimated for a in answers),
            reasoning_tokens=sum(a.reasoning_tokens for a in answers),
            thinking_cut=cap if any(_cut_thinking(a) for a in answers) else None,
        )
        return answers

    def _refused(self, reply: transport.Reply, n: int, ended: _Ended, cap: int | None) -> None:
        """Note an error status in `ended` and raise what it means: `_NRejected` (the endpoint
        refuses `n`), `_RoomRefused` (it refuses the room to think given to a default cap),
        `_Retryable` (408, 409, 429 not out of quota, 5xx) or the final error."""
        status = _Status(reply)
        if self._widened(cap) and status.refuses_length():
            reason = self._key.scrub(_reason(status))
            ended.attempt = Attempt(f"HTTP {reply.status}", error=reason)
            raise _RoomRefused(_room_said(_reason(status, limit=10_000)))
        if n > 1 and status.refuses_n():
            reason = self._key.scrub(_reason(status))
            ended.attempt = Attempt(f"HTTP {reply.status}", error=reason)
            raise _NRejected()
        error = self._status_error(status)
        ended.attempt = Attempt(f"HTTP {reply.status}", error=str(error), fatal=_fatal(error))
        if not isinstance(error, ModelError):
            raise error
        raise _Retryable(error, _retry_after(reply.headers))

    def _arguments(self, prompt: str, n: int, cap: int | None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
        }
        if n > 1:
            kwargs["n"] = n
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if cap:  # None: no cap, the server's own limit
            kwargs["max_tokens"] = cap
        if self.reasoning_effort is not None:
            kwargs["reasoning_effort"] = self.reasoning_effort
        return kwargs

    def _client(self) -> transport.Client:
        """The endpoint's shared client on this loop (`clients`: one per process and loop)."""
        key = self._key
        return clients.client_for(
            self.base_url, key.reveal(), self.timeout, self.transport, key.digest()
        )

    def _parse(self, data: object, prompt: str, unread: str | None) -> list[Completion]:
        """The answers of a chat-completions body; a malformed one is a retryable failure."""
        if unread is not None:
            raise ModelError(f"{self._where()} sent {unread}")
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(choices, list) or not choices:
            raise ModelError(f"{self._where()} sent an answer with no choices")
        choices = sorted(choices, key=_choice_index)
        read = [_choice(c) for c in choices]
        if any(r is None for r in read):
            raise ModelError(f"{self._where()} sent a choice with no text content")
        usage = data.get("usage")
        # An endpoint may echo the request headers into its answer (a debugging proxy, a
        # hostile server): the key must not reach the trace, the JSON output or the cache.
        scrubbed = [
            _Choice(self._key.scrub(r.answer), self._key.scrub(r.reasoning), r.cut)
            for r in read
            if r is not None
        ]
        return _with_usage(scrubbed, usage if isinstance(usage, dict) else {}, prompt)

    def _where(self) -> str:
        return f"the endpoint at {self.url}"

    def _status_error(self, exc: _Status) -> ThoughtgraphError:
        """One readable line for an error status, with the key scrubbed from anything quoted."""
        error = self._status_meaning(exc)
        return type(error)(self._key.scrub(str(error)))

    def _status_meaning(self, exc: _Status) -> ThoughtgraphError:
        status, where, reason = exc.status_code, self._where(), _reason(exc)
        if status in (401, 403):
            if not self._key.present:
                return FatalModelError(
                    f"{where} requires an API key (HTTP {status}); set "
                    f"{KEY_ENV} or name another variable with api_key_env"
                )
            return FatalModelError(f"{where} rejected the API key (HTTP {status})")
        if 300 <= status < 400:
            return FatalModelError(_redirect_line(where, status, exc.location))
        if status == 429 and _code(exc) == "insufficient_quota":
            return FatalModelError(f"{where} says the account is out of quota (HTTP 429)")
        if status == 429:
            return ModelError(f"{where} is rate limiting (HTTP 429)")
        if status >= 500 or status in (408, 409):
            return ModelError(f"{where} failed (HTTP {status}): {reason}")
        return FatalModelError(f"{where} refused the request (HTTP {status}): {reason}")


def _resolve_key(api_key: str | None, api_key_env: str | None, base_url: str) -> str | None:
    if api_key:
        return _checked(api_key, "api_key")
    variable = api_key_env or KEY_ENV
    value = os.environ.get(variable)
    if value:
        return _checked(value, variable)
    if api_key_env:
        raise FatalModelError(f"the environment variable {variable} (api_key_env) is not set")
    if base_url == DEFAULT_BASE_URL:
        raise FatalModelError(
            f"{KEY_ENV} is not set; it is needed for {DEFAULT_BASE_URL} "
            f"(set {BASE_URL_ENV} or base_url for a local server)"
        )
    return None  # a key-less local endpoint


def _checked(key: str, source: str) -> str:
    try:
        secrets.check_key(key, source)
    except ValueError as exc:
        raise FatalModelError(str(exc)) from None
    return key


_AT_URL = re.compile(r"@(?=https?://)", re.IGNORECASE)


def parse_spec(rest: str, spec: str) -> tuple[str, dict[str, str]]:
    """The model name and the options as written of `MODEL[@URL][,key=value...]` (what follows
    `openai:`): `@URL` is the `base_url` option. Only an `@` before `http://` or `https://`
    starts a URL, so a model named `claude-3@20240229` keeps its name."""
    head, _, text = rest.partition(",")
    model, at, url = _split_at_url(head)
    if not at:
        _refuse_other_endpoints(model, spec)
    if not model:
        raise UnknownNameError(f"{shown(spec)}: expected openai:MODEL, e.g. openai:gpt-4o-mini")
    options = parse_options(text, spec)
    if at:
        if "base_url" in options:
            raise UnknownNameError(
                f"{shown(spec)} gives its endpoint twice (@URL and base_url=): give one"
            )
        options = {"base_url": url, **options}
    return model, options


_AT_OTHER_URL = re.compile(r"@\s*[a-z][a-z0-9+.\-]*://", re.IGNORECASE)
_AT_HOST = re.compile(
    r"@\s*((?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]+\])(?::\d+)?|[\w.\-]+:\d+)(?:/\S*)?$",
    re.IGNORECASE,
)


def _refuse_other_endpoints(model: str, spec: str) -> None:
    """A name ending in `@` and an endpoint that is not http(s) (`@ftp://...`, `@127.0.0.1:8001/v1`
    with no scheme) is a mistyped endpoint, not a model's name: sent as the name to the default
    endpoint, it would also be shown with the URL's credentials. One line instead."""
    shown_spec = shown(secrets.mask_urls(spec))
    problem = f"{shown_spec}: the endpoint after @ must start with http:// or https://"
    if _AT_OTHER_URL.search(model):
        raise UnknownNameError(problem)
    host = _AT_HOST.search(model)
    if host:
        name, endpoint = model[: host.start()], model[host.start() + 1 :].strip()
        raise UnknownNameError(f"{problem} (did you mean openai:{name}@http://{endpoint}?)")


def _split_at_url(head: str) -> tuple[str, bool, str]:
    """`NAME@URL` -> (NAME, True, URL); a head with no URL -> (head, False, "")."""
    parts = _AT_URL.split(head, maxsplit=1)
    if len(parts) == 1:
        return head.strip(), False, ""
    return parts[0].strip(), True, parts[1].strip()


def _host_suffix(base_url: str) -> str:
    if base_url == DEFAULT_BASE_URL:
        return ""
    parts = urlsplit(base_url)
    host = parts.hostname or base_url  # hostname drops any user:password@
    return f"@{host}:{parts.port}" if parts.port else f"@{host}"


def _choice_index(choice: object) -> float:
    """Where a choice goes: its `index` when that is a whole number, else after those that have
    one (a hostile server's "a" or null must not stop the answers from being read)."""
    index = choice.get("index") if isinstance(choice, dict) else None
    return index if isinstance(index, int) and not isinstance(index, bool) else math.inf


@dataclass(frozen=True, slots=True)
class _Choice:
    """One choice as read: its answer, the thinking before it (`models.reasoning`) and whether
    the completion cap stopped it."""

    answer: str
    reasoning: str = ""
    cut: bool = False


def _choice(choice: object) -> _Choice | None:
    """The choice's answer and thinking (None: no text content and no thinking); lone
    surrogates (which no file or cache can store) become U+FFFD. Cut: it stopped at the cap
    (`finish_reason` "length"; a server that gives no reason, inside an unclosed `<think>`)."""
    message = choice.get("message") if isinstance(choice, dict) else None
    finish = choice.get("finish_reason") if isinstance(choice, dict) else None
    reply = (
        reasoning.read_message(message, finish == "length") if isinstance(message, dict) else None
    )
    if reply is None:
        return None
    cut = finish == "length" or (finish is None and reply.unclosed)
    return _Choice(_clean(reply.answer), _clean(reply.reasoning), cut)


def _clean(text: str) -> str:
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _cut_thinking(answer: Completion) -> bool:
    """The completion cap stopped this reply while (or after) the model thought."""
    return answer.cut and answer.reasons


def _with_usage(
    choices: list[_Choice], usage: Mapping[str, object], prompt: str
) -> list[Completion]:
    """Spread the response's usage over its choices so that their sum is what was billed:
    prompt tokens evenly, completion tokens (thinking included, `reasoning.billed_completion`)
    in proportion to each choice's length. A response that reports no usage (many local
    servers), or a count that is none (null, "20", -5), is counted from the texts, the
    thinking's as well as the answer's (`count_tokens`), and its answers are marked
    `estimated`, so the caps still hold and every report says so."""
    reported_prompt = _reported(usage.get("prompt_tokens"))
    reported_completion = _reported(usage.get("completion_tokens"))
    if reported_completion is None:  # none reported, or a value that is no count (null, "20", -5)
        shares = spread(
            count_tokens(prompt) if reported_prompt is None else reported_prompt,
            [1] * len(choices),
        )
        answers = []
        for choice, share in zip(choices, shares, strict=True):
            thinking = count_tokens(choice.reasoning) if choice.reasoning else 0
            completion = count_tokens(choice.answer) + thinking
            answers.append(_completion(choice, Usage(share, completion), thinking, True))
        return answers
    estimated = reported_prompt is None
    prompt_tokens = count_tokens(prompt) if reported_prompt is None else reported_prompt
    completion = reasoning.billed_completion(usage, reported_completion, prompt_tokens)
    thinking = min(_int(reasoning.reasoning_tokens(usage)), completion)
    if not thinking and any(c.reasoning for c in choices):  # vLLM, llama.cpp: not broken down
        thinking = reasoning.thinking_share(
            completion, sum(len(c.reasoning) for c in choices), sum(len(c.answer) for c in choices)
        )
    if len(choices) == 1:  # the usual request: nothing to spread
        return [_completion(choices[0], Usage(prompt_tokens, completion), thinking, estimated)]
    prompt_shares = spread(prompt_tokens, [1] * len(choices))
    lengths = [max(1, len(c.answer) + len(c.reasoning)) for c in choices]
    completion_shares = spread(completion, lengths)
    thought = [len(c.reasoning) for c in choices]
    thinking_shares = spread(thinking, thought if any(thought) else [1] * len(choices))
    return [
        _completion(choice, Usage(p, c), min(t, c), estimated)
        for choice, p, c, t in zip(
            choices, prompt_shares, completion_shares, thinking_shares, strict=True
        )
    ]


def _completion(
    choice: _Choice, usage: Usage, thinking: int, estimated: bool = False
) -> Completion:
    return Completion(
        choice.answer,
        usage,
        estimated=estimated,
        reasoning=choice.reasoning,
        reasoning_tokens=thinking,
        cut=choice.cut,
    )


def _sum_usage(answers: list[Completion]) -> Usage:
    return Usage(
        sum(a.usage.prompt_tokens for a in answers),
        sum(a.usage.completion_tokens for a in answers),
    )


def _body_usage(data: object) -> Usage | None:
    """The usage a response reported even though its answers were unusable (None: unknown)."""
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return None
    prompt = _int(usage.get("prompt_tokens"))
    completion = reasoning.billed_completion(usage, _int(usage.get("completion_tokens")), prompt)
    return Usage(prompt, completion)


class _Status:
    """An error response as the SDK reads one: `body` is the JSON's `error` member (or the
    whole JSON, or the text), `message` a fallback line; `param` and `code` from the body."""

    def __init__(self, reply: transport.Reply) -> None:
        self.status_code = reply.status
        text = reply.body.decode("utf-8", "replace").strip()
        body: object = text
        with contextlib.suppress(ValueError):
            body = transport.loads(text) if text else text
        self.message = (
            f"Error code: {reply.status} - {body}" if text else f"Error code: {reply.status}"
        )
        self.body: object = body.get("error", body) if isinstance(body, dict) else body
        self.param = self.body.get("param") if isinstance(self.body, dict) else None
        self.location = reply.headers.get("location")

    def refuses_length(self) -> bool:
        """The endpoint refuses the request's `max_tokens` as too many: vLLM's and SGLang's
        "maximum context length is N tokens", OpenAI's "max_tokens is too large"."""
        if self.status_code not in (400, 413, 422):
            return False
        return _TOO_LONG.search(_reason(self, limit=10_000)) is not None

    def refuses_n(self) -> bool:
        """The endpoint refuses `n > 1`: a 400 about `n`, or llama-server's "Only one
        completion choice is allowed" whatever its status (it sends 500 or 400)."""
        reason = _reason(self, limit=10_000)
        if _ONE_CHOICE.search(reason):
            return True
        return self.status_code == 400 and _mentions_n(self, reason)


_TOO_LONG = re.compile(
    r"maximum context length|context length of|max_(completion_)?tokens.{0,40}too large|"
    r"at most \d+ completion tokens",
    re.IGNORECASE,
)

# what a refusal says the server holds: vLLM's "maximum context length is 8192 tokens", SGLang's
# "maximum context length of 8192 tokens", OpenAI's "supports at most 16384 completion tokens"
_CONTEXT_SAID = re.compile(r"maximum context length (?:is|of) (\d{1,9}) tokens", re.IGNORECASE)
_COMPLETION_SAID = re.compile(r"at most (\d{1,9}) completion tokens", re.IGNORECASE)


def _room_said(reason: str) -> inflight.ServerRoom:
    """What a refusal of the room to think says the server holds (nothing: both None)."""
    context, completion = _CONTEXT_SAID.search(reason), _COMPLETION_SAID.search(reason)
    return inflight.ServerRoom(
        int(context.group(1)) if context else None,
        int(completion.group(1)) if completion else None,
    )


# llama.cpp's server (tools/server/utils.hpp): "Only one completion choice is allowed"
_ONE_CHOICE = re.compile(r"only one completion choice", re.IGNORECASE)


def _fatal(error: ThoughtgraphError) -> bool:
    return isinstance(error, FatalModelError)


def _backoff(retry: int, retry_after: float | None) -> float:
    """Seconds before retry number `retry` (1, 2, ...): the server's Retry-After when it gave a
    sane one, else exponential backoff with jitter."""
    if retry_after is not None and 0 <= retry_after <= _RETRY_AFTER_MAX:
        return retry_after
    delay = min(_BACKOFF_START * 2.0 ** (retry - 1), _BACKOFF_MAX)
    return delay * (1 - 0.25 * random.random())


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Retry-After-Ms or Retry-After (seconds or an HTTP date) of an error response."""
    try:
        milliseconds = headers.get("retry-after-ms")
        if milliseconds is not None:
            return float(milliseconds) / 1000
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return float(value)
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return when.timestamp() - time.time()
    except (TypeError, ValueError, OverflowError):
        return None


def _reported(value: object) -> int | None:
    """A reported token count, held as `_int` holds it; None: no count (missing, null, a
    string, a negative or fractional number, a bool), so the texts are counted instead."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    if isinstance(value, float):  # orjson reads an integer past 64 bits as a float
        if value >= _TOKENS_MAX:
            return _TOKENS_MAX
        return int(value) if value.is_integer() else None
    return min(value, _TOKENS_MAX)


def _int(value: object) -> int:
    """A reported token count; an absurd one is held at `_TOKENS_MAX` (still far past any cap)
    so that the answer it came with can be stored in the cache (orjson reads an integer past
    64 bits as a float)."""
    if isinstance(value, float) and value >= _TOKENS_MAX:
        return _TOKENS_MAX
    return min(value, _TOKENS_MAX) if isinstance(value, int) and value >= 0 else 0


def _mentions_n(status: _Status, reason: str) -> bool:
    if status.param == "n":
        return True
    return re.search(r"(?<![\w-])n(?![\w-])", reason) is not None


def _reason(status: _Status, limit: int = _REASON_CHARS) -> str:
    """The server's own short explanation, on one line, its secrets masked before it is clipped
    (clipped first, a long key quoted back would lose its tail and no longer match)."""
    body = status.body
    text = body.get("message") if isinstance(body, dict) else body
    if not isinstance(text, str) or not text.strip():
        text = status.message or type(status).__name__
    text = " ".join(secrets.clean_line(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _redirect_line(where: str, status: int, location: str | None) -> str:
    """A redirect, refused: following it would send the request (and its key) to an address no
    one named, uncounted, and a server redirecting to itself would draw requests without end."""
    if not location:
        return f"{where} answered HTTP {status} (a redirect) with no Location; it is not followed"
    shown_location = shown(secrets.clean_line(location))
    return (
        f"{where} redirected the request to {shown_location} (HTTP {status}); redirects are "
        "not followed: set base_url (--base-url) to the address you mean"
    )


def _code(status: _Status) -> object:
    """The error's `code` (else its `type`) as the body gives it (a server may send any JSON)."""
    body = status.body
    if isinstance(body, dict):
        return body.get("code") or body.get("type")
    return None


def _check_transport(name: str) -> None:
    """Refuse an unknown transport, or one whose libraries are missing, in one line."""
    if name not in transport.TRANSPORTS:
        raise UnknownNameError(
            f"openai option transport must be one of {', '.join(transport.TRANSPORTS)}, "
            f"got {name!r}"
        )
    from importlib.util import find_spec

    modules = ("aiohttp", "orjson") if name == "lean" else ("openai", "orjson")
    for module in modules:  # found, not imported: a plain http:// endpoint needs no aiohttp
        if find_spec(module) is None:
            raise UnknownNameError(
                f"openai transport={name} needs the {module} package (pip install {module})"
            )


def _check_settings(
    base_url: str | None, temperature: float | None, timeout: float, max_retries: int
) -> None:
    """Refuse, with one line, settings the SDK would only choke on later (NaN, a bad URL)."""
    if not (isinstance(timeout, int | float) and math.isfinite(timeout) and timeout > 0):
        raise UnknownNameError(
            f"openai option timeout must be a number of seconds > 0, got {timeout}"
        )
    if not isinstance(max_retries, int) or max_retries < 0:
        raise UnknownNameError(f"openai option max_retries must be 0 or more, got {max_retries}")
    if temperature is not None and not (
        isinstance(temperature, int | float) and 0 <= temperature <= 2
    ):  # NaN fails both comparisons
        raise UnknownNameError(
            f"openai option temperature must be between 0 and 2, got {temperature}"
        )
    if base_url is not None:
        try:
            parts = urlsplit(base_url)
            parts.port  # noqa: B018  (raises on a port out of range)
        except ValueError as exc:
            raise UnknownNameError(f"base_url is not a valid URL: {exc}") from None
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise UnknownNameError(
                "base_url must be an http:// or https:// URL with a host, "
                "e.g. http://127.0.0.1:8000/v1"
            )
