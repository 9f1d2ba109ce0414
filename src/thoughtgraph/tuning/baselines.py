"""The baselines of a tune as eval runs them: the default `got` (a candidate of the search too)
and the paper's `got_paper`, each built for each row's own size by eval's plan
(`EvalPlan.sample_graph`), so a name in front.md shows the figure `eval --schemes NAME` shows
on the same rows. And the jobs that run a report row: a trial's one graph on every sample, a
baseline's graph built for each sample.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence

from thoughtgraph import schemes
from thoughtgraph.engine.graph import Graph
from thoughtgraph.evaluation.datasets import Sample
from thoughtgraph.spend.budget import Budget
from thoughtgraph.tuning import report
from thoughtgraph.tuning.jobs import Job, JobSample, job_graph
from thoughtgraph.tuning.plan import TunePlan
from thoughtgraph.tuning.space import INT_RANGES, SHORT


def row(plan: TunePlan, name: str) -> report.Row:
    """A baseline's report row, not yet measured: its label over the sizes of the tune's rows
    (both splits), its graph file built for the trials' size."""
    scheme = report.BASELINES[name]
    samples = (*plan.tune_split, *plan.held_split)
    built = [(len(s.input), plan.schemes.sample_graph(scheme, s)) for s in samples]
    return report.Row(
        name=name,
        label=label(scheme, plan.task, built),
        graph=plan.schemes.graph_for(scheme, plan.size),
        tune_error=0.0,
        tune_cost=0.0,
        mark="baseline",
        scheme=scheme,
    )


def label(scheme: str, task: str, graphs: Sequence[tuple[int, Graph]]) -> str:
    """A baseline's settings in one line, over the (size, graph) eval builds for each row's
    size: `got parts=8 regen=2 merges=1 refines=2`; a setting that differs between row sizes is
    shown as its range (`parts=3-4`)."""
    defaults = {
        name: p.default
        for name, p in inspect.signature(schemes.SCHEMES[scheme].builder).parameters.items()
        if name in INT_RANGES[scheme]
    }
    values: dict[str, set[int]] = {}
    for size, graph in graphs:
        split = next((op for op in graph.ops if op.kind == "split"), None)
        parts = 1 if split is None else int(getattr(split.params, "parts", 1))
        paper = schemes.paper_options(scheme, task, size)
        options = defaults | {k: v for k, v in paper.items() if k in defaults}
        for name, value in {"parts": parts, **options}.items():
            values.setdefault(SHORT.get(name, name), set()).add(int(value))
    shown = (
        f"{name}={min(found)}" + (f"-{max(found)}" if len(found) > 1 else "")
        for name, found in values.items()
    )
    return " ".join([scheme, *shown])


def job(
    plan: TunePlan, of: report.Row, key: str, samples: Sequence[Sample], allowance: Budget
) -> Job:
    """The job running a report row on `samples`: a trial's graph on each, a baseline's graph
    as eval builds it for each one (judged as eval judges it on a model-scored task)."""
    data = job_samples(samples)
    if of.scheme is None:
        return Job.one(key, job_graph(plan.setup, of.graph), data, allowance, of.routes)
    scheme = of.scheme
    graphs = tuple(job_graph(plan.setup, plan.schemes.sample_graph(scheme, s)) for s in samples)
    return Job(key, graphs, data, allowance)


def job_samples(samples: Sequence[Sample]) -> tuple[JobSample, ...]:
    """Samples as a job carries them: (id, input as a run takes it, reference)."""
    return tuple((s.id, s.given, s.reference) for s in samples)
