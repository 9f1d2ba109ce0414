"""The simulated model: an offline stand-in that reads prompts as a model would and slips.

It reads the prompt (`readers.py`: which task, which job, the right answer and its length),
draws how many slips to make, and writes the answer with them. The number of slips is Poisson
with the mean its profile's law gives for the job's task, kind and length, times `error` (or the
job kind's own scale, `part_error=6`: a model weak at one kind of job and fine at the others);
the law's mix says which kind each slip is (`profiles.py`, `laws.py`). The default profile,
`gpt-3.5-paper`, is calibrated so that the paper's configurations land near its GPT-3.5 figures
on its datasets (docs/simulated-model.md, bench/calibrate.py); `llama-3-70b` and
`gpt-3.5-turbo` are fitted call by call to real replies (scripts/fit_profiles.py), and a
profile file of one's own works the same way.

Randomness is drawn per call from (seed, prompt, how many times this prompt was asked before),
so answers do not depend on the order in which concurrent calls complete. It is always labelled
as simulated; it is a test double for the engine, not evidence about any real model.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from collections.abc import Mapping
from types import MappingProxyType

from thoughtgraph.errors import UnknownNameError, shown
from thoughtgraph.io.bounds import MAX_SIM_LATENCY
from thoughtgraph.models.base import Completion, _tokens
from thoughtgraph.sim import propose, wakeups
from thoughtgraph.sim.jobs import Job, Slips, poisson
from thoughtgraph.sim.laws import UNIFORM, Mix
from thoughtgraph.sim.profiles import DEFAULT, KINDS, Profile, load_profile, shipped
from thoughtgraph.sim.readers import read_prompt
from thoughtgraph.sim.sorting import Item, slip_list
from thoughtgraph.spend.pricing import Price
from thoughtgraph.spend.usage import Usage


def expected_slips(
    task: str, kind: str, length: float, error: float = 1.0, profile: str = DEFAULT
) -> float:
    """The mean number of slips of a job (before the draw), at the length its law measures."""
    return shipped(profile).law(task, kind).expected(length, error)


SCALE_SUFFIX = "_error"  # `part_error=6`: the slip scale of one job kind


def kind_scales(given: Mapping[str, float], error: float) -> dict[str, float]:
    """The job kinds' own slip scales, checked, in `KINDS` order; a kind at `error` is left
    out (it answers as without it, so its name and cache key are the same)."""
    for kind, scale in given.items():
        if kind not in KINDS:
            raise UnknownNameError(
                f"sim option {shown(kind + SCALE_SUFFIX)}: unknown job kind {shown(kind)} "
                f"(known: {', '.join(KINDS)})"
            )
        if not (math.isfinite(scale) and scale >= 0):
            raise UnknownNameError(
                f"sim option {kind}{SCALE_SUFFIX} must be 0 or more, got {scale:g}"
            )
    return {kind: given[kind] for kind in KINDS if kind in given and given[kind] != error}


# a prompt's reading and its job's law, worked out once for all of its answers (`_plan`):
# (tune --propose's meta-prompt?, its job (None: none read), the mean slips, their mix, the
# Slips of an answer without a slip, the job kind's slip scale)
_Plan = tuple[bool, Job | None, float, Mix, Slips, float]
_PLANS = 16  # prompts whose plan a model keeps: a request's n answers are written one after
# another, and bench/reference.py asks one prompt's answers in a row
_META: _Plan = (True, None, 0.0, UNIFORM, Slips(0, UNIFORM), 0.0)
_UNREAD: _Plan = (False, None, 0.0, UNIFORM, Slips(0, UNIFORM), 0.0)


class SimulatedModel:
    """`sim`, `sim:latency=0.05,error=0,seed=1`, `sim:profile=llama-3-70b`. error: slip scale
    (0 never wrong); `kind_error`: a job kind's own scale in its place (`sim:part_error=6`:
    parts slip six times as often, merges and refines as at `error`); profile: a shipped
    profile's name, a profile file or a `Profile` (`profiles.py`)."""

    simulated = True
    price: Price | None = None  # a spec's `price_in=`/`price_out=` (modelspec.py): the sim at a
    # pretend price, so cost caps and a cost/error front can be tried offline

    def __init__(
        self,
        error: float = 1.0,
        latency: float = 0.0,
        seed: int = 0,
        profile: str | Profile = DEFAULT,
        kind_error: Mapping[str, float] | None = None,
    ) -> None:
        if error < 0 or latency < 0:
            raise UnknownNameError("sim options error and latency must be 0 or more")
        if latency > MAX_SIM_LATENCY:  # 1e12 would sleep for ever with no error
            raise UnknownNameError(
                f"sim option latency is at most {MAX_SIM_LATENCY:g} seconds, got {latency:g}"
            )
        self.latency, self.seed = latency, seed
        # read-only after this (properties below): the name, the answer cache's key, and the
        # prompts' plans (`_plan`) are worked out from them
        self._error = error
        self._kind_error = MappingProxyType(kind_scales(kind_error or {}, error))
        self.profile_spec = profile
        self._profile: Profile = load_profile(profile)
        self._seen: Counter[str] = Counter()
        self._plans: dict[str, _Plan] = {}
        # the profile first: every header, report and figure names the sim by this, and answers
        # of one profile are not another's in a cache
        label = profile if isinstance(profile, str) else self.profile.name
        # and a kind's own scale after the rest: two settings never share cached answers
        scales = "".join(f",{k}{SCALE_SUFFIX}={v:g}" for k, v in self.kind_error.items())
        self.name = f"sim:profile={label},latency={latency:g},error={error:g},seed={seed}{scales}"

    @property
    def error(self) -> float:
        """The slip scale of every job kind without its own (fixed when the model is made)."""
        return self._error

    @property
    def kind_error(self) -> Mapping[str, float]:
        """Job kinds' own slip scales (`part_error=`...), fixed when the model is made."""
        return self._kind_error

    @property
    def profile(self) -> Profile:
        return self._profile

    def __setstate__(self, state: dict[str, object]) -> None:
        """A pickle from before the plans (or the read-only settings) existed loads too."""
        for old in ("error", "kind_error", "profile"):
            if old in state:
                state["_" + old] = state.pop(old)
        if isinstance(state.get("_kind_error"), dict):
            state["_kind_error"] = MappingProxyType(state["_kind_error"])  # type: ignore[arg-type]
        state.setdefault("_plans", {})
        self.__dict__.update(state)

    @classmethod
    def from_options(cls, options: dict[str, str]) -> SimulatedModel:
        known: dict[str, type[float] | type[int]] = {"error": float, "latency": float, "seed": int}
        numbers: dict[str, float | int] = {}
        scales: dict[str, float] = {}
        for key, text in options.items():
            if key == "profile":
                continue
            if key.endswith(SCALE_SUFFIX) and key != SCALE_SUFFIX:
                scales[key.removesuffix(SCALE_SUFFIX)] = _number(key, text)
                continue
            if key not in known:
                raise UnknownNameError(
                    f"unknown sim option {shown(key)} "
                    "(known: error, latency, seed, profile, KIND_error such as part_error)"
                )
            try:
                numbers[key] = known[key](text)
            except ValueError:
                raise UnknownNameError(f"sim option {key}={shown(text)} is not a number") from None
            if not math.isfinite(numbers[key]):
                raise UnknownNameError(f"sim option {key}={shown(text)} is not a finite number")
        profile = options.get("profile", DEFAULT)
        if not profile:
            raise UnknownNameError("sim option profile= needs a profile name or file")
        return cls(
            error=float(numbers.get("error", 1.0)),
            latency=float(numbers.get("latency", 0.0)),
            seed=int(numbers.get("seed", 0)),
            profile=profile,
            kind_error=scales,
        )

    def with_seed(self, seed: int) -> SimulatedModel:
        """A fresh copy (nothing asked yet) with another seed, the same profile and options."""
        fresh = SimulatedModel(
            self.error, self.latency, seed, self.profile_spec, dict(self.kind_error)
        )
        fresh.price = self.price
        return fresh

    def __getstate__(self) -> dict[str, object]:
        """A pickled copy (Ray's workers) without the plans: they hold the readings' writers,
        and a copy works them out again."""
        state = dict(self.__dict__)
        state["_plans"] = {}
        state["_kind_error"] = dict(self._kind_error)  # a read-only view does not pickle
        return state

    async def complete(self, prompt: str, n: int = 1) -> list[Completion]:
        """The answers, `latency` seconds after the call, written while the latency runs (as a
        server writes them while its client waits): a run's wall time then holds the
        simulated latency and the client's work, not the simulated server's as well."""
        first = self._seen.get(prompt, 0)
        self._seen[prompt] = first + n
        if not self.latency:
            return self._completions(prompt, first, n)
        waiting = wakeups.begin(self.latency)  # one timer for all waits, not one each
        try:
            completions = self._completions(prompt, first, n)
        except BaseException:
            wakeups.abandon(waiting)
            raise
        await wakeups.finish(waiting)
        return completions

    def _completions(self, prompt: str, first: int, n: int) -> list[Completion]:
        """Answers `first` .. `first + n - 1` to the prompt, with their tokens."""
        texts = [self.answer(prompt, self._rng(prompt, first + i)) for i in range(n)]
        used = _tokens(prompt)
        return [Completion(t, Usage(used, _tokens(t))) for t in texts]

    def _rng(self, prompt: str, occurrence: int) -> random.Random:
        # the digest of f"{seed}\0{occurrence}\0{prompt}", without copying the prompt into it
        digest = hashlib.sha256(f"{self.seed}\x00{occurrence}\x00".encode())
        digest.update(prompt.encode())
        return random.Random(int.from_bytes(digest.digest()[:8], "big"))

    def answer(self, prompt: str, rng: random.Random) -> str:
        plan = self._plans.get(prompt) or self._plan(prompt)
        meta, job, mean, mix, none, scale = plan
        if meta:  # `tune --propose`: the sim ignores wording
            return propose.rewrite(prompt, rng)
        if job is None:
            return "I could not find anything to work on in this prompt."
        count = poisson(mean, rng)  # as `slips` draws it
        return job.write(Slips(count, mix) if count else none, rng, scale)

    def _plan(self, prompt: str) -> _Plan:
        """What `answer` needs of a prompt before its draws, worked out once for all of its
        answers: whether it is `tune --propose`'s, its job, the job's mean slips and mix (as
        `slips` works them out), the `Slips` of its answers without a slip, and its scale. A
        model's settings do not change once made, so neither does a plan."""
        if propose.is_meta_prompt(prompt):
            plan: _Plan = _META
        elif (job := read_prompt(prompt)) is None:
            plan = _UNREAD
        else:
            law = self.profile.law(job.task, job.kind)
            length = job.measure(law.measure)
            mix, scale = law.mix_at(length), self.scale(job.kind)
            plan = (False, job, law.expected(length, scale), mix, Slips(0, mix), scale)
        if len(self._plans) >= _PLANS:
            self._plans.clear()
        self._plans[prompt] = plan
        return plan

    def scale(self, kind: str) -> float:
        """The slip scale of a job kind: its own (`part_error=`) or `error`."""
        return self.kind_error.get(kind, self.error)

    def slips(self, job: Job, rng: random.Random) -> Slips:
        """How many slips this answer makes (a Poisson draw around the job's law) and the mix
        their kinds are drawn from, at the length the law measures."""
        law = self.profile.law(job.task, job.kind)
        length = job.measure(law.measure)
        return Slips(poisson(law.expected(length, self.scale(job.kind)), rng), law.mix_at(length))

    def slip(self, items: list[Item], rng: random.Random) -> list[Item]:
        """A list answer of a sorting job, with this model's slips (drop, duplicate, swap)."""
        job = Job("sorting", "solve", len(items), lambda *_: "")
        return slip_list(items, self.slips(job, rng), rng)


def _number(key: str, text: str) -> float:
    """A sim option's number, finite (one line when it is not)."""
    try:
        value = float(text)
    except ValueError:
        raise UnknownNameError(f"sim option {key}={shown(text)} is not a number") from None
    if not math.isfinite(value):
        raise UnknownNameError(f"sim option {key}={shown(text)} is not a finite number")
    return value
