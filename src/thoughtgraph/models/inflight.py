"""What this process knows about one OpenAI-compatible endpoint (base URL), in one object: how
many requests it takes at once, learned from its timeouts, and which of its models ignore `n`.

Local servers often answer one request at a time (llama.cpp's, measured in
docs/local-models.md: a burst of 6 finished 1.9, 4.4, 4.9, 7.1, 11.3 and 13.1 s after it was
sent). Sent 16 at once, the last ones wait in the server's queue, time out although the server
was busy with their elders, and are sent again: the queue only grows. A request that waits
*here*, for a slot, starts no timeout clock. So:

- each endpoint has a gate (`Endpoint.slot`); with no limit known it lets every request through;
- when a request times out while others were in flight to the same endpoint, the endpoint is
  taken to queue: its limit becomes half the requests that were in flight (at least 1), said
  in one `note:` line (a warning of this logger: the command line shows it without `-v`).
  Later requests wait at the gate;
- one burst lowers it once: the requests already in flight when it was lowered were sent
  under the old limit, and their timeouts say nothing new;
- a request that timed out while more requests sent after it were answered than were ahead
  of it did not wait in a queue: it hung (the server lost it). That says nothing about how
  many the server takes at once, and lowers nothing (7 hung requests in 2,000, each halving
  the limit, once took `--concurrency 64` down to 1 for the rest of an eval: 558 s, not 40 s);
- the limit grows back: each run of as many answers in a row as the limit raises it by one,
  up to one less than the requests in flight at the timeout that lowered it (or
  `max_in_flight`, if less): a server that queues ends at the most it answers in time, a
  server that lost a few requests at about where it was;
- `max_in_flight=K` in the model spec sets the limit from the start, and is the most it grows
  back to.

The same object remembers the models of the endpoint seen returning fewer choices than asked or
rejecting `n` (`ignores_n` / `forget_n`): later calls go straight to parallel single requests;
and those seen reasoning before they answer (`reasons` / `learn_reasons`): their default
completion cap then has room to think (`OpenAIModel.completion_cap`), unless the server refused
that room (`refuses_room` / `refuse_room`: its context is smaller; then no cap is sent, or
under a budget what the budget leaves, held to the context the server said it has).

Every `OpenAIModel` of one base URL reads the same `Endpoint` (`endpoint(base_url)`), so what
one learned, the others know; `forget_endpoints()` starts afresh (tests). The knowledge is per
process (three processes on one server each learn for themselves); the gates are per event loop,
as asyncio primitives cannot cross loops.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Slot:
    """A request's place at the gate: how many others were in flight when it took it, and how
    many answers the endpoint had had by then (`Endpoint.answers`)."""

    others: int
    answers_before: int
    generation: int  # the limit's generation when the slot was taken (`Endpoint.generation`)


class _Gate:
    """Admits requests to one endpoint, on one loop, while fewer than its limit are in flight.

    A request that finds the gate open and no one waiting goes straight through (the usual
    case: no limit is known); the others wait their turn on the condition, woken as slots free.
    The gate lives on one loop, so its counts need no lock."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.in_flight = 0
        self._waiting = 0
        self._changed = asyncio.Condition()

    def _open(self) -> bool:
        limit = self.endpoint.limit
        return limit is None or self.in_flight < limit

    def slot(self) -> _Held:
        return _Held(self)

    async def take(self) -> Slot:
        if not self._waiting and self._open():  # no one ahead in the queue
            return self._admit()
        self._waiting += 1
        try:
            async with self._changed:
                await self._changed.wait_for(self._open)
                return self._admit()
        finally:
            self._waiting -= 1

    def _admit(self) -> Slot:
        taken = self.endpoint.taken(self.in_flight)
        self.in_flight += 1
        return taken

    async def release(self) -> None:
        self.in_flight -= 1
        if self._waiting:
            async with self._changed:
                self._changed.notify_all()


class _Held(AbstractAsyncContextManager[Slot]):
    """A slot held for the time of one request (`async with endpoint.slot() as slot`)."""

    __slots__ = ("_gate",)

    def __init__(self, gate: _Gate) -> None:
        self._gate = gate

    async def __aenter__(self) -> Slot:
        return await self._gate.take()

    async def __aexit__(self, *_exc: object) -> None:
        await self._gate.release()


@dataclass(frozen=True)
class ServerRoom:
    """What a server that refused a cap said it holds (None: it did not say)."""

    context: int | None = None  # prompt and completion together (vLLM, SGLang)
    completion: int | None = None  # the completion alone (OpenAI: "at most N completion tokens")

    @property
    def said(self) -> bool:
        return self.context is not None or self.completion is not None

    def for_prompt(self, prompt_tokens: int) -> int | None:
        """The most completion tokens a request with this prompt may ask for (None: unsaid)."""
        context = None if self.context is None else self.context - prompt_tokens
        most = [room for room in (context, self.completion) if room is not None]
        return min(most) if most else None


