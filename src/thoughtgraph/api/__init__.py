"""The Python API of the commands: `thoughtgraph.evaluate` and `thoughtgraph.tune`.

It sits above scale/: the one place that turns `ray=ADDRESS` into the Ray backend evaluation/
and tuning/ are handed (they never import scale/). The facade `thoughtgraph/__init__.py` maps
the public names here; `thoughtgraph eval` and `tune` call these functions.
"""
