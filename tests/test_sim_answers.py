"""The simulated model's answers, pinned to the byte: the same seed, prompt and occurrence give
the same text, in every task, job kind and setting (tests/sim_answers.py says which).

Why: a faster sim (issue 30) must answer exactly as before, or every figure recorded on the
sim moves. The digests were recorded from the sim before that work (main at 04d1ee3) with
`tests/sim_answers.py`'s `digests()`; a change to the sim that changes an answer must say so
and re-record them.
"""

from __future__ import annotations

import asyncio
import pickle
import random

import pytest

from thoughtgraph.sim.model import SimulatedModel
from thoughtgraph.sim.readers import read_prompt

from .sim_answers import SEEDS, SETTINGS, answers, digests, load_prompts

RECORDED = {
    "doc-merge/cot": "b3db101ee4ae0d93251d36a4fbae4cb2407d9063941a21525dd4e7f707a8b95c",
    "doc-merge/fix": "15165800687f097a534f0c68d83202bb82636e7fcc1990bfb61b1f39a87ec92f",
    "doc-merge/merge": "ec3c8d0f5649abfcd571858ceb61ef604619bfe858378111e60ef7d7e6781964",
    "doc-merge/part": "1fcb8dbd14d3921b0347ea73bb9ee9cfee5f83465297745ffd9b3b9b70b8bbe6",
    "doc-merge/refine": "c979721c1ea4ca0564962240ef01dcb5a4277e79b5fbea71c25ad6a7bebee6ee",
    "doc-merge/score": "97b8326eeb4e9d68842dc0b545b52c058b4cb2b0d2b1acd26ebe7c979403234a",
    "doc-merge/solve": "9b4feb782b9b4aa42884a4d9e678a5d8d86575721fe546cea5b61537029c9ba9",
    "keyword-counting/cot": "a0853d27b1bda2d1e654bc8c51b29a2266bf89648ea567bc25d861ae1cf97c68",
    "keyword-counting/fix": "cd5f62d7d7267365bd365f2ab2c6ac2055b2d425f05f3ee681b929c4761d582a",
    "keyword-counting/merge": "876cb0c3abbdde91f6c7a2d6b82af1c82a4417d6b871dbf88767b6d2900ca445",
    "keyword-counting/part": "6e54ad6f11820d481b00c1020044b52cc9df3d74c54ae414a35f914b357b54a0",
    "keyword-counting/refine": "266f6b964d543f41fae5b35a0481c7cf8f6bbe2eda39c1202f8504817f8da583",
    "keyword-counting/solve": "3875a8044903d8a266c5ed3d83ba1e15d7e01002ec6f908f80432656f2ff1e86",
    "keyword-counting/split": "76fe7883f481e6b70a84cdf8d548723f75543390a6bb054e4c455854bfb5c8db",
    "other": "a07776da8004402b985366dd288939b57fa147d98390b1ba192733043b6654ff",
    "set-intersection/cot": "0f0e8ffd2e3d81a415124aca7a3e84fcac0a3ca1ae8581a425d3e611f4362e8f",
    "set-intersection/fix": "47b0fb5275a0e986e6a87a23f190a46ce6d0c5b54e68527dccb1443d318fc3b6",
    "set-intersection/made": "621cc8fd256c7f0a74bff758dba4672617dff342a8038bd4b3fe9d5819a60582",
    "set-intersection/merge": "2400be176b97653733d4b144a5b063fe9094fa86d4d0323b0f729beaf5a76d8f",
    "set-intersection/part": "4fb911031ed584423a34fa0f64f39b34ebab58d7afda6600990930bda670b167",
    "set-intersection/solve": "af258eca65c7a2216fd09da4261686d4e1652f164fb17d7a173fea6ece023157",
    "set-intersection/split": "ad38d15ffaa5f361181ab7c08ddf76dccb0195a6704a67e7a151c04b729c1535",
    "sorting/cot": "3591e3bf245e66bd3988cd7b6f5e35084718c471e4eaee1c8f000398dca18b19",
    "sorting/direct": "0f218575b04f01ed57a66ece1bbcddf8620c648775141ee9fa43f3dd545c3ec6",
    "sorting/fix": "cf50493a3c31bfe13f40f85941377a45dec62a57e7d01b1c1d57917d4dd4ff86",
    "sorting/lists": "734d4d39e1d492c6e982df93d1cc03f5ec8aeb75d2964d15d56841db098e1d4e",
    "sorting/long": "a0b51c1f7c13590c9e046b800d36204f46e08816efdeccf96425bad77020e2f9",
    "sorting/merge": "4b7df14d091a0ef1541824b8f533adc5d84c783789239d29409f4520c598bd49",
    "sorting/part": "8354c387efdd79415567c7884168be3c9299bef6332f36fc94f11f1a7e399c81",
    "sorting/refine": "aacea9ed18f9749e721340dd308c36802a3195abf1cbda114235b6178bfc99b3",
    "sorting/solve": "4a6ef7f485628e51d3e218b9666b44141337c094d9ccb8aa99e625c026627fe4",
    "sorting/split": "0133d452722448ed758ed9e70071cb2d2bf181965df9aa03d8b20f4e5e27cea2",
}


