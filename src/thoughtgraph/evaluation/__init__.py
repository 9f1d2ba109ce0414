"""The evaluation: datasets, the harness, reports, statistics and figures.

`thoughtgraph.evaluate(task, data, ...)` is `api.evaluation.evaluate`, above this package
(it picks what runs the pairs: here, or scale/'s Ray backend).
"""
