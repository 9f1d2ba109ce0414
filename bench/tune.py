"""How close to the Pareto front does `thoughtgraph tune` get in 30 trials? (simulated model)

For sorting 64 and 128: run `tune` (30 trials, TPE) on a tuning split, then map the front by
brute force with many random points of the same space on the same split (cost = completions per
sample, error = mean clipped error). The reference front is the non-dominated set of everything
either found. Prints, per size:

- hypervolume of tune's front / the reference front's (1.0 = tune found the whole front);
- for each reference-front point, the extra cost tune's cheapest graph pays to be as accurate;
- tune's cheapest graph at the default `got`'s error and at `got_paper`'s error, against them
  (tune's front holds the default got too: it is a candidate of every tune).

The figures are for the simulated model (see docs/simulated-model.md and docs/tuning.md): they
measure the search on the sim's error laws, not any real model.

    .venv/bin/python bench/tune.py                  # sizes 64 and 128 (a few minutes on 2 cores)
    .venv/bin/python bench/tune.py --sizes 64 --random 60
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import optuna

from thoughtgraph.cli.main import main as cli_main
from thoughtgraph.evaluation.datasets import load_dataset
from thoughtgraph.evaluation.runner import plan
from thoughtgraph.spend.budget import Budget
from thoughtgraph.tuning import report, space
from thoughtgraph.tuning.jobs import Job, Setup
from thoughtgraph.tuning.study import local_backend

SCHEMES = ("got", "got_paper")


class RandomSuggester:
    """Uniform random points of the tune space (the brute-force reference)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def suggest_categorical(self, _name, choices):
        return self.rng.choice(list(choices))

    def suggest_int(self, _name, low, high):
        return self.rng.randint(low, high)


def hypervolume(front, ref_error, ref_cost) -> float:
    """Area dominated by a (error, cost) front up to the reference point (both minimised)."""
    area, last_error = 0.0, ref_error
    for error, cost, *_ in sorted(front, key=lambda p: p[1]):
        if error < last_error and cost < ref_cost:
            area += (ref_cost - cost) * (last_error - error)
            last_error = error
    return area


def cheapest_at(points, error):
    meeting = [p for p in points if p[0] <= error + 1e-9]
    return min(meeting, key=lambda p: p[1]) if meeting else None


def run_size(size: int, trials: int, randoms: int, pilot: int, seed: int) -> None:
    dataset = f"sorting_{size:03d}"
    folder = Path(tempfile.mkdtemp(prefix=f"bench-tune-{size}-"))
    started = time.perf_counter()
    args = ["tune", "sorting", "--dataset", dataset, "--trials", str(trials), "--pilot", str(pilot)]
    args += ["--holdout", "10", "--out", str(folder), "--seed", str(seed)]
    try:
        cli_main(args)
    except SystemExit as exc:
        if exc.code:
            sys.exit(f"tune failed ({exc.code})")
    tune_seconds = time.perf_counter() - started
    study = optuna.load_study(
        study_name="thoughtgraph-tune", storage=f"sqlite:///{folder}/study.db"
    )
    tuned = [(t.values[0], t.values[1], f"trial {t.number}") for t in study.trials if t.values]
    kept = study.user_attrs.get("default_run")  # the default got: a candidate of the tune too
    if kept is not None:
        tuned.append((kept["error"], kept["cost"], report.DEFAULT))

    chosen = load_dataset(dataset)[:pilot]
    samples = tuple((s.id, s.input, s.reference) for s in chosen)
    setup = Setup(task="sorting", size=size, model_spec="sim")
    rng = random.Random(seed + 1)
    jobs, labels = [], []
    for i in range(randoms):
        params = space.suggest(RandomSuggester(rng), SCHEMES, size, "sorting")
        graph = space.graph_for(params, "sorting", size)
        jobs.append(Job.one(f"random-{i}", graph.to_json(None), samples, Budget()))
        labels.append(space.describe(params, size))
    the_plan = plan("sorting", size, list(report.BASELINES.values()), pilot, dataset, check=False)
    for name, row in report.BASELINES.items():  # as eval builds them, for each row
        graphs = tuple(the_plan.sample_graph(row, s).to_json(None) for s in chosen)
        jobs.append(Job(name, graphs, samples))
        labels.append(name)
    started = time.perf_counter()
    outcomes = local_backend(setup, jobs)
    random_seconds = time.perf_counter() - started
    brute = [(o.error, o.cost, label) for o, label in zip(outcomes[:randoms], labels, strict=False)]
    got, got_paper = outcomes[randoms], outcomes[randoms + 1]

    reference = report.pareto(brute + tuned)
    tune_front = report.pareto(tuned)
    ref_error = max(p[0] for p in brute + tuned) + 1
    ref_cost = max(p[1] for p in brute + tuned) * 1.1
    ratio = hypervolume(tune_front, ref_error, ref_cost) / hypervolume(
        reference, ref_error, ref_cost
    )

    print(f"\n## sorting {size} (simulated model; {pilot} tuning samples)\n")
    print(
        f"tune: {trials} trials in {tune_seconds:.0f} s; brute force: {randoms} random points "
        f"in {random_seconds:.0f} s"
    )
    print(f"hypervolume of tune's front / reference front: {ratio:.3f}\n")
    print("| reference front: error | completions | tune's cheapest at that error | extra cost |")
    print("|---:|---:|---:|---:|")
    for error, cost, _label in reference:
        mine = cheapest_at(tuned, error)
        extra = "—" if mine is None else f"{100 * (mine[1] / cost - 1):+.0f}%"
        shown = "none" if mine is None else f"{mine[1]:.1f} (error {mine[0]:.2f})"
        print(f"| {error:.2f} | {cost:.1f} | {shown} | {extra} |")
    print("\n| baseline | error | completions | tune's cheapest at that error | cost vs baseline |")
    print("|---|---:|---:|---|---:|")
    for name, outcome in (("got (default)", got), ("got_paper (paper)", got_paper)):
        mine = cheapest_at(tuned, outcome.error)
        label = "none" if mine is None else f"{mine[2]}: {mine[1]:.1f} (error {mine[0]:.2f})"
        ratio_text = "—" if mine is None else f"{mine[1] / outcome.cost:.2f}x"
        print(f"| {name} | {outcome.error:.2f} | {outcome.cost:.1f} | {label} | {ratio_text} |")
    held = (folder / "front.md").read_text().split("\n", 4)[-1]
    print(f"\nheld-out table (front.md, {folder}):\n\n{held}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,128")
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--random", type=int, default=120, help="random points for the reference")
    parser.add_argument("--pilot", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        run_size(size, args.trials, args.random, args.pilot, args.seed)


if __name__ == "__main__":
    main()