@pytest.fixture(scope="module")
def found() -> dict[str, str]:
    return digests()


@pytest.mark.parametrize("group", sorted(RECORDED))
def test_answers_are_the_recorded_ones(found: dict[str, str], group: str) -> None:
    assert found[group] == RECORDED[group]


def test_the_fixture_holds_every_task_and_job_kind() -> None:
    read = {
        (job.task, job.kind)
        for prompts in load_prompts().values()
        for prompt in prompts
        if (job := read_prompt(prompt)) is not None
    }
    for task, kinds in {
        "sorting": ("solve", "cot", "fix", "merge", "split", "part", "refine"),
        "set-intersection": ("solve", "cot", "fix", "merge", "split", "part", "refine"),
        "keyword-counting": ("solve", "cot", "fix", "merge", "split", "part", "refine"),
        "doc-merge": ("solve", "cot", "fix", "merge", "part", "refine", "score"),
    }.items():
        for kind in kinds:
            assert (task, kind) in read, (task, kind)


def test_the_pinned_answers_include_slips() -> None:
    """Error 0 and error 6 answer differently in every group that can slip: the digests pin
    the slips' draws, not only the right answers."""
    exact = SETTINGS[0]
    assert exact[1] == 0.0
    for group, prompts in load_prompts().items():
        if group in ("other", "sorting/direct"):
            continue
        right = list(answers(prompts, *exact, seed=SEEDS[0]))
        slipped = list(answers(prompts, "gpt-3.5-paper", 6.0, {}, seed=SEEDS[0]))
        assert right != slipped, group


def test_the_answers_do_not_depend_on_what_was_asked_before() -> None:
    """A prompt's answers are the same whether the model read it before or not (a reading kept
    from one prompt never answers another)."""
    prompts = [p for group in load_prompts().values() for p in group]
    alone = [SimulatedModel(error=6.0, seed=1).answer(p, random.Random(2)) for p in prompts]
    model = SimulatedModel(error=6.0, seed=1)
    for prompt in reversed(prompts):
        model.answer(prompt, random.Random(9))
    again = [model.answer(p, random.Random(2)) for p in prompts]
    assert again == alone