class Endpoint:
    """One endpoint's learned limits: requests in flight at once and the models that ignore `n`."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.limit: int | None = None  # most requests in flight at once (learned, or set)
        self.ceiling: int | None = None  # what a lowered limit grows back to
        self.answers = 0  # requests answered (any status) within their deadline
        self.generation = 0  # times the limit was lowered
        self._streak = 0  # answers since the limit last changed
        self.n_ignored: set[str] = set()  # models seen returning fewer choices than asked
        self.reasoning: set[str] = set()  # models seen reasoning before they answer
        # models whose server refused a cap with room to think, and what it said it holds
        self.no_room: dict[str, ServerRoom] = {}
        self._lock = threading.Lock()
        self._gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Gate]
        self._gates = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"Endpoint(limit={self.limit}, n_ignored={sorted(self.n_ignored)})"

    # --- requests in flight ---------------------------------------------------------------
    def slot(self) -> AbstractAsyncContextManager[Slot]:
        """Hold a slot; yields the `Slot` (how many others were in flight, ...)."""
        loop = asyncio.get_running_loop()
        gate = self._gates.get(loop)
        if gate is None:
            with self._lock:
                gate = self._gates.setdefault(loop, _Gate(self))
        return gate.slot()

    def taken(self, others: int) -> Slot:
        """The `Slot` of a request taking its place now, `others` in flight besides it."""
        with self._lock:
            return Slot(others, self.answers, self.generation)

    def set_limit(self, limit: int) -> None:
        """`max_in_flight`: at most `limit` requests at once from now on."""
        if limit < 1:
            raise ValueError(f"max_in_flight must be at least 1, got {limit}")
        with self._lock:
            self.limit = self.ceiling = limit
            self._streak = 0

    def learn_from_timeout(self, name: str, slot: Slot) -> None:
        """A request timed out: if it waited in the server's queue, lower the limit (see the
        module doc for when it did not) and the ceiling it grows back to."""
        if slot.others < 1:
            return  # alone and still too slow: the timeout is too short, not the queue too long
        in_flight = slot.others + 1
        limit = max(1, in_flight // 2)
        with self._lock:
            if slot.generation != self.generation:
                return  # sent before the limit was last lowered: the same burst
            if self.answers - slot.answers_before - slot.others > slot.others:
                return  # overtaken by more later requests than were ahead of it: it hung
            if self.limit is not None and self.limit <= limit:
                return
            self.limit = limit
            self.ceiling = max(limit, min(self.ceiling or in_flight, in_flight - 1))
            self.generation += 1
            self._streak = 0
        logger.warning(
            "%s timed out with %d requests in flight: it seems to queue them; sending at most "
            "%d at once, and more again as answers come in time",
            name,
            in_flight,
            limit,
        )

    def learn_from_answer(self) -> None:
        """A request was answered in time: after as many in a row as the limit, raise a limit
        that was lowered by one, up to its ceiling. Called while the request holds its slot,
        so that the waiters, woken when it lets go, see the new limit."""
        with self._lock:
            self.answers += 1
            if self.limit is None or self.ceiling is None or self.limit >= self.ceiling:
                return
            self._streak += 1
            if self._streak >= self.limit:
                self._streak = 0
                self.limit += 1

    # --- the `n` memory -------------------------------------------------------------------
    def ignores_n(self, model: str) -> bool:
        return model in self.n_ignored

    def forget_n(self, model: str) -> None:
        """`model` here returned fewer choices than asked or rejected `n`: from now on its
        calls go as parallel single requests."""
        with self._lock:
            self.n_ignored.add(model)

    # --- the reasoning memory -------------------------------------------------------------
    def reasons(self, model: str) -> bool:
        return model in self.reasoning

    def learn_reasons(self, model: str) -> None:
        """`model` here showed its reasoning in a reply: from now on its default cap has room
        for it to think."""
        with self._lock:
            self.reasoning.add(model)

    def refuses_room(self, model: str) -> bool:
        return model in self.no_room

    def room(self, model: str) -> ServerRoom:
        """What the server that refused `model` room to think said it holds."""
        return self.no_room.get(model, ServerRoom())

    def refuse_room(self, model: str, room: ServerRoom) -> None:
        """The server refused `model` a default cap with room to think (its context is
        smaller): from now on its requests go without a cap, or, under a budget, with what the
        budget leaves held to `room` (a later refusal that says more replaces one that did not)."""
        with self._lock:
            if room.said or model not in self.no_room:
                self.no_room[model] = room


_endpoints: dict[str, Endpoint] = {}
_registry_lock = threading.Lock()


def endpoint(base_url: str) -> Endpoint:
    """The one `Endpoint` of `base_url` in this process."""
    found = _endpoints.get(base_url)
    if found is None:
        with _registry_lock:
            found = _endpoints.setdefault(base_url, Endpoint(base_url))
    return found


def forget_endpoints() -> None:
    """Forget every endpoint's learned limits and `n` memory (a test's fresh start)."""
    with _registry_lock:
        _endpoints.clear()
