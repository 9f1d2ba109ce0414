"""The package's layers, read from the source: no import cycle, no import upwards, and a module
table in docs/architecture.md that lists every module.

Imports are read with `ast`, those made inside functions included (they run too, only later),
and those under `if TYPE_CHECKING:` too (they never run, but a type named across layers ties the
modules as much as a call does: a cycle of them is the same knot). Importing `a.b.c` also runs the
top level of the packages `a.b` and `a` first, so their top-level imports count too.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
ROOT = "thoughtgraph"
ARCHITECTURE = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"

# Bottom first; a module may import its own layer and the layers below it, never one above.
# The longest matching prefix decides a module's layer (docs/architecture.md draws the same).
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "thoughtgraph.errors",
        "thoughtgraph.events",
        "thoughtgraph.conforms",
        "thoughtgraph.records",
    ),  # the words every layer shares
    ("thoughtgraph.io",),  # file formats and bounds: trace, events file, strict loading
    ("thoughtgraph.spend",),  # usage, prices, caps, the request ledger
    ("thoughtgraph.tasks",),  # the Task contract and the built-in tasks
    ("thoughtgraph.models",),  # model adapters and wrappers (side by side with tasks: below)
    ("thoughtgraph.sim",),  # the simulated model: a model that reads the built-in tasks
    ("thoughtgraph.modelspec",),  # which model a user means, the simulated one included
    ("thoughtgraph.engine",),  # graphs, op kinds, the scheduler, the run state
    ("thoughtgraph.schemes",),  # graph builders: each scheme builds an engine graph
    ("thoughtgraph.solving",),  # the run API: a scheme named, its graph checked and run
    ("thoughtgraph.viewer",),  # drawings, the trace viewer page, the Jupyter displays
    ("thoughtgraph.evaluation", "thoughtgraph.tuning", "thoughtgraph.testing"),
    ("thoughtgraph.scale",),  # Ray and shipping: handed to evaluation and tuning from above
    ("thoughtgraph.api",),  # the commands' Python API: picks the Ray backend for `ray=`
    ("thoughtgraph.cli",),
)
SIDE_BY_SIDE: tuple[tuple[str, str], ...] = (("thoughtgraph.tasks", "thoughtgraph.models"),)
"""Layers of which neither imports the other, though the order above would let one."""
FACADE = ROOT  # `thoughtgraph/__init__.py`: names loaded on first use, no import of its own


@cache
def modules() -> dict[str, Path]:
    found = {}
    for path in sorted((SRC / ROOT).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _targets(node: ast.AST, known: dict[str, Path]) -> set[str]:
    """The thoughtgraph modules one import statement runs (the named module, else its package)."""
    names: set[str] = set()
    if isinstance(node, ast.Import):
        names = {alias.name for alias in node.names}
    elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        for alias in node.names:
            full = f"{node.module}.{alias.name}"
            names.add(full if full in known else node.module)
    return {name for name in names if name == ROOT or name.startswith(ROOT + ".")}


@cache
def imports() -> dict[str, frozenset[str]]:
    """Module -> the thoughtgraph modules importing it runs, at import time or later."""
    known = modules()
    direct: dict[str, set[str]] = {}  # every import: inside functions and TYPE_CHECKING too
    at_import: dict[str, set[str]] = {}  # the imports of the module's own top level
    for name, path in known.items():
        found: set[str] = set()
        top: set[str] = set()
        stack: list[tuple[ast.AST, bool]] = [(ast.parse(path.read_text(encoding="utf-8")), True)]
        while stack:
            node, outer = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and _type_checking(child):
                    # the body is an edge that never runs: counted, but not at import time
                    stack.append((ast.Module(body=child.body, type_ignores=[]), False))
                    stack.append((ast.Module(body=child.orelse, type_ignores=[]), outer))
                    continue
                targets = _targets(child, known)
                found |= targets
                if outer:
                    top |= targets
                inner = outer and not isinstance(
                    child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                )
                stack.append((child, inner))
        found.discard(name)
        top.discard(name)
        direct[name], at_import[name] = found, top
    graph = {}
    for name, found in direct.items():
        runs = set(found)
        for target in found:  # importing a.b.c first runs the top level of package a.b
            parts = target.split(".")
            for cut in range(2, len(parts)):
                parent = ".".join(parts[:cut])
                if parent in at_import and not name.startswith(parent + "."):
                    runs |= at_import[parent] - {name}
        graph[name] = frozenset(runs)
    # the facade names every public type for the type checker and loads each on first use
    # (PEP 562): what it imports is what it runs when imported, which must be nothing
    graph[FACADE] = frozenset(at_import[FACADE])
    return graph


def cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in graph:
                    continue
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def layer(module: str) -> int:
    best, level = "", -1
    for number, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
                best, level = prefix, number
    assert level >= 0, f"{module} is in no layer: add it to LAYERS and docs/architecture.md"
    return level


def test_the_scanner_sees_function_level_imports_and_finds_a_cycle() -> None:
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset()}
    assert cycles(graph) == [["a", "b", "c"]]
    # a lazy import inside a function is an edge: the schemes load the graph on first build
    assert "thoughtgraph.engine.graph" in imports()["thoughtgraph.schemes"]
    # and so is one under TYPE_CHECKING: the op kinds name the run context in their types
    assert "thoughtgraph.engine.context" in imports()["thoughtgraph.engine.kinds"]


def test_no_import_cycle_counting_imports_inside_functions() -> None:
    assert cycles(imports()) == []


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = [
        f"{module} -> {target}"
        for module, targets in imports().items()
        if module != FACADE
        for target in sorted(targets)
        if target != FACADE and layer(target) > layer(module)
    ]
    assert upward == []


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def test_side_by_side_layers_import_neither_the_other() -> None:
    crossing = [
        f"{module} -> {target}"
        for module, targets in imports().items()
        for target in sorted(targets)
        for one, other in SIDE_BY_SIDE
        if (_within(module, one) and _within(target, other))
        or (_within(module, other) and _within(target, one))
    ]
    assert crossing == []


def test_nothing_outside_the_cli_imports_the_cli() -> None:
    outside = [
        module
        for module, targets in imports().items()
        if not module.startswith("thoughtgraph.cli")
        and any(t == "thoughtgraph.cli" or t.startswith("thoughtgraph.cli.") for t in targets)
    ]
    assert outside == []


def test_the_facade_imports_nothing_when_imported() -> None:
    assert imports()[FACADE] == frozenset()


def test_the_architecture_doc_lists_every_module() -> None:
    """The first column of the table under "## Modules" names each module once, as its path
    inside src/thoughtgraph (`engine/graph.py`), and names nothing that is not a module."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    table = text.split("\n## Modules\n", 1)[1].split("\n## ", 1)[0]
    listed = [
        path
        for row in table.splitlines()
        if row.startswith("| `")
        for path in re.findall(r"`([\w/]+\.py)`", row.split("|")[1])
    ]
    expected = {str(path.relative_to(SRC / ROOT)) for path in modules().values()}
    assert sorted(expected - set(listed)) == [], "modules missing from docs/architecture.md"
    assert sorted(set(listed) - expected) == [], "docs/architecture.md lists no such module"
    assert len(listed) == len(set(listed)), "a module is listed twice"


