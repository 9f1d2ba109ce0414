"""A default cap on the tokens of each answer, from the size of the answer the problem expects.

Why: a model that loops ("[the result is [the result is ...") writes until the server's own
limit, which local servers often leave at the context size; a refine on 8 numbers ran 1,865
tokens. When the user sets no `--max-completion-tokens` (`max_tokens` in a model spec), each
answer of a run is capped at `CAP_FACTOR` times the expected answer's tokens plus `CAP_MARGIN`
(room for a chain of thought). The expected answer is the larger of the problem's reference
answer and the problem itself, as the task renders them, at `CHARS_PER_TOKEN` characters a
token (numbers tokenize short: this errs towards a higher cap). `--max-completion-tokens N`
sets the cap, and `0` turns every cap off (the server's own limit then applies).

Only a model that can say how it caps answers takes the default (`with_default_max_tokens`,
e.g. `OpenAIModel`); a user's function or the simulated model are left alone.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

from thoughtgraph.models.base import LanguageModel
from thoughtgraph.tasks.base import BaseTask
from thoughtgraph.tasks.reference import can_check, expected

CAP_FACTOR = 4
CAP_MARGIN = 256
CHARS_PER_TOKEN = 3


def expected_answer_tokens(
    task: BaseTask[Any, Any], problem: object, reference: object = None
) -> int:
    """Tokens of the larger of the problem's reference answer (the given `reference`, else the
    task's own solver's, when it has one) and the problem itself, as the task renders them."""
    texts = [task.render(problem)]
    if can_check(task, reference):
        # a task whose reference cannot be computed for this problem: the input stands
        with contextlib.suppress(Exception):
            texts.append(task.render(expected(task, problem, problem, reference)))
    return max(math.ceil(len(text) / CHARS_PER_TOKEN) for text in texts)


def default_cap(task: BaseTask[Any, Any], problem: object, reference: object = None) -> int:
    """The tokens each answer of a run on `problem` may have when the user set no cap."""
    return CAP_FACTOR * expected_answer_tokens(task, problem, reference) + CAP_MARGIN


def with_default_cap(
    model: LanguageModel, task: BaseTask[Any, Any], problem: object, reference: object = None
) -> tuple[LanguageModel, int | None]:
    """`model` with the default answer cap when it takes one and the user set none, and the cap
    applied (None: the model's own setting, or no cap, stands)."""
    method = getattr(type(model), "with_default_max_tokens", None)
    if method is None:
        return model, None
    cap = default_cap(task, problem, reference)
    capped = method(model, cap)
    return capped, (cap if capped is not model else None)
