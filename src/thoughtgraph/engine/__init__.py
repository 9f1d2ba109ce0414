"""The engine: the graph of operations as data, the op kinds, the scheduler and the run state."""
