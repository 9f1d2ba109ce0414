"""Files thoughtgraph reads and writes: traces, event logs, strict YAML/JSON loading, bounds."""
