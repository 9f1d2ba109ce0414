"""The sim's profiles: the real-model ones hold to the replies they were fitted to, call by call;
a profile file is read, and a bad one is one line.

`llama-3-70b` and `gpt-3.5-turbo` keep the release's per-call figures of every job size they
were fitted on (`real`: P(exact), mean error and the shapes of the calls: list lengths, set
sizes, country counts). Here the sim answers thoughtgraph's own prompts of the same shapes and
must land near them (`sim/replay.py`, 400 seeded calls a size): P(exact) within 5 points or
30%, the mean error within 30% or 0.05 (the same 5 points, for the small errors where one slip
more or less is 30%). The release itself is not needed (scripts/fit_profiles.py reads it to
refit).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from thoughtgraph.errors import InputError, UnknownNameError
from thoughtgraph.modelspec import from_spec
from thoughtgraph.sim.model import SimulatedModel
from thoughtgraph.sim.profiles import load_profile, shipped_names
from thoughtgraph.sim.readers import read_prompt
from thoughtgraph.sim.replay import replay
from thoughtgraph.tasks import get_task
from thoughtgraph.tasks.sets import SetProblem

from .conftest import run_cli

FITTED = ("llama-3-70b", "gpt-3.5-turbo")


def _close(sim: float, real: float, relative: float, absolute: float) -> bool:
    return abs(sim - real) <= max(absolute, relative * real)


@pytest.mark.parametrize("profile", FITTED)
def test_a_fitted_profile_reproduces_its_release_call_by_call(profile: str) -> None:
    figures = load_profile(profile).real
    assert {f.task for f in figures} == {"sorting", "set-intersection", "keyword-counting"}
    misses = []
    for real in figures:
        sim = replay(profile, real)
        ok = _close(sim.p_exact, real.p_exact, 0.3, 0.05) and _close(
            sim.mean_error, real.mean_error, 0.3, 0.05
        )
        if not ok:
            misses.append(
                f"{real.task} {real.job} {real.size}: sim {sim.p_exact:.1%} / "
                f"{sim.mean_error:.3f}, release {real.p_exact:.1%} / {real.mean_error:.3f}"
            )
        if real.task == "sorting":  # real models lose and repeat numbers; they do not reorder
            errors = sum(sim.points.values())
            assert sim.points["inversions"] <= 0.1 * errors, (real.size, sim.points)
    assert not misses, "\n".join(misses)


@pytest.mark.parametrize("profile", FITTED)
def test_a_fitted_profile_says_where_it_comes_from(profile: str) -> None:
    loaded = load_profile(profile)
    assert loaded.source["licence"] == "Apache-2.0"
    assert "tree-of-problems" in str(loaded.source["url"])
    # the laws it was not fitted for are the default's, as they were
    default = load_profile("gpt-3.5-paper")
    assert loaded.law("doc-merge", "merge") == default.law("doc-merge", "merge")
    assert loaded.law("sorting", "refine") == default.law("sorting", "refine")
    assert loaded.law("sorting", "cot") == loaded.law("sorting", "solve")


def test_the_profiles_shipped_are_the_three_named() -> None:
    assert shipped_names() == ["gpt-3.5-paper", "gpt-3.5-turbo", "llama-3-70b"]
    assert SimulatedModel().profile.name == "gpt-3.5-paper"


def test_real_model_profiles_slip_on_empty_intersections() -> None:
    """Llama adds a number of one set to a tiny intersection now and then; the paper's fit never
    slips on an empty one."""
    task = get_task("set-intersection")
    problem = SetProblem((1, 2, 3, 4), (5, 6, 7, 8))
    prompt = task.prompts["io"].render({"input": task.render(problem)})
    job = read_prompt(prompt)
    assert job is not None
    for profile, slips in (("gpt-3.5-paper", False), ("llama-3-70b", True)):
        model = SimulatedModel(profile=profile)
        drawn = [model.slips(job, random.Random(i)).count for i in range(300)]
        assert (sum(drawn) > 0) is slips, profile


def test_a_profile_file_of_ones_own(tmp_path) -> None:
    path = tmp_path / "careful.yaml"
    path.write_text(
        "name: careful\n"
        "base: gpt-3.5-paper\n"
        "tasks:\n"
        "  sorting:\n"
        "    unit: 32\n"
        "    mix: {drop: 1}\n"
        "    laws:\n"
        "      solve: {a: 0.5, g: 2}\n"
        "      cot: {same_as: solve}\n"
    )
    model = from_spec(f"sim:profile={path},seed=3")
    assert isinstance(model, SimulatedModel) and model.profile.name == "careful"
    law = model.profile.law("sorting", "solve")
    assert law.expected(32, 1.0) == 0.5 and model.profile.law("sorting", "cot") == law
    assert model.profile.law("sorting", "merge") == load_profile("gpt-3.5-paper").law(
        "sorting", "merge"
    )
    items = list(range(64))
    slipped = [model.slip(items, random.Random(i)) for i in range(50)]
    assert all(len(s) <= len(items) and s == sorted(s) for s in slipped)  # drops only
    assert any(len(s) < len(items) for s in slipped)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("tasks: [1, 2]", "tasks: expected a mapping"),
        ("tasks: {sorting: {laws: {solve: {a: 1}}}}", "needs a and g"),
        ("tasks: {sorting: {laws: {solve: {a: -1, g: 1}}}}", "tasks.sorting.laws.solve.a: must be"),
        ("tasks: {sorting: {laws: {merge: {a: 1, g: 1}}}}", "no solve law"),
        ("tasks: {sortin: {}}", "unknown task 'sortin'"),
        ("tasks: {sorting: {laws: {solve: {a: 1, g: 1, mix: {swap: 1}}}}}", "unknown slip kind"),
        ("tasks: {sorting: {laws: {solve: {points: {}}}}}", "needs at least one length"),
        ("tasks: {sorting: {laws: {solve: {points: {x: {drop: 1}}}}}}", "is not a length"),
        ("tasks: {sorting: {laws: {solve: {same_as: cot}, cot: {same_as: solve}}}}", "goes round"),
        ("base: nobody", "base: unknown profile 'nobody'"),
        ("tasks: {sorting: {laws: {solve: {a: 1, g: 1}}}}\nextra: 1", "unknown key 'extra'"),
        ("tasks: {sorting: {laws: {solve: {a: 1, g: 1}, solve: {a: 2, g: 1}}}}", "twice"),
        ("tasks: {sorting: [", "not valid YAML or JSON"),
    ],
)
def test_a_bad_profile_file_is_one_line(tmp_path, text: str, says: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        from_spec(f"sim:profile={path}")
    message = str(caught.value)
    assert says in message and "\n" not in message and str(path) in message


def test_an_unknown_profile_name_or_missing_file_is_one_line(tmp_path) -> None:
    with pytest.raises(UnknownNameError, match=r"unknown sim profile 'llama'.*known: gpt-3\.5"):
        from_spec("sim:profile=llama")
    with pytest.raises(InputError, match="cannot read it"):
        from_spec(f"sim:profile={tmp_path / 'none.yaml'}")
    with pytest.raises(UnknownNameError, match="needs a profile"):
        from_spec("sim:profile=")


def test_the_default_profile_is_the_sims_own_and_unchanged() -> None:
    """The default profile's laws are the ones its figures were calibrated with."""
    default = load_profile("gpt-3.5-paper")
    law = default.law("sorting", "solve")
    assert (law.a, law.g, law.unit) == (6.5, 3.94, 32.0)  # type: ignore[union-attr]
    assert default.law("keyword-counting", "split").mix_at(10).weights == (
        ("drop", 0.7),
        ("copy", 0.3),
    )
    assert Counter(type(law).__name__ for law in default.laws.values()) == {"PowerLaw": 29}


