"""`isinstance` against a `runtime_checkable` Protocol, remembered per class.

typing's check walks the protocol's members on every call (7-14 µs each, several per run); a
class that itself provides every member conforms for all its instances, so that verdict is kept.
An instance whose own attributes shadow a member is checked afresh, and so is every negative.
"""

from __future__ import annotations

_MEMBERS: dict[type, frozenset[str]] = {}
_CONFORMING: set[tuple[type, type]] = set()


def _members(protocol: type) -> frozenset[str]:
    """The names a protocol asks for (its annotations and its own public attributes)."""
    found = _MEMBERS.get(protocol)
    if found is None:
        names: set[str] = set()
        for base in protocol.__mro__:
            if getattr(base, "_is_protocol", False) and base.__module__ != "typing":
                names.update(getattr(base, "__annotations__", {}))
                names.update(n for n in vars(base) if not n.startswith("_"))
        found = _MEMBERS[protocol] = frozenset(names)
    return found


def conforms(obj: object, protocol: type) -> bool:
    """`isinstance(obj, protocol)`, without typing's walk for a class already seen to conform."""
    cls = type(obj)
    own = getattr(obj, "__dict__", None)
    shadowed = bool(own) and not _members(protocol).isdisjoint(own or ())
    if (cls, protocol) in _CONFORMING and not shadowed:
        return True
    found = isinstance(obj, protocol)
    on_class = all(getattr(cls, m, None) is not None for m in _members(protocol))
    if found and not shadowed and on_class:
        _CONFORMING.add((cls, protocol))
    return found
