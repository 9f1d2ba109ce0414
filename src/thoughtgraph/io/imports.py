"""Import strings (`package.module:attribute`), the convention of uvicorn, gunicorn and celery.

Why its own module: a task (`solve mytasks:EvensTask`) and a model (`--model mymodels:answer`)
are both named this way, and each way an import can fail must read as one line naming what went
wrong (the module is not there, the attribute is not, importing the module raised), never as a
traceback. A task file's folder and the current directory are searched too, so a file next to
the user works without installing anything, but **after** the installed packages: put first
(as uvicorn does the current directory), a file `orjson.py` beside a task file replaced the real
orjson for everything imported after it, thoughtgraph's own HTTP client included. A module the
installed packages hold under the same name as a file of the folder is named in the error.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from pathlib import Path
from typing import Any

from thoughtgraph.errors import UnknownNameError, shown

_IMPORT_STRING = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def is_import_string(text: str) -> bool:
    """Does `text` read as `module:attribute` (dotted names on both sides)?"""
    return bool(_IMPORT_STRING.match(text.strip()))


def first_line(exc: BaseException) -> str:
    """`Type: message`, cut to its first line (a user's import may raise anything)."""
    message = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def import_string(spec: str, what: str, beside: Path | None = None) -> Any:
    """The object `spec` (`package.module:attribute`, the attribute may be dotted) names.

    `beside` (a task file's folder), when given, and the current directory go last on
    `sys.path` (once each): an installed package wins over a file of the same name. Every
    failure is one `UnknownNameError` line that starts with `cannot load {what} {spec!r}`."""
    spec = spec.strip()
    if not is_import_string(spec):
        raise UnknownNameError(
            f"cannot load {what} {shown(spec)}: write it as package.module:attribute"
        )
    module_name, attribute = spec.split(":", 1)
    cwd = os.getcwd()
    folder = None if beside is None else str(beside.resolve())
    if folder is not None and folder not in sys.path:
        sys.path.append(folder)
    if cwd not in sys.path and "" not in sys.path:
        sys.path.append(cwd)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (
            module_name == exc.name or module_name.startswith(exc.name + ".")
        ):
            raise UnknownNameError(
                f"cannot load {what} {shown(spec)}: no module named {shown(exc.name)} "
                f"(looked in {(folder + ', ') if folder else ''}{cwd} and the Python path)"
            ) from None
        raise UnknownNameError(
            f"cannot load {what} {shown(spec)}: importing {module_name} raised {first_line(exc)}"
        ) from None
    except Exception as exc:  # the user's module ran and failed: say how, in one line
        raise UnknownNameError(
            f"cannot load {what} {shown(spec)}: importing {module_name} raised {first_line(exc)}"
        ) from None
    found: Any = module
    for name in attribute.split("."):
        try:
            found = getattr(found, name)
        except AttributeError:
            raise UnknownNameError(
                f"cannot load {what} {shown(spec)}: module {shown(module_name)} has no attribute "
                f"{shown(attribute)}{_shadowed(module_name, [folder, cwd])}"
            ) from None
        except Exception as exc:  # a module __getattr__ that raises
            raise UnknownNameError(
                f"cannot load {what} {shown(spec)}: reading {attribute} raised {first_line(exc)}"
            ) from None
    return found


def _shadowed(name: str, folders: list[str | None]) -> str:
    """A note for an error: the module imported is not the user's file of the same name, as an
    installed one comes first (`json.py` beside a task file is not `json`)."""
    top = name.split(".")[0]
    loaded = str(getattr(sys.modules.get(top), "__file__", None) or "")
    for folder in folders:
        if folder is None:
            continue
        for path in (Path(folder) / f"{top}.py", Path(folder) / top / "__init__.py"):
            if path.is_file() and str(path) != loaded:
                return (
                    f" (the installed module {top!r} was imported, not {path}: an installed "
                    "module comes first; rename the file)"
                )
    return ""
