"""`tune --propose N`: the model writes N rewrites of each prompt slot's template, which the
search then chooses among with the user's variants and the built-in.

A round asks, per slot, one call for N answers to a *meta-prompt* that shows the slot's current
template (the built-in, or the user's first variant), says what the step does, and, from the
second round on, the best- and worst-scoring variants so far with their mean tuning error. A
rewrite is kept only if it is a template that parses, asks for no value its ops do not fill and
keeps every value the current template asks for (a rewrite that drops `{{part}}` would send the
model no data), and if it is not a copy of a text already in the race.

The calls go through the engine's call gateway under the tune's one budget: before a round the
ledger's whole remainder is noted as its allowance (a tune killed mid-round counts it as spent),
after it what it paid. Round 1 runs before the first trial, round 2 when half the trials are
complete; each round's proposals are a new Optuna categorical (`prompt.SLOT@2`, ...), since a
categorical's choices cannot grow within a study.

The simulated model ignores wording: it answers a meta-prompt with the current template and one
instruction sentence of a fixed set added (`sim/propose.py`), so on the sim the
feature runs end to end but the texts cannot matter to the scores.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from thoughtgraph.engine.context import template_for
from thoughtgraph.engine.gateway import CallGateway
from thoughtgraph.engine.graph import Op
from thoughtgraph.engine.state import RunState
from thoughtgraph.errors import BudgetExhausted, InputError, ModelError, ThoughtgraphError
from thoughtgraph.evaluation.prompt_variants import Variants
from thoughtgraph.events import StopReason
from thoughtgraph.models.base import LanguageModel
from thoughtgraph.spend.accounting import spend
from thoughtgraph.spend.budget import Budget
from thoughtgraph.spend.pricing import Price
from thoughtgraph.tasks import get_task
from thoughtgraph.tasks.prompts import PromptTemplate, TemplateError
from thoughtgraph.tuning.study import Ledger, Study, Trial, completed, record_report_run

# What each step does, for the meta-prompt (a slot not listed gets a generic line).
JOBS = {
    "part": "it asks the model to solve one part of a larger problem ({{part}}), given the whole "
    "task ({{task}}) and, on a retry, the errors of the previous attempt",
    "merge": "it asks the model to combine two partial results ({{result_a}}, {{result_b}}) "
    "into one, keeping everything correct and dropping or duplicating nothing",
    "refine": "it asks the model to fix the errors a checker listed ({{errors}}) in a result "
    "({{result}}) and change nothing else",
    "io": "it asks the model to solve the whole problem ({{input}}) in one answer",
    "cot": "it asks the model to solve the whole problem ({{input}}), reasoning step by step",
    "improve": "it asks the model to improve an earlier answer to the problem",
    "split": "it asks the model to split the problem into parts",
    "paper_merge": "it asks the model to merge partial results into one",
}
OPEN, CLOSE = "<current_template>", "</current_template>"
ANSWER = re.compile(r"<template>\s*(.*?)\s*</template>", re.DOTALL)
NAME = "proposed{round}_{index}"  # the variant name of a proposal


def meta_prompt(
    slot: str,
    current: str,
    history: Sequence[tuple[str, float, str]],
    scale: int | None = None,
) -> str:
    """The prompt asking for a rewrite of `current` (built by concatenation: the template's own
    `{{...}}` must reach the model as written, never be expanded). `history` holds each tried
    variant's mean error, or with `scale` (a model-scored task) its rating shortfall, shown as
    the model's mean rating (higher is better)."""
    job = JOBS.get(slot, "it is one step of a larger method")
    variables = sorted(PromptTemplate(current).variables)
    keep = ", ".join("{{" + v + "}}" for v in variables) or "none"
    lines = [
        "You improve the prompt templates of a program that solves problems with a language "
        "model. Below is the template of the step '" + slot + "': " + job + ".",
        "",
        OPEN,
        current,
        CLOSE,
        "",
    ]
    if history and scale is not None:
        lines += [
            "Variants of this template already tried, with the mean rating (0 to "
            f"{scale}, higher is better) a judge gave the final answers on the tuning problems:",
            "",
        ]
        for label, score, text in history:
            rating = scale - score
            lines += [f'<variant label="{label}" rating="{rating:.3g}">', text, "</variant>", ""]
    elif history:
        lines += [
            "Variants of this template already tried, with their mean error on the tuning "
            "problems (lower is better):",
            "",
        ]
        for label, score, text in history:
            lines += [f'<variant label="{label}" error="{score:.3g}">', text, "</variant>", ""]
    lines += [
        "Write a new version of this template that would make the model's answers more "
        "accurate. Keep every placeholder in double braces (" + keep + ") and every <tag> and "
        "{{#if}} block exactly as they are: the program fills them in and reads the answer back. "
        "Reply with the new template only, between <template> and </template>.",
    ]
    return "\n".join(lines)


def read_proposal(answer: str, current: str, fills: frozenset[str]) -> str | None:
    """The template in a reply, or None when it is unusable (see the module docstring)."""
    found = ANSWER.search(answer)
    text = (found.group(1) if found else "").strip()
    if not text:
        return None
    try:
        asked = PromptTemplate(text).variables
    except TemplateError:
        return None
    if asked - fills or PromptTemplate(current).variables - asked:
        return None
    return text


@dataclass
class Round:
    """One round's outcome: the kept rewrites per slot, what it paid, and what was dropped."""

    proposals: dict[str, list[str]]
    paid: dict[str, float]  # requests, tokens, cost: as the study records a payment
    dropped: int
    stop: str | None = None  # why it ended early (the budget, a model error), in one line


