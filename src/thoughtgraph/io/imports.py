"""Import strings (`package.module:attribute`), the convention of uvicorn, gunicorn and celery.

Why its own module: a task (`solve mytasks:EvensTask`) and a model (`--model mymodels:answer`)
are both named this way, and each way an import can fail must read as one line naming what went
wrong (the module is not there, the attribute is not, importing the module raised), never as a
traceback. The current directory is searched first, as those tools do, so a file next to the
user works without installing anything.
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

    The current directory goes first on `sys.path` (once); `beside` (a task file's folder),
    when given, before it. Every failure is one `UnknownNameError` line that starts with
    `cannot load {what} {spec!r}`."""
    spec = spec.strip()
    if not is_import_string(spec):
        raise UnknownNameError(
            f"cannot load {what} {shown(spec)}: write it as package.module:attribute"
        )
    module_name, attribute = spec.split(":", 1)
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    folder = None if beside is None else str(beside.resolve())
    if folder is not None and folder not in sys.path:
        sys.path.insert(0, folder)
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
                f"{shown(attribute)}"
            ) from None
        except Exception as exc:  # a module __getattr__ that raises
            raise UnknownNameError(
                f"cannot load {what} {shown(spec)}: reading {attribute} raised {first_line(exc)}"
            ) from None
    return found
