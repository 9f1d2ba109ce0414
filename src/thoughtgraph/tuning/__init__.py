"""`thoughtgraph tune`: search graph settings for the best error-vs-cost trade-off (Optuna).

`thoughtgraph.tune(task, data, ...)` is `tuning.api.tune`: the package has its own name, so the
function and the package never compete for one attribute.
"""
