"""Frozen records that are cheap to make.

A frozen dataclass's generated `__init__` sets each field with `object.__setattr__(self, name,
value)`: a method looked up and a name resolved per field, which made the run's records (a
thought, a completion and its usage per answer, a call per request) several times dearer to
build than the same class unfrozen (a 17-field `Thought`: 4x). `quick_init` gives a frozen,
slotted dataclass an `__init__` with the same signature that stores each field through its slot
directly; everything else (immutability, `replace`, equality, hashing, pickling) stays the
dataclass's own.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

_FACTORY = object()  # a field's default is made by its factory (as dataclasses' own sentinel)


def quick_init(cls: type[T]) -> type[T]:
    """Replace the generated `__init__` of a frozen, slotted dataclass by one that sets the
    slots directly (module doc). Refuses a class it cannot make the same `__init__` for."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"quick_init needs a frozen dataclass with slots, not {cls.__name__}")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"quick_init: {cls.__name__} has a __post_init__")
    names: dict[str, Any] = {"_FACTORY": _FACTORY}
    args, body = [], []
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not field.init or field.kw_only:
            raise TypeError(f"quick_init: {cls.__name__}.{field.name} is not a plain argument")
        name = field.name
        names[f"_set_{name}"] = cls.__dict__[name].__set__  # the slot's own descriptor
        if field.default is not dataclasses.MISSING:
            names[f"_default_{name}"] = field.default
            args.append(f"{name}=_default_{name}")
            body.append(f"    _set_{name}(self, {name})")
        elif field.default_factory is not dataclasses.MISSING:
            names[f"_factory_{name}"] = field.default_factory
            args.append(f"{name}=_FACTORY")
            value = f"_factory_{name}() if {name} is _FACTORY else {name}"
            body.append(f"    _set_{name}(self, {value})")
        else:
            args.append(name)
            body.append(f"    _set_{name}(self, {name})")
    source = f"def __init__(self, {', '.join(args)}):\n" + "\n".join(body or ["    pass"])
    exec(source, names)
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(cls.__init__.__annotations__)
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
