"""The op-kind registry: everything about one kind of op, in one record.

A kind is its params model (what a graph file may say about it), its run function, the template
values it fills, the reference implementation's name for it and how its retries read in a
summary. The built-in kinds are written in `ops.py`, each record next to its function, so adding
a kind touches one place (CONTRIBUTING.md). Everything else reads the records from here: graph
validation, the JSON Schema and drawings (`graph.py`), the executor, `api.check_graph`, the
trace's `output_graph` (`trace.py`) and the CLI summary.

Why a registry module and not `ops.py` itself: `graph.py` and the trace writer sit below the op
functions (which need the run context), so they read the records here; the built-in records
are loaded on the first lookup. The record types and `register` are in `opkind.py` (which
the built-ins import), re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from thoughtgraph.engine.opkind import KINDS, Check, Needs, OpFunction, OpKind, Params, RetryNote
from thoughtgraph.engine.opkind import register as register
from thoughtgraph.errors import GraphError, shown

__all__ = [
    "Check",
    "Needs",
    "OpFunction",
    "OpKind",
    "Params",
    "RetryNote",
    "all_kinds",
    "get",
    "register",
]


def all_kinds() -> Mapping[str, OpKind[Any]]:
    """Every registered kind by name, the built-ins first (read-only)."""
    _load_builtins()
    return MappingProxyType(KINDS)


def get(name: str) -> OpKind[Any]:
    """The kind of that name; an unknown name is one `GraphError` line listing the known."""
    kind = KINDS.get(name)  # looked up for every op run: no read-only view built for it
    if kind is not None:
        return kind
    kinds = all_kinds()
    if name not in kinds:
        raise GraphError(f"unknown op kind {shown(name)} (known: {', '.join(kinds)})")
    return kinds[name]


def _load_builtins() -> None:
    if "split" not in KINDS:
        from thoughtgraph.engine import ops  # noqa: F401 - defines and registers the built-in kinds
