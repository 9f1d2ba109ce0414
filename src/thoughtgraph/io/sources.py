"""What code a user's object is: a digest of the source that defines it.

Why its own module: a `py:` model keeps its name (`py:mymodels:answer`) when the code under it
changes, and so does a task class. The answer cache and a resumed eval must still tell the new
code from the old, or the old function's answers pass for the new one's. The digest is of the
source files' bytes (not of where they are: moving the folder changes nothing; editing a line
changes it), or of the object's source text when it has no file (a function typed into a
notebook cell), with the files of the user's own modules it imports; installed code and
thoughtgraph's are not part of it.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.machinery
import importlib.util
import inspect
import site
import sys
import sysconfig
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import TypeGuard

Defining = ModuleType | type | Callable[..., object]
"""What defines an object: a module, a class or a function."""

MAX_MODULES = 1000
"""How many of the user's modules one digest follows at most (a bound, never reached in
practice: a project of a thousand modules imported at the top of one file)."""


def source_digest(*objects: object) -> str | None:
    """The sha256 (16 hex digits) of the sources defining `objects` (each a function, class,
    module, or an instance of a class), the same whatever their order; None when none of them
    has a source to read (a builtin)."""
    found = {text for value in objects for text in _sources(value)}
    if not found:
        return None
    whole = hashlib.sha256()
    for part in sorted(hashlib.sha256(text).hexdigest() for text in found):
        whole.update(part.encode())
    return whole.hexdigest()[:16]


def _sources(value: object) -> set[bytes]:
    """The source of what defines `value`, with the files of the user's modules it imports
    (empty for a builtin)."""
    defining = _defining(value)
    own = _source(defining)
    if own is None:
        return set()
    if not _is_users_code(defining):
        return {own}  # installed code's imports are installed code (or the user's mistake)
    return {own, *_imported_files(defining, own)}


def _is_users_code(defining: Defining) -> bool:
    """Whether `defining` is the user's: not thoughtgraph's, and in no installed file."""
    module = inspect.getmodule(defining)
    if module is not None and module.__name__.partition(".")[0] == "thoughtgraph":
        return False
    path = _file_of(defining)
    return path is None or _outside_installs(str(path))


def _imported_files(defining: Defining, text: bytes) -> Iterator[bytes]:
    """The files of the user's modules that `defining`'s source imports (at the top or in a
    function; `from rules import LIMIT` too) and its globals hold (a notebook's), followed
    through the imports of theirs."""
    own = _file_of(defining)
    seen: set[Path] = {own} if own is not None else set()
    package = getattr(inspect.getmodule(defining), "__package__", None) or None
    pending = [(text, package, own.parent if own is not None else None)]
    found = [(path, m.__name__) for m in _modules_held(defining) if (path := _users_file(m))]
    while True:
        for path, name in found:
            if path in seen or len(seen) > MAX_MODULES:
                continue
            seen.add(path)
            data = _read(path)
            if data is not None:
                yield data
                pending.append((data, _package(name, path), path.parent))
        if not pending:
            return
        source, package, folder = pending.pop()
        found = [
            (path, name)
            for name in _imported_names(source, package)
            if (path := _users_module_file(name, folder)) is not None
        ]


@functools.lru_cache(maxsize=512)
def _imported_names(source: bytes, package: str | None) -> tuple[str, ...]:
    """Every module name an import statement of `source` may load: `import a.b` loads `a` and
    `a.b`; `from a import b` loads `a`, and `a.b` when b is a module; relative ones resolved
    against `package`. (Remembered by the file's bytes: a digest is taken per model built.)"""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ()
    names: dict[str, None] = {}
    for node in _import_statements(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.update(dict.fromkeys(_with_parents(alias.name)))
            continue
        base = _absolute(node.module or "", node.level, package)
        if base is not None:
            names.update(dict.fromkeys(_with_parents(base)))
            names.update(
                {f"{base}.{alias.name}": None for alias in node.names if alias.name != "*"}
            )
    return tuple(names)


def _import_statements(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of a block and of the blocks inside it (functions, classes, `if`,
    `try`, ...), without walking expressions, where no import statement can be."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _import_statements(inner)


def _with_parents(name: str) -> Iterator[str]:
    """`a.b.c`, `a.b` and `a` (importing a module runs its packages' `__init__` first)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        yield ".".join(parts[:end])


def _absolute(module: str, level: int, package: str | None) -> str | None:
    """The absolute name of `from <level dots><module> import ...` (None if it cannot be)."""
    if not level:
        return module or None
    if not package:
        return None
    try:
        return importlib.util.resolve_name("." * level + module, package)
    except (ImportError, ValueError):
        return None


def _users_module_file(name: str, folder: Path | None) -> Path | None:
    """The file of the user's module `name`: the loaded module's, else the one an import
    would find (the Python path, then the importing file's folder), found without running
    any code; None for installed code, thoughtgraph's, a builtin or a name not found."""
    if name.partition(".")[0] == "thoughtgraph":
        return None
    loaded = sys.modules.get(name)
    if _is_module(loaded):
        return _users_file(loaded)
    spec = _find_spec(name, folder)  # not loaded, or a stand-in a module put in its place
    origin = getattr(spec, "origin", None)
    if not isinstance(origin, str) or not origin.endswith(".py"):
        return None
    return Path(origin).resolve() if _outside_installs(origin) else None


def _find_spec(name: str, folder: Path | None) -> importlib.machinery.ModuleSpec | None:
    """Where an import of `name` would find it, looked up package by package without
    importing anything (so no user code runs while a digest is taken)."""
    places: list[str] = []
    spec = None
    parts = name.split(".")
    for end in range(1, len(parts) + 1):
        part = ".".join(parts[:end])
        try:
            if end == 1:
                spec = _find_top(part, folder)
            else:
                spec = importlib.machinery.PathFinder.find_spec(part, places)
        except (ImportError, ValueError, OSError):
            return None
        if spec is None:
            return None
        places = list(spec.submodule_search_locations or [])
        if end < len(parts) and not places:
            return None
    return spec


def _find_top(name: str, folder: Path | None) -> importlib.machinery.ModuleSpec | None:
    """Where an import of the top-level `name` would find it: each finder an import asks, in
    its order (the Python path's, and the hook an editable install (`pip install -e`) puts
    there, which maps its package to the project's folder), then the importing file's folder."""
    for finder in list(sys.meta_path):
        find = getattr(finder, "find_spec", None)
        if not callable(find):
            continue
        try:
            spec = find(name, None)
        except Exception:  # a finder's own failure: the next one is asked, as an import would
            continue
        if isinstance(spec, importlib.machinery.ModuleSpec):
            return spec
    if folder is None:
        return None
    return importlib.machinery.PathFinder.find_spec(name, [str(folder)])


def _modules_held(defining: Defining) -> Iterator[ModuleType]:
    """Each module the globals `defining` runs with hold, or that a value there comes from
    (a notebook cell's function has no file to read its imports from)."""
    namespace = _namespace(defining)
    for value in list(namespace.values()) if namespace is not None else []:
        if _is_module(value):
            yield value
            continue
        try:
            name = getattr(value, "__module__", None)
        except Exception:  # a lazy proxy may raise anything on lookup
            continue
        module = sys.modules.get(name) if isinstance(name, str) else None
        if _is_module(module):
            yield module


def _namespace(defining: Defining) -> Mapping[str, object] | None:
    """The globals `defining` runs with: a module's own, a function's, a class's module's."""
    if isinstance(defining, ModuleType):
        return vars(defining)
    globals_ = getattr(defining, "__globals__", None)
    if isinstance(globals_, dict):
        return globals_
    name = getattr(defining, "__module__", None)
    module = sys.modules.get(name) if isinstance(name, str) else None
    return vars(module) if _is_module(module) else None


def _is_module(value: object) -> TypeGuard[ModuleType]:
    """Whether `value` is a module (by its type, not its `__class__`: a lazy proxy may claim
    anything). `sys.modules` may hold other objects: a module that puts an instance of its
    own in its place (`sys.modules[__name__] = Settings()`) has no `__name__` nor `__file__`."""
    return issubclass(type(value), ModuleType)


def _users_file(module: ModuleType) -> Path | None:
    """The file of `module` when it is the user's own code: a .py file outside Python's
    installation and its site-packages, and not thoughtgraph's (else None)."""
    if module.__name__.partition(".")[0] == "thoughtgraph":
        return None
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py") or not _outside_installs(path):
        return None
    return Path(path).resolve()


def _package(name: str, path: Path) -> str | None:
    """The package the module `name` at `path` resolves its relative imports against."""
    return name if path.name == "__init__.py" else name.rpartition(".")[0] or None


@functools.lru_cache(maxsize=4096)
def _outside_installs(path: str) -> bool:
    """Whether the file at `path` lies outside every folder Python installs code into."""
    resolved = Path(path).resolve()
    return not any(resolved.is_relative_to(root) for root in _install_roots())


@functools.cache
def _install_roots() -> tuple[Path, ...]:
    """The folders of the standard library and of installed packages (site and user site)."""
    paths = sysconfig.get_paths()
    found = [paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths]
    found += site.getsitepackages() if hasattr(site, "getsitepackages") else []
    found.append(site.getusersitepackages())
    return tuple({Path(path).resolve() for path in found})


def _file_of(defining: Defining) -> Path | None:
    """The file that defines `defining`, resolved (None: a builtin or no file)."""
    try:
        path = inspect.getsourcefile(defining)
    except TypeError:
        return None
    return Path(path).resolve() if path is not None and Path(path).is_file() else None


def _read(path: Path) -> bytes | None:
    """A file's bytes (None if it cannot be read)."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def _source(defining: Defining) -> bytes | None:
    """The bytes of the file of `defining`, else its source text, else None."""
    try:
        path = inspect.getsourcefile(defining)
    except TypeError:  # a builtin
        return None
    if path is not None and Path(path).is_file():
        try:
            return Path(path).read_bytes()
        except OSError:
            pass
    try:
        return inspect.getsource(defining).encode()
    except (OSError, TypeError):
        return None


def _defining(value: object) -> Defining:
    """What defines `value`: a module, class or function as it is (a decorated function
    unwrapped, a partial's function), an instance's class."""
    while isinstance(value, functools.partial):
        value = value.func
    if isinstance(value, ModuleType | type):
        return value
    if inspect.isroutine(value) and callable(value):
        unwrapped: Callable[..., object] = inspect.unwrap(value)
        return unwrapped
    return type(value)
