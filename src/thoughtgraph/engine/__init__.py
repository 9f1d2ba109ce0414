"""The engine: the graph of operations as data, the op kinds, the scheduler and the run state.

Loading the package registers the built-in op kinds (`ops.py`), so every lookup of a kind
(`kinds.get`, a graph's validation) finds them without importing the op functions itself.
"""

from thoughtgraph.engine import ops as ops
