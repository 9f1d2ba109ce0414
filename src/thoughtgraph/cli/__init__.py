"""The `thoughtgraph` command line: every typer command and shared option set (nothing imports
it)."""
