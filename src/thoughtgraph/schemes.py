"""Graph builders: each prompting scheme is a function that returns a plain `Graph`.

`got` is the spec's adaptive Graph-of-Thoughts pattern: split in code, one Part op per part
(regenerated while below the bar), pairwise merges level by level (merged again while they have
errors), and a final refine (kept only if it scores better).
"""

from __future__ import annotations

from .errors import GraphError
from .graph import Graph, Op


def got(
    parts: int = 4,
    arity: int = 2,
    max_regenerations: int = 2,
    max_extra_merges: int = 1,
    max_refines: int = 2,
) -> Graph:
    """split → `parts` × (select → part) → merge tree of `arity` → refine."""
    if parts < 1:
        raise GraphError(f"parts must be at least 1, got {parts}")
    if arity < 2:
        raise GraphError(f"arity must be at least 2, got {arity}")
    ops = [Op(id="split", kind="split", params={"parts": parts})]
    level: list[str] = []
    for index in range(parts):
        ops.append(Op(id=f"select_{index + 1}", kind="select", inputs=("split",), params={"index": index}))
        ops.append(
            Op(
                id=f"part_{index + 1}",
                kind="generate",
                inputs=(f"select_{index + 1}",),
                params={"prompt": "part", "max_regenerations": max_regenerations},
            )
        )
        level.append(f"part_{index + 1}")
    depth = 0
    while len(level) > 1:
        depth += 1
        groups = [level[i : i + arity] for i in range(0, len(level), arity)]
        level = []
        for number, group in enumerate(groups, start=1):
            if len(group) == 1:  # an odd one out waits for the next level
                level.append(group[0])
                continue
            op_id = f"merge_{depth}_{number}"
            ops.append(
                Op(
                    id=op_id,
                    kind="aggregate",
                    inputs=tuple(group),
                    params={"prompt": "merge", "max_extra_merges": max_extra_merges},
                )
            )
            level.append(op_id)
    ops.append(
        Op(
            id="refine",
            kind="refine",
            inputs=(level[0],),
            params={"prompt": "refine", "max_refines": max_refines},
        )
    )
    return Graph(ops=tuple(ops))


SCHEMES = {"got": got}
