"""`quick_init`: a frozen record's cheap `__init__` must build exactly what the dataclass's
own would, and stay frozen."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from dataclasses import dataclass, field

import pytest

from thoughtgraph.engine.state import Call
from thoughtgraph.engine.thought import Thought
from thoughtgraph.models.base import Completion
from thoughtgraph.records import quick_init
from thoughtgraph.spend.accounting import Spend
from thoughtgraph.spend.ledger import Attempt
from thoughtgraph.spend.usage import Usage


@dataclass(frozen=True, slots=True)
class Plain:
    a: int
    b: str = "b"
    c: list[int] = field(default_factory=list)


@quick_init
@dataclass(frozen=True, slots=True)
class Quick:
    a: int
    b: str = "b"
    c: list[int] = field(default_factory=list)


def test_builds_what_the_dataclass_init_builds() -> None:
    for args, kwargs in [((1,), {}), ((1, "x"), {}), ((1,), {"c": [2]}), ((), {"a": 3, "b": "y"})]:
        quick, plain = Quick(*args, **kwargs), Plain(*args, **kwargs)
        assert dataclasses.astuple(quick) == dataclasses.astuple(plain)
    assert Quick(1).c is not Quick(1).c  # a factory's default is made afresh each time
    assert Quick(1) == Quick(1) and hash(Usage(1, 2)) == hash(Usage(1, 2))


def test_same_signature_and_errors_as_the_generated_init() -> None:
    assert list(inspect.signature(Quick).parameters) == list(inspect.signature(Plain).parameters)
    with pytest.raises(TypeError):
        Quick()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Quick(1, d=2)  # type: ignore[call-arg]


def test_stays_frozen_and_replaceable_and_picklable() -> None:
    quick = Quick(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.a = 2  # type: ignore[misc]
    assert dataclasses.replace(quick, b="q") == Quick(1, "q")
    assert pickle.loads(pickle.dumps(Quick(5, "p", [1]))) == Quick(5, "p", [1])


def test_refuses_a_class_it_cannot_copy_the_init_of() -> None:
    @dataclass
    class Mutable:
        a: int

    @dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclass(frozen=True, slots=True)
    class After:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclass(frozen=True, slots=True, kw_only=True)
    class KeywordOnly:
        a: int

    for cls in (Mutable, NoSlots, After, KeywordOnly, int):
        with pytest.raises(TypeError):
            quick_init(cls)


@pytest.mark.parametrize("record", [Thought, Call, Completion, Usage, Spend, Attempt])
def test_the_run_records_keep_their_fields_defaults_and_freezing(record: type) -> None:
    required = {
        f.name: f"v-{f.name}"
        for f in dataclasses.fields(record)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    made = record(**required)
    for f in dataclasses.fields(record):
        if f.name in required:
            assert getattr(made, f.name) == required[f.name]
        elif f.default is not dataclasses.MISSING:
            assert getattr(made, f.name) == f.default
        else:
            assert getattr(made, f.name) == f.default_factory()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, dataclasses.fields(record)[0].name, None)


def test_spend_totals_are_built_in_the_field_order_they_are_summed_in() -> None:
    from thoughtgraph.spend import accounting

    names = [f.name for f in dataclasses.fields(Spend)]
    assert names == ["calls", "paid_calls", *accounting._SUMMED[1:]]


def test_a_pickle_from_before_the_records_had_slots_loads_as_it_was_made() -> None:
    """Completion, Spend and Attempt were plain frozen dataclasses: their pickles hold a
    `__dict__`, which must fill each field by name (not zip field names into the values)."""
    old = Completion.__new__(Completion)
    old.__setstate__({"text": "hi", "usage": Usage(1, 2), "cached": True})  # type: ignore[attr-defined]
    assert old == Completion("hi", Usage(1, 2), cached=True)  # the missing fields: defaults
    spend = Spend.__new__(Spend)
    spend.__setstate__({"calls": 3, "cost": 0.5})  # type: ignore[attr-defined]
    assert spend == Spend(calls=3, cost=0.5)
    new = pickle.loads(pickle.dumps(Attempt("ok", 2, 10, 20)))
    assert new == Attempt("ok", 2, 10, 20)


def test_frozen_fields_raise_frozen_errors_and_a_subclass_may_add_attributes() -> None:
    import weakref

    class Mine(Completion):
        pass

    mine = Mine("x")
    mine.note = 1  # type: ignore[attr-defined]  # a subclass's own attribute, as before slots
    assert mine.note == 1  # type: ignore[attr-defined]
    for record in (Completion("x"), Thought("i", "o", "k", None, ""), mine):
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.text = "y"  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            del record.text  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Completion("x").note = 1  # type: ignore[attr-defined]
    assert weakref.ref(Completion("x")) is not None  # weakrefs work, as before slots
    assert weakref.ref(Spend()) is not None and weakref.ref(Attempt("ok")) is not None