def package(module: str) -> str:
    """A module's package below the root (`thoughtgraph.engine.graph` -> `thoughtgraph.engine`);
    a top-level module (`thoughtgraph.errors`) is its own."""
    return ".".join(module.split(".")[:2])


def test_no_two_packages_import_each_other() -> None:
    edges = {
        (package(module), package(target))
        for module, targets in imports().items()
        for target in targets
        if package(module) != package(target)
    }
    assert sorted((a, b) for a, b in edges if a < b and (b, a) in edges) == []


def _functions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function and method outside cli/ (typer commands take one parameter an option)."""
    found = []
    for name, path in modules().items():
        if name.startswith("thoughtgraph.cli"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.append((f"{name}:{node.lineno} {node.name}", node))
    return found


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    a = node.args
    every = [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))]
    return [arg for arg in every if arg.arg not in ("self", "cls")]


def test_no_function_outside_the_cli_takes_more_than_16_parameters() -> None:
    """Options travel as one options object per level, not as loose parameters."""
    wide = [f"{where} ({n})" for where, node in _functions() if (n := len(_parameters(node))) > 16]
    assert wide == []


def test_at_most_40_parameters_outside_the_cli_are_typed_bare_any() -> None:
    """`Any` turns the type checker off for that value: kept for what really is anything."""
    bare = [
        f"{where} {arg.arg}"
        for where, node in _functions()
        for arg in _parameters(node)
        if isinstance(arg.annotation, ast.Name) and arg.annotation.id == "Any"
    ]
    assert len(bare) <= 40, "\n".join(bare)
