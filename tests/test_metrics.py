"""Volume and latency on the paper's shapes (Table 2; asymptotic, so matched up to ±1)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from thoughtgraph import solve
from thoughtgraph.engine.metrics import thought_metrics
from thoughtgraph.engine.thought import Thought


def model_thought(tid: str, *parents: str) -> Thought:
    return Thought(
        id=tid, op_id="op", kind="generate", content=None, text="", parents=parents, call_id=tid
    )


INPUT = Thought(id="input", op_id="input", kind="input", content=None, text="")


def chain(prefix: str, length: int, start: str = "input") -> list[Thought]:
    out, parent = [], start
    for i in range(1, length + 1):
        out.append(model_thought(f"{prefix}{i}", parent))
        parent = out[-1].id
    return out


def test_chain_of_n_has_latency_n_and_volume_n():
    n = 12
    metrics = thought_metrics([INPUT, *chain("c", n)])
    assert (metrics[f"c{n}"].latency, metrics[f"c{n}"].volume) == (n, n)
    assert metrics["input"].volume == 0 and metrics["input"].latency == 0


def test_k_independent_chains_have_latency_and_volume_n_over_k():
    n, k = 24, 4
    thoughts = [INPUT]
    for j in range(k):
        thoughts += chain(f"c{j}_", n // k)
    metrics = thought_metrics(thoughts)
    for j in range(k):
        last = metrics[f"c{j}_{n // k}"]
        assert (last.latency, last.volume) == (n // k, n // k)


def tree(k: int, levels: int) -> tuple[list[Thought], list[str]]:
    """A complete k-ary tree of model thoughts hanging from the input; returns thoughts, leaves."""
    thoughts, frontier = [], ["input"]
    for level in range(1, levels + 1):
        nxt = []
        for parent in frontier:
            for _ in range(k):
                tid = f"t{level}_{len(nxt)}"
                thoughts.append(model_thought(tid, parent))
                nxt.append(tid)
        frontier = nxt
    return thoughts, frontier


@pytest.mark.parametrize(("k", "levels"), [(2, 5), (3, 4)])
def test_complete_k_ary_tree_has_logarithmic_latency_and_volume(k, levels):
    thoughts, leaves = tree(k, levels)
    n = len(thoughts)
    metrics = thought_metrics([INPUT, *thoughts])
    leaf = metrics[leaves[-1]]
    assert abs(leaf.latency - math.log(n, k)) <= 1
    assert leaf.volume == leaf.latency  # only the path to the root: O(log_k N)


@pytest.mark.parametrize(("k", "levels"), [(2, 5), (3, 3)])
def test_got_tree_joined_to_its_mirror_reaches_every_thought(k, levels):
    thoughts, frontier = tree(k, levels)
    level = 0
    while len(frontier) > 1:  # the mirrored tree: aggregate k at a time
        level += 1
        merged = []
        for i in range(0, len(frontier), k):
            tid = f"m{level}_{i // k}"
            thoughts.append(model_thought(tid, *frontier[i : i + k]))
            merged.append(tid)
        frontier = merged
    n = len(thoughts)
    final = thought_metrics([INPUT, *thoughts])[frontier[0]]
    assert final.volume == n  # every thought can reach the final one: volume N
    # latency: two trees of depth log_k(N/2) each, i.e. O(log_k N)
    assert final.latency == 2 * levels
    assert abs(final.latency - 2 * math.log(n / 2, k)) <= 2


def test_attempts_count_towards_volume_and_code_thoughts_do_not():
    split = Thought(
        id="split:0", op_id="split", kind="split", content=None, text="", parents=("input",)
    )
    a1 = model_thought("p:0.1", "split:0")
    a2 = replace(a1, id="p:0.2", previous_attempt="p:0.1")
    metrics = thought_metrics([INPUT, split, a1, a2])
    assert metrics["p:0.2"].volume == 2 and metrics["p:0.2"].latency == 3


def test_result_reports_the_final_thoughts_volume_and_latency():
    result = solve("sorting", list(range(32, 0, -1)), model="sim:error=0", parts=4)
    # 4 parts + 2 merges + the final merge; latency: input → split → part → merge → merge
    assert result.volume == 7 and result.latency == 4
    assert result.to_dict()["volume"] == 7


@pytest.mark.parametrize(
    ("scheme", "options"),
    [("got", {"parts": 8}), ("got_paper", {}), ("tot", {}), ("cot_sc", {}), ("io", {})],
)
def test_one_thoughts_metrics_equal_its_row_of_the_whole_table(scheme, options):
    """A result works out only its final thought's volume and latency (`metrics_of`): for every
    thought of real runs, with retries and failed answers, it must agree with the table."""
    result = solve("sorting", list(range(64, 0, -1)), model="sim:seed=3", scheme=scheme, **options)
    table = result.state.metrics()
    assert len(table) > 1
    for thought_id, row in table.items():
        assert result.state.metrics_of(thought_id) == row
    assert (result.volume, result.latency) == (
        table[result.final.id].volume,
        table[result.final.id].latency,
    )


def test_one_thoughts_metrics_refuse_a_cycle():
    from thoughtgraph.engine.metrics import metrics_of

    a = model_thought("a", "b")
    b = model_thought("b", "a")
    with pytest.raises(ValueError, match="cycle"):
        metrics_of("a", {"a": a, "b": b})
