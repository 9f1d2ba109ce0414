"""The evaluation: datasets, the harness, reports, statistics and figures.

`thoughtgraph.evaluate(task, data, ...)` is `evaluation.api.evaluate`: the package has its own
name, so the function and the package never compete for one attribute.
"""
