"""`thoughtgraph tune`: search graph settings for the best error-vs-cost trade-off (Optuna).

`thoughtgraph.tune(task, data, ...)` is `api.tuning.tune`, above this package (it picks what runs
the jobs: here, or scale/'s Ray backend).
"""