def test_a_list_is_read_as_the_number_scan_reads_it() -> None:
    """`ints` reads a list as prompts write it with the JSON decoder: the same numbers as the
    scan (`-?\\d+`) on every text, plain or not."""
    import re

    from thoughtgraph.sim.sorting import ints

    draw = random.Random(30)
    texts = [
        "[]",
        "[0]",
        "[-0, -5, 12]",
        "[1-2, 3]",
        "[01, 2]",
        "[1,,2]",
        "[ 1 , 2 ]",
        "[,]",
        "[-]",
        "[1 2]",
        "[1, 2] ",
        "x[1, 2]",
        "[1.5, 2]",
        "[[1], 2]",
        "[1e3]",
        "[\u0663, 2]",
        "7",
        "",
        "[" + ", ".join(str(draw.randint(-(10**30), 10**30)) for _ in range(50)) + "]",
    ]
    alphabet = "0123456789, -[]"
    texts += [
        "[" + "".join(draw.choices(alphabet, k=draw.randint(0, 12))) + "]" for _ in range(3000)
    ]
    for text in texts:
        assert ints(text) == [int(n) for n in re.findall(r"-?\d+", text)], text


def test_a_list_is_written_as_str_writes_its_numbers() -> None:
    from thoughtgraph.tasks.intlists import show_ints
    from thoughtgraph.tasks.sets import SetIntersectionTask
    from thoughtgraph.tasks.sorting import SortingTask

    for items in ([], [0], [-257, -256, 1023, 1024], list(range(-300, 1100)), [10**40, -(10**40)]):
        written = "[" + ", ".join(map(str, items)) + "]"
        assert show_ints(items) == written
        assert show_ints(tuple(items)) == show_ints(iter(items)) == written  # read once
        assert SortingTask().render(items) == SetIntersectionTask().render(items) == written


def test_sort_is_found_where_the_scan_finds_it() -> None:
    from thoughtgraph.sim.jobs import _SORT, _says_sort

    for text in (
        "Sort it",
        "unsorted, then sort",
        "unsorted only",
        "resort",
        "SORT",
        "sOrT",
        "\u017fort",
        "a-sort",
        "_sort",
        "Sorted",
        "",
    ):
        assert _says_sort(text) == (_SORT.search(text) is not None), text


def test_a_pickled_model_leaves_its_plans_behind_and_answers_the_same() -> None:
    import asyncio
    import pickle

    prompts = [p for group in load_prompts().values() for p in group][:20]
    model = SimulatedModel(error=3.0, seed=4)
    before = [model.answer(p, random.Random(1)) for p in prompts]
    state = model.__getstate__()
    assert state["_plans"] == {} and model._plans
    copy = pickle.loads(pickle.dumps(model))
    assert [copy.answer(p, random.Random(1)) for p in prompts] == before
    # and the copy goes on counting occurrences where the original was
    asked = asyncio.run(model.complete(prompts[0], 2))
    assert [c.text for c in asyncio.run(copy.complete(prompts[0], 2))] == [c.text for c in asked]


def test_the_settings_that_shape_answers_are_fixed_once_the_model_is_made() -> None:
    """The name (the answer cache's key) and every prompt's plan are worked out from them: a
    changed one would leave both stale, so they cannot be changed."""
    model = SimulatedModel(error=2.0, kind_error={"part": 3.0})
    for name, value in (("error", 5.0), ("kind_error", {}), ("profile", None)):
        with pytest.raises(AttributeError):
            setattr(model, name, value)
    with pytest.raises(TypeError):
        model.kind_error["part"] = 0.0  # type: ignore[index]


def test_a_pickle_of_a_model_from_before_the_plans_still_answers() -> None:
    made = SimulatedModel(error=2.0, kind_error={"part": 3.0})
    renamed = {"_error": "error", "_kind_error": "kind_error", "_profile": "profile"}
    old = {renamed.get(k, k): v for k, v in made.__getstate__().items() if k != "_plans"}
    loaded = SimulatedModel.__new__(SimulatedModel)
    loaded.__setstate__(old)  # as pickle loads the state an older version wrote
    prompt = "Sort this list: [3, 1, 2]"
    assert loaded.name == made.name and dict(loaded.kind_error) == {"part": 3.0}
    assert asyncio.run(loaded.complete(prompt, 2)) == asyncio.run(made.complete(prompt, 2))
    copied = pickle.loads(pickle.dumps(made))
    assert copied.name == made.name and dict(copied.kind_error) == {"part": 3.0}
