"""The run API: one problem, one graph (or a scheme's, built by name), one model.

Above the engine and the schemes: it builds the graph a scheme name stands for, checks it against
the task and the problem, wraps the model (cache, rate limits, budget) and runs the executor.
"""
