"""A tune's options, checked once: `TuneConfig` holds the `RunOptions` every pair runs under
(concurrency, the whole tune's caps, the price, rate limits) and tune's own settings.

`thoughtgraph.tune(...)` and `thoughtgraph tune` turn their keywords and flags into one
(`api.tuning.tune_config`); everything below takes the object. Each option is checked here,
with the one line the command line has always printed for it (tune names its options by their
`--flags`, from Python too); what needs the task or the data (the splits, a target above a
rating scale) is checked by `tuning.plan`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from thoughtgraph.engine.options import RunOptions
from thoughtgraph.errors import InputError, shown
from thoughtgraph.modelspec import ModelLike, check_kind
from thoughtgraph.spend.budget import check_whole
from thoughtgraph.tuning import space
from thoughtgraph.tuning.jobs import COST_METRICS
from thoughtgraph.tuning.propose import check_count

ModelOption = str | int | float | None
"""The value of one openai option (`base_url`, `temperature`, ...); None: not given."""

MODEL_OPTIONS = (
    "base_url",
    "api_key_env",
    "temperature",
    "max_completion_tokens",
    "timeout",
    "max_retries",
    "max_response_bytes",
    "reasoning",
    "reasoning_effort",
)
"""The openai options tune takes, named as its flags are (`--max-completion-tokens`), in the
order the flags are listed and refused."""


@dataclass(frozen=True, kw_only=True)
class TuneConfig:
    """Every option of one tune (`thoughtgraph.tune` documents each), checked when made.

    `run` is the options of the pairs: its caps are the whole tune's (trials, baselines and
    held-out runs, and earlier runs into the same folder), its `cache` is unused (a tune keeps
    one answer cache per graph in `cache_dir`). `out` None is the command line's default folder,
    `runs/tune-TASK-SIZE`. `note` hears each progress line (None: stderr). Where the jobs run
    (here, or Ray) is not an option but an object, the `JobBackend` `run_tune` is handed.
    """

    run: RunOptions = field(default_factory=lambda: RunOptions(flags=True))
    model: ModelLike = "sim"
    model_options: Mapping[str, ModelOption] = field(default_factory=dict)
    models: Mapping[str, str] = field(default_factory=dict)  # kinds routed to other models
    # in every run (`--model-for KIND=SPEC`): kind -> spec
    candidates: Mapping[str, str] = field(default_factory=dict)  # the models a trial chooses
    # among for each kind of call its graph makes (`--models NAME=SPEC,...`): name -> spec
    schemes: tuple[str, ...] = ("got", "got_paper")
    dataset: str | None = None
    size: int | None = None
    input_column: str = "input"
    trials: int = 30
    pilot: int = 10
    holdout: int = 20
    cost: str = "completions"
    target: float | None = None
    parallel: int = 4
    report_max: int = 6
    seed: int = 0
    out: Path | None = None
    cache_dir: Path | None = None
    prompts: Path | None = None
    propose: int = 0
    note: Callable[[str], None] | None = None

    def __post_init__(self) -> None:
        unknown = sorted(set(self.model_options) - set(MODEL_OPTIONS))
        if unknown:
            raise InputError(f"tune() got an unknown option {unknown[0]!r}")
        for name in ("trials", "pilot", "parallel", "report_max"):
            check_whole(_flag(name), getattr(self, name), 1, required=True, flags=True)
        check_count(self.propose)
        check_whole("--holdout", self.holdout, 0, required=True)  # "must be 0 or more"
        if self.cost not in COST_METRICS:
            raise InputError(
                f"--cost must be one of {', '.join(COST_METRICS)}, got {shown(self.cost)}"
            )
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise InputError(f"--seed must be a whole number, got {shown(self.seed)}")
        if not 0 <= self.seed < 2**32:  # Optuna's samplers (numpy) take 0 .. 2**32 - 1
            raise InputError(f"--seed must be between 0 and {2**32 - 1}, got {self.seed}")
        if self.target is not None and not (math.isfinite(self.target) and self.target >= 0):
            raise InputError(f"--target must be 0 or more, got {self.target}")
        object.__setattr__(self, "schemes", space.check_schemes(self.schemes))
        _check_models(self.models, self.candidates)

    @property
    def model_flags(self) -> dict[str, object]:
        """The openai options by flag (`{"--base-url": ..., ...}`, None: not given), as
        `modelspec.model_from_flags` checks them."""
        return {_flag(name): self.model_options.get(name) for name in MODEL_OPTIONS}


_NAME = re.compile(r"^[A-Za-z_][\w.-]*$")


def _check_models(models: Mapping[str, str], candidates: Mapping[str, str]) -> None:
    """`--model-for` kinds known and specs given as text (a tune builds each run's models from
    their specs, here or on a Ray worker); `--models` at least two named specs."""
    for kind, spec in models.items():
        check_kind(kind, "--model-for")
        if not isinstance(spec, str) or not spec.strip():
            raise InputError(
                f"--model-for {kind}: tune takes a model spec (text such as 'openai:NAME'), "
                f"got {type(spec).__name__}"
            )
    if not candidates:
        return
    for name, spec in candidates.items():
        if not isinstance(name, str) or not _NAME.match(name):
            raise InputError(f"--models: a candidate's name must be a word, got {shown(name)}")
        if not isinstance(spec, str) or not spec.strip():
            raise InputError(f"--models {name}: give a model spec (text such as 'openai:NAME')")
    if len(candidates) < 2:
        raise InputError("--models needs at least two candidates to choose among (NAME=SPEC,...)")


def parse_candidates(values: Sequence[str]) -> dict[str, str]:
    """`--models NAME=SPEC,NAME=SPEC` (repeatable): name -> spec. A spec may hold commas and
    `=` of its own options (`small=sim:error=2,price_in=1,price_out=2,big=sim:error=0`): a new
    candidate starts only where `NAME=` is followed by a model scheme (sim, openai, py)."""
    found: dict[str, str] = {}
    for value in values:
        current: str | None = None
        for item in value.split(","):
            match = _CANDIDATE.match(item.strip())
            if match:
                current = match.group(1)
                if current in found:
                    raise InputError(f"--models names {current} twice: give each name once")
                found[current] = match.group(2)
            elif current is None:
                raise InputError(
                    f"--models takes NAME=SPEC,... (e.g. small=openai:a@http://127.0.0.1:8001/v1,"
                    f"big=openai:b@http://127.0.0.1:8002/v1), got {shown(value)}"
                )
            else:
                found[current] += "," + item
    return found


_CANDIDATE = re.compile(
    r"^([A-Za-z_][\w.-]*)=((?:sim|openai|py|python)(?:[:/].*)?)$", re.IGNORECASE
)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")
