"""How a run numbers the answers to each prompt, for a model whose answers depend on the number.

An answer is sample i of its prompt when the run has asked that prompt for i answers before it:
`complete(p, n=3)` is samples 0, 1, 2 of `p`, and asking `p` again in the same run gives 3, 4,
... The numbers are taken when a call starts, before any await, so they follow the executor's
deterministic call order, not the order in which answers arrive; a call that fails gives its
numbers back to the next call of that prompt, so that a rerun in which it succeeds lines up.

The answer cache numbers its samples so (it keys each answer on its number, `cache.py`) and
tells the model which samples it fetches; without a cache, `NumberedModel` numbers the calls of
one run for a model that `takes_samples` (a user's function with a keyword `sample`), which is
how k samples of one prompt become k different answers, as the simulated model's do. Under
`eval --repeats R`, repeat r's samples are numbered from r * SAMPLES_PER_REPEAT, so each repeat
is answered by samples no other repeat asks for (`repeat_numbering`).
"""

from __future__ import annotations

import contextlib
import heapq
import threading
from collections import Counter
from collections.abc import Iterator

from thoughtgraph.models.base import (
    Completion,
    FunctionModel,
    LanguageModel,
    WrapperModel,
    asked_samples,
    asking,
    complete_with,
    takes_samples,
)
from thoughtgraph.models.imported import ImportedObject
from thoughtgraph.spend.ledger import RequestRecorder

SAMPLES_PER_REPEAT = 1_000_000  # repeat r of a pair asks for samples r * this + 0, 1, ...


class SampleCounter:
    """The sample numbers handed out per prompt, and those given back by failed calls."""

    def __init__(self) -> None:
        self._asked: Counter[str] = Counter()  # sample numbers handed out per prompt
        self._free: dict[str, list[int]] = {}  # numbers released by failed calls (heaps)
        self._lock = threading.Lock()

    def peek(self, prompt: str, n: int) -> list[int]:
        """The numbers the next `claim(prompt, n)` will hand out."""
        with self._lock:
            reused = sorted(self._free.get(prompt, []))[:n]
            start = self._asked[prompt]
        return sorted(reused + list(range(start, start + n - len(reused))))

    def claim(self, prompt: str, n: int) -> list[int]:
        """The next `n` sample numbers of this prompt, reusing those of failed calls first."""
        with self._lock:
            free = self._free.setdefault(prompt, [])
            reused = [heapq.heappop(free) for _ in range(min(n, len(free)))]
            start = self._asked[prompt]
            self._asked[prompt] += n - len(reused)
        return sorted(reused + list(range(start, start + n - len(reused))))

    def release(self, prompt: str, samples: list[int]) -> None:
        """A failed call got no answer: its numbers go to the next call of the prompt, so that
        a rerun, which may not fail there, still lines up with the answers recorded."""
        with self._lock:
            for sample in samples:
                heapq.heappush(self._free.setdefault(prompt, []), sample)


class NumberedModel(WrapperModel):
    """One run's model that takes samples, with no answer cache to number them: each call is
    asked for the next samples of its prompt (`SampleCounter`)."""

    def __init__(self, inner: LanguageModel) -> None:
        super().__init__(inner)
        self.counter = SampleCounter()

    async def complete(
        self, prompt: str, n: int = 1, *, recorder: RequestRecorder | None = None
    ) -> list[Completion]:
        samples = self.counter.claim(prompt, n)  # before any await: follows the call order
        try:
            with asking(samples):
                return await complete_with(self.inner, prompt, n, recorder)
        except BaseException:  # failed or cancelled: the next call of the prompt asks again
            self.counter.release(prompt, samples)
            raise


def numbered(model: LanguageModel) -> LanguageModel:
    """`model` with its samples numbered for one run when it takes them, else `model` itself
    (nothing changes for a model whose answers do not depend on the number)."""
    return NumberedModel(model) if takes_samples(model) else model


def ignores_samples(model: object) -> bool:
    """A user's code (a function, a `py:` object) that takes no `sample`: asked for k samples of
    one prompt, it is called k times with the same prompt, so they differ only if it draws at
    random itself (what `eval` notes when a row or `--repeats` asks for several)."""
    return isinstance(model, FunctionModel | ImportedObject) and not takes_samples(model)


@contextlib.contextmanager
def repeat_numbering(repeat: int, n: int) -> Iterator[None]:
    """Within this block, the `n` samples asked for are those of repeat `repeat`: sample i is
    asked as `repeat * SAMPLES_PER_REPEAT + i`."""
    with asking([repeat * SAMPLES_PER_REPEAT + s for s in asked_samples(n)]):
        yield
