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
    cls.__setstate__ = _setstate_of(cls)  # type: ignore[attr-defined]
    _freeze(cls)
    return cls


def _freeze(cls: type) -> None:
    """The frozen dataclass's `__setattr__`/`__delattr__`, bound to the slotted class itself:
    Python 3.11's refer to the class before `slots=True` remade it, so a subclass's own
    attribute raised `TypeError: super(type, obj)` instead of being set (and a field raised
    that too where it should raise `FrozenInstanceError`)."""
    names = frozenset(f.name for f in dataclasses.fields(cls))

    def __setattr__(self: object, name: str, value: object) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self: object, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)

    for method in (__setattr__, __delattr__):
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        setattr(cls, method.__name__, method)


def _setstate_of(cls: type) -> Any:
    """Unpickling: the dataclass's own state (the fields' values in order), or the `__dict__`
    a pickle holds from before the class had slots (`Completion`, `Spend` and `Attempt` had
    none): read by name, a field it lacks given its default."""
    fields = dataclasses.fields(cls)
    setters = {f.name: cls.__dict__[f.name].__set__ for f in fields}

    def __setstate__(self: object, state: object) -> None:
        if isinstance(state, dict):
            for field in fields:
                if field.name in state:
                    value = state[field.name]
                elif field.default is not dataclasses.MISSING:
                    value = field.default
                elif field.default_factory is not dataclasses.MISSING:
                    value = field.default_factory()
                else:
                    raise TypeError(f"{cls.__name__} pickle lacks the field {field.name!r}")
                setters[field.name](self, value)
            return
        for field, value in zip(fields, state, strict=True):  # type: ignore[call-overload]
            setters[field.name](self, value)

    __setstate__.__qualname__ = f"{cls.__qualname__}.__setstate__"
    return __setstate__
