"""`conforms` gives isinstance's verdict for runtime_checkable protocols, cached or not."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from thoughtgraph.conforms import conforms


@runtime_checkable
class Reads(Protocol):
    label: str

    def read(self, text: str) -> int: ...


class Full:
    label = "full"

    def read(self, text: str) -> int:
        return len(text)


class Bare:
    pass


def test_a_class_that_provides_every_member_conforms_each_time() -> None:
    assert conforms(Full(), Reads) and conforms(Full(), Reads)


def test_a_class_without_the_members_never_conforms() -> None:
    assert not conforms(Bare(), Reads) and not conforms(Bare(), Reads)


def test_members_given_per_instance_are_checked_per_instance() -> None:
    given = Bare()
    given.label = "mine"  # type: ignore[attr-defined]
    given.read = len  # type: ignore[attr-defined]
    assert conforms(given, Reads)
    assert not conforms(Bare(), Reads)  # the class itself still lacks them


def test_an_instance_that_blanks_a_method_no_longer_conforms() -> None:
    assert conforms(Full(), Reads)  # the class's verdict is now kept
    blanked = Full()
    blanked.read = None  # type: ignore[assignment]
    assert conforms(blanked, Reads) == isinstance(blanked, Reads)
    assert not conforms(blanked, Reads)