def test_the_copies_eval_and_tune_make_keep_the_profile() -> None:
    """A repeat of an eval pair and a tune pair get a fresh simulated model: the same profile."""
    from thoughtgraph.evaluation.runner import for_repeat

    model = SimulatedModel(error=2, seed=4, profile="llama-3-70b")
    again = for_repeat(model, 3)
    assert isinstance(again, SimulatedModel)
    assert (again.profile.name, again.seed, again.error) == ("llama-3-70b", 7, 2)
    assert model.with_seed(4).profile is model.profile


def test_the_header_and_the_eval_report_name_the_profile(capsys, tmp_path) -> None:
    code, out, _ = run_cli(
        capsys, "solve", "sorting", "--input", "[3, 1, 2]", "--model", "sim:profile=llama-3-70b"
    )
    assert code == 0 and "sim:profile=llama-3-70b,latency=0,error=1,seed=0 (SIMULATED" in out
    code, _, _ = run_cli(
        capsys, "eval", "sorting", "--size", "32", "--samples", "2", "--schemes", "io",
        "--out", str(tmp_path / "e"),
    )  # fmt: skip
    assert code == 0
    summary = (tmp_path / "e" / "summary.md").read_text()
    assert "model sim:profile=gpt-3.5-paper,latency=0,error=1,seed=0 (simulated)" in summary
