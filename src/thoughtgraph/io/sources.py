"""What code a user's object is: a digest of the source that defines it.

Why its own module: a `py:` model keeps its name (`py:mymodels:answer`) when the code under it
changes, and so does a task class. The answer cache and a resumed eval must still tell the new
code from the old, or the old function's answers pass for the new one's. The digest is of the
source files' bytes (not of where they are: moving the folder changes nothing; editing a line
changes it), or of the object's source text when it has no file (a function typed into a
notebook cell). Code the files import from elsewhere is not part of it.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
from collections.abc import Callable
from pathlib import Path
from types import ModuleType


def source_digest(*objects: object) -> str | None:
    """The sha256 (16 hex digits) of the sources defining `objects` (each a function, class,
    module, or an instance of a class), the same whatever their order; None when none of them
    has a source to read (a builtin)."""
    found = {text for text in map(_source, objects) if text is not None}
    if not found:
        return None
    whole = hashlib.sha256()
    for part in sorted(hashlib.sha256(text).hexdigest() for text in found):
        whole.update(part.encode())
    return whole.hexdigest()[:16]


def _source(value: object) -> bytes | None:
    """The bytes of the file defining `value`, else its source text, else None."""
    defining = _defining(value)
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


def _defining(value: object) -> ModuleType | type | Callable[..., object]:
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
