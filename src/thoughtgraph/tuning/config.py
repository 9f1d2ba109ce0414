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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from thoughtgraph.engine.options import RunOptions
from thoughtgraph.errors import InputError, shown
from thoughtgraph.modelspec import ModelLike
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

    @property
    def model_flags(self) -> dict[str, object]:
        """The openai options by flag (`{"--base-url": ..., ...}`, None: not given), as
        `modelspec.model_from_flags` checks them."""
        return {_flag(name): self.model_options.get(name) for name in MODEL_OPTIONS}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")