def current_text(task: str, slot: str, variants: Variants | None) -> str:
    """The template a slot sends now: the user's first variant, else the built-in."""
    if variants is not None and variants.slots.get(slot):
        return next(iter(variants.slots[slot].values()))
    return template_for(get_task(task), slot).source


async def propose_round(
    model: LanguageModel,
    task: str,
    slots: Mapping[str, frozenset[str]],
    n: int,
    variants: Variants | None,
    history: Mapping[str, Sequence[tuple[str, float, str]]],
    budget: Budget,
    price: Price | None,
    scale: int | None = None,
) -> Round:
    """One call per slot for `n` rewrites, under `budget`; every answer kept or counted dropped.
    `scale`: a model-scored task's (`history` holds rating shortfalls)."""
    state = RunState({})
    gateway = CallGateway(model, state, concurrency=1, budget=budget, price=price)
    proposals: dict[str, list[str]] = {}
    dropped = 0
    stop = None
    for slot in sorted(slots):
        current = current_text(task, slot, variants)
        prompt = meta_prompt(slot, current, history.get(slot, ()), scale)
        op = Op(id=f"propose-{slot}", kind="generate", inputs=())
        try:
            answers = await gateway.ask(op, f"propose-{slot}", "propose", prompt, n=n)
        except BudgetExhausted as exc:
            stop = f"{StopReason.BUDGET} ({exc})"
            break
        except (ModelError, ThoughtgraphError) as exc:
            stop = f"the model failed: {exc}"
            break
        seen = set(_texts(variants, slot)) | {current}
        kept = []
        for answer in answers:
            text = read_proposal(answer, current, slots[slot])
            if text is None or text in seen:
                dropped += 1
                continue
            seen.add(text)
            kept.append(text)
        proposals[slot] = kept
    await gateway.drain()
    total = spend(state.calls.values(), price)
    paid = {"requests": total.requests, "tokens": total.tokens, "cost": total.cost}
    return Round(proposals, paid, dropped, stop)


def _texts(variants: Variants | None, slot: str) -> list[str]:
    return [] if variants is None else list(variants.slots.get(slot, {}).values())


def check_count(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 20:
        raise InputError(f"--propose must be a whole number from 0 to 20, got {n!r}")


def history_of(
    trials: Sequence[Trial], variants: Variants, task: str
) -> dict[str, list[tuple[str, float, str]]]:
    """Per slot, the best and the worst variant so far by the mean tuning error of the complete
    trials that chose it (each as (label, error, text)); the built-in is one of them."""
    errors: dict[tuple[str, str], list[float]] = {}
    for trial in trials:
        for key, name in trial.params.items():
            if key.startswith("prompt."):
                slot = key.removeprefix("prompt.").split("@")[0]
                errors.setdefault((slot, name), []).append(float(trial.values[0]))
    history: dict[str, list[tuple[str, float, str]]] = {}
    for slot in variants.slots:
        scored = sorted(
            (sum(v) / len(v), name) for (s, name), v in errors.items() if s == slot and v
        )
        picks = scored[:1] + scored[-1:] if len(scored) > 1 else scored
        history[slot] = [
            (
                ("best" if i == 0 else "worst") + f": {name}",
                score,
                variants.text(slot, name) or template_for(get_task(task), slot).source,
            )
            for i, (score, name) in enumerate(picks)
        ]
    return history


@dataclass
class Proposer:
    """Runs (or, on a resumed tune, restores) the proposal rounds of one tune."""

    model: LanguageModel
    task: str
    slots: Mapping[str, frozenset[str]]
    n: int
    price: Price | None
    rating_scale: int | None = None  # a model-scored task: trial values are rating shortfalls

    def round(
        self, study: Study, number: int, variants: Variants | None, ledger: Ledger
    ) -> Variants:
        """The variants with round `number`'s proposals added: from the study when an earlier
        run of this tune made them, else asked of the model now under the ledger's remainder."""
        base = variants or Variants({}, "")
        stored = dict(study.user_attrs.get("proposals", {}))
        if str(number) in stored:
            return base.with_proposals(number, stored[str(number)])
        allowance = ledger.share(1)
        if allowance is None:
            _note(f"propose round {number}: no budget left; the search goes on without it")
            return base.with_proposals(number, {})
        history = history_of(completed(study), base, self.task) if number > 1 else {}
        record_report_run(study, allowance, 1, None)  # a kill mid-round counts it all spent
        outcome = asyncio.run(
            propose_round(
                self.model,
                self.task,
                self.slots,
                self.n,
                base,
                history,
                allowance,
                self.price,
                self.rating_scale,
            )
        )
        record_report_run(study, allowance, 1, outcome.paid)
        study.set_user_attr("proposals", stored | {str(number): outcome.proposals})
        kept = ", ".join(f"{slot} {len(t)}" for slot, t in sorted(outcome.proposals.items()))
        _note(
            f"propose round {number}: {self.n} rewrites asked per slot; kept {kept or 'none'}"
            + (f" ({outcome.dropped} unusable or repeated, dropped)" if outcome.dropped else "")
            + f"; paid {outcome.paid['requests']} requests"
            + (f"; stopped: {outcome.stop}" if outcome.stop else "")
        )
        return base.with_proposals(number, outcome.proposals)


def _note(text: str) -> None:
    import sys

    sys.stderr.write(text + "\n")
    sys.stderr.flush()
