"""`package.module:attribute` import strings (the uvicorn/gunicorn/celery convention).

The module is imported from the current directory and the Python path; every way it can go wrong
is one `UnknownNameError` line: a malformed string, a module not found, an attribute missing, or
the import itself raising (its first line).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from thoughtgraph.errors import UnknownNameError


def split_import(text: str, what: str) -> tuple[str, str]:
    """`pkg.mod:attr.sub` -> ("pkg.mod", "attr.sub"), or one error line naming the form."""
    module, colon, attribute = text.strip().partition(":")
    names = [*module.split("."), *attribute.split(".")]
    if not colon or not all(n.isidentifier() for n in names):
        raise UnknownNameError(
            f"{what} {text!r} is not an import string (expected package.module:name)"
        )
    return module, attribute


def load_object(text: str, what: str) -> Any:
    """The object an import string names (the current directory comes first on the path)."""
    module_name, attribute = split_import(text, what)
    here = os.getcwd()
    if here not in sys.path:  # `python -m`'s rule: the user's own modules beside them import
        sys.path.insert(0, here)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or module_name
        where = "" if missing == module_name else f" (importing {module_name})"
        raise UnknownNameError(
            f"{what} {text!r}: no module named {missing!r}{where} in the current directory or "
            "on the Python path"
        ) from None
    except Exception as exc:
        raise UnknownNameError(
            f"{what} {text!r}: importing {module_name} raised {type(exc).__name__}: "
            f"{first_line(exc)}"
        ) from None
    value: Any = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise UnknownNameError(f"{what} {text!r}: module {module_name} has no {attribute!r}")
        value = getattr(value, part)
    return value


def first_line(exc: BaseException) -> str:
    """An exception's message as one short line."""
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__
