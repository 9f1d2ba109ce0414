"""The simulated model's profiles: its laws of slips per task and job kind, as data.

Why data and not code: the default (`gpt-3.5-paper`) was fitted to the GoT paper's end-to-end
figures, the others to real models' replies call by call (`llama-3-70b`, `gpt-3.5-turbo`:
scripts/fit_profiles.py on the Tree of Problems release), and a user can write their own; each
travels with where it came from. Shipped profiles are JSON files beside this module
(`profiles/`, read fast at start); a user's is a YAML or JSON file of the same shape
(docs/simulated-model.md). Per task: a `unit` and a slip `mix` for its power laws, and `laws`,
one per job kind: `{a, g}` (a power law), `{points: ...}` (a table), or `{same_as: kind}`
(`laws.py`). A profile may name a shipped `base`: the laws it does not give are the base's.
Anything wrong in a file is one line naming the file and the place (`tasks.sorting.laws...`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from thoughtgraph.errors import InputError, UnknownNameError, shown
from thoughtgraph.io.strictload import RefusedDocument, load_json, load_yaml
from thoughtgraph.sim.laws import MEASURES, UNIFORM, Law, Mix, PowerLaw, TableLaw, Weights

DEFAULT = "gpt-3.5-paper"
SHIPPED = Path(__file__).resolve().parent / "profiles"
KINDS = ("solve", "cot", "fix", "merge", "split", "part", "refine", "score")
_LIST_SLIPS = ("drop", "duplicate", "misplace", "stray")
SLIPS: dict[str, dict[str, tuple[str, ...]]] = {
    # task -> job kind ("" for the others) -> the kinds of slip its answers make, in draw order
    "sorting": {"": _LIST_SLIPS},
    "set-intersection": {"": ("drop", "duplicate", "stray")},
    "keyword-counting": {
        "": ("under", "undercount", "over", "forget", "invent"),
        "split": ("drop", "copy"),
    },
    "doc-merge": {"": ("drop", "repeat"), "score": ()},
}
_FILE_SUFFIXES = (".yaml", ".yml", ".json")


def slip_kinds(task: str, kind: str) -> tuple[str, ...]:
    kinds = SLIPS[task]
    return kinds.get(kind, kinds[""])


@dataclass(frozen=True)
class RealFigures:
    """One job size of the replies a profile was fitted to, per call (what the fit is held to)."""

    task: str
    job: str  # whole, leaf, merge
    size: str  # as the docs name it: 16, into 32, 32x16, 1/16 text, ...
    kind: str  # the sim's job kind it stands for
    calls: int
    p_exact: float
    mean_error: float
    points: Mapping[str, int]  # error points by kind (lost, repeated, ...)
    shapes: Mapping[str, int]  # how many calls of each shape (lengths, counts) a check rebuilds


@dataclass(frozen=True)
class Profile:
    """A named set of laws, one per (task, job kind), with where they came from."""

    name: str
    about: str
    laws: Mapping[tuple[str, str], Law]
    source: Mapping[str, object] = field(default_factory=dict)
    real: tuple[RealFigures, ...] = ()

    def law(self, task: str, kind: str) -> Law:
        """The law of a job; a kind the task has no law for answers as its `solve`."""
        return self.laws.get((task, kind)) or self.laws[(task, "solve")]


@cache
def shipped_names() -> list[str]:
    return sorted(p.stem for p in SHIPPED.glob("*.json"))


def is_file_spec(spec: str) -> bool:
    return spec.endswith(_FILE_SUFFIXES) or "/" in spec or "\\" in spec


def load_profile(spec: str | Profile) -> Profile:
    """A shipped profile by name, or a profile file by path (`.yaml`, `.yml`, `.json`)."""
    if isinstance(spec, Profile):
        return spec
    if is_file_spec(spec):
        path = Path(spec).expanduser().resolve()
        try:
            stamp = path.stat()
        except OSError:
            return _from_file(str(path), 0, 0)  # says why it cannot be read
        return _from_file(str(path), stamp.st_mtime_ns, stamp.st_size)
    if spec not in shipped_names():
        raise UnknownNameError(
            f"unknown sim profile {shown(spec)} (known: {', '.join(shipped_names())}; "
            "or a profile file ending in .yaml or .json)"
        )
    return shipped(spec)


@cache
def shipped(name: str) -> Profile:
    return _read_shipped(name, ())


def _read_shipped(name: str, chain: tuple[str, ...]) -> Profile:
    path = SHIPPED / f"{name}.json"
    return _checked(load_json(path.read_text(encoding="utf-8")), str(path), (*chain, name))


@cache
def _from_file(path: str, _mtime: int, _size: int) -> Profile:
    """A profile file, read once per version of it (a file edited in a notebook is read anew)."""
    where = f"sim profile file {_named(path)}"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise InputError(f"{where}: not UTF-8 text") from None
    try:
        data = load_json(text) if path.endswith(".json") else load_yaml(text)
    except RefusedDocument as exc:
        raise InputError(f"{where}: {exc}") from None
    except Exception as exc:  # yaml.YAMLError, json.JSONDecodeError: one line, not a traceback
        first = str(exc).strip().splitlines() or [type(exc).__name__]
        raise InputError(f"{where}: not valid YAML or JSON ({first[0]})") from None
    return _checked(data, path, ())


def read_profile(data: object, where: str) -> Profile:
    """A profile from its parsed document (a fit in the making, a profile built in code)."""
    return _checked(data, where, ())


class _Bad(Exception):
    """What is wrong in a profile, and where in it (a dotted path)."""


def _checked(data: object, path: str, chain: tuple[str, ...]) -> Profile:
    try:
        return _profile(data, path, chain)
    except _Bad as exc:
        raise InputError(f"sim profile {_named(path)}: {exc}") from None


def _named(path: str) -> str:
    """A path as an error shows it: whole, so it can be copied (quoted if it is odd)."""
    return path if path.isprintable() else shown(path)


def _profile(data: object, path: str, chain: tuple[str, ...]) -> Profile:
    top = _mapping(data, "the document")
    _only(top, ("name", "about", "notice", "base", "source", "tasks", "real"), "the document")
    laws: dict[tuple[str, str], Law | str] = {}
    if "base" in top:
        laws.update(_base(_text(top["base"], "base"), chain).laws)
    for task, body in _mapping(top.get("tasks", {}), "tasks").items():
        if task not in SLIPS:
            raise _Bad(f"tasks: unknown task {shown(task)} (known: {', '.join(SLIPS)})")
        for kind, law in _task(task, body, f"tasks.{task}").items():
            laws[(task, kind)] = law
    resolved = {key: _resolve(key, laws) for key in laws}
    for task in sorted({t for t, _ in resolved}):
        if (task, "solve") not in resolved:
            raise _Bad(f"tasks.{task}.laws: no solve law (it is the law of any kind not given)")
    return Profile(
        name=_text(top.get("name", Path(path).stem), "name"),
        about=_text(top.get("about", ""), "about"),
        laws=resolved,
        source=_mapping(top.get("source", {}), "source"),
        real=_real(top.get("real", {})),
    )


def _base(name: str, chain: tuple[str, ...]) -> Profile:
    if name not in shipped_names():
        raise _Bad(f"base: unknown profile {shown(name)} (known: {', '.join(shipped_names())})")
    if name in chain:
        raise _Bad(f"base: {shown(name)} is its own base")
    return _read_shipped(name, chain) if chain else shipped(name)


def _resolve(key: tuple[str, str], laws: Mapping[tuple[str, str], Law | str]) -> Law:
    task, kind = key
    seen = [kind]
    law = laws[key]
    while isinstance(law, str):
        if law in seen:
            raise _Bad(f"tasks.{task}.laws: same_as goes round ({' -> '.join([*seen, law])})")
        if (task, law) not in laws:
            raise _Bad(f"tasks.{task}.laws.{seen[-1]}: same_as {shown(law)}, a kind with no law")
        seen.append(law)
        law = laws[(task, law)]
    return law


def _task(task: str, body: object, where: str) -> dict[str, Law | str]:
    spec = _mapping(body, where)
    _only(spec, ("unit", "mix", "laws"), where)
    unit = _positive(spec.get("unit", 1), f"{where}.unit")
    out: dict[str, Law | str] = {}
    for kind, law in _mapping(spec.get("laws", {}), f"{where}.laws").items():
        if kind not in KINDS:
            raise _Bad(f"{where}.laws: unknown job kind {shown(kind)} (known: {', '.join(KINDS)})")
        at = f"{where}.laws.{kind}"
        out[kind] = _law(task, kind, _mapping(law, at), unit, spec.get("mix"), at)
    return out


def _law(
    task: str, kind: str, law: dict[str, object], unit: float, mix: object, where: str
) -> Law | str:
    if "same_as" in law:
        _only(law, ("same_as",), where)
        return _text(law["same_as"], f"{where}.same_as")
    measure = _text(law.get("measure", "output"), f"{where}.measure")
    if measure not in MEASURES:
        raise _Bad(f"{where}.measure: {shown(measure)} is not one of {', '.join(MEASURES)}")
    slips = slip_kinds(task, kind)
    if "points" in law:
        _only(law, ("points", "measure", "growth", "fitted"), where)
        note = _text(law.get("fitted", ""), f"{where}.fitted")
        points = _points(law["points"], slips, f"{where}.points")
        growth = _number(law["growth"], f"{where}.growth") if "growth" in law else None
        return TableLaw(points, slips, measure, note, growth)
    _only(law, ("a", "g", "unit", "mix", "measure"), where)
    if "a" not in law or "g" not in law:
        raise _Bad(f"{where}: needs a and g (a power law), points (a table) or same_as")
    return PowerLaw(
        a=_number(law["a"], f"{where}.a"),
        g=_number(law["g"], f"{where}.g", minimum=None),
        unit=_positive(law.get("unit", unit), f"{where}.unit"),
        mix=_mix(law.get("mix", mix), slips, f"{where}.mix"),
        measure=measure,
    )


def _mix(value: object, slips: tuple[str, ...], where: str) -> Mix:
    if not slips:  # a job that cannot slip (the scorer's noise is not a slip)
        return Mix(())
    if value is None or value == "uniform":
        return UNIFORM
    weights = _mapping(value, where)
    for kind in weights:
        if kind not in slips:
            raise _Bad(f"{where}: unknown slip kind {shown(kind)} (known: {', '.join(slips)})")
    values = {k: _number(v, f"{where}.{k}") for k, v in weights.items()}
    if not sum(values.values()) > 0:
        raise _Bad(f"{where}: the weights add up to 0")
    return Mix(tuple(values.items()))


def _points(value: object, slips: tuple[str, ...], where: str) -> tuple[tuple[float, Weights], ...]:
    table = _mapping(value, where)
    if not table:
        raise _Bad(f"{where}: needs at least one length")
    points: list[tuple[float, Weights]] = []
    for length, rates in table.items():
        try:
            x = float(length)
        except ValueError:
            x = math.nan
        if not math.isfinite(x) or x < 0:
            raise _Bad(f"{where}: {shown(length)} is not a length (a number, 0 or more)")
        row = _mapping(rates, f"{where}.{length}")
        for kind in row:
            if kind not in slips:
                known = ", ".join(slips)
                raise _Bad(f"{where}.{length}: unknown slip kind {shown(kind)} (known: {known})")
        points.append((x, tuple((k, _number(row[k], f"{where}.{length}.{k}")) for k in row)))
    points.sort(key=lambda p: p[0])
    if len({x for x, _ in points}) != len(points):
        raise _Bad(f"{where}: a length is given twice")
    return tuple(points)


def _real(value: object) -> tuple[RealFigures, ...]:
    out = []
    for task, rows in _mapping(value, "real").items():
        if not isinstance(rows, list):
            raise _Bad(f"real.{task}: expected a list of job sizes")
        for i, row in enumerate(rows):
            where = f"real.{task}[{i}]"
            r = _mapping(row, where)
            missing = [k for k in ("job", "size", "kind", "p_exact", "mean_error") if k not in r]
            if missing:
                raise _Bad(f"{where}: missing {', '.join(missing)}")
            out.append(
                RealFigures(
                    task=task,
                    job=_text(r["job"], f"{where}.job"),
                    size=_text(r["size"], f"{where}.size"),
                    kind=_text(r["kind"], f"{where}.kind"),
                    calls=int(_number(r.get("calls", 0), f"{where}.calls")),
                    p_exact=_number(r["p_exact"], f"{where}.p_exact"),
                    mean_error=_number(r["mean_error"], f"{where}.mean_error"),
                    points=_counts(r.get("points", {}), f"{where}.points"),
                    shapes=_counts(r.get("shapes", {}), f"{where}.shapes"),
                )
            )
    return tuple(out)


def _counts(value: object, where: str) -> dict[str, int]:
    return {k: int(_number(v, f"{where}.{k}")) for k, v in _mapping(value, where).items()}


def _mapping(value: object, where: str) -> dict[str, object]:
    if not isinstance(value, dict) or not all(isinstance(k, str | int | float) for k in value):
        raise _Bad(f"{where}: expected a mapping, got {shown(value)}")
    return {str(k): v for k, v in value.items()}


def _only(data: Mapping[str, object], allowed: Sequence[str], where: str) -> None:
    for key in data:
        if key not in allowed:
            raise _Bad(f"{where}: unknown key {shown(key)} (known: {', '.join(allowed)})")


def _number(value: object, where: str, minimum: float | None = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _Bad(f"{where}: expected a finite number, got {shown(value)}")
    if minimum is not None and value < minimum:
        raise _Bad(f"{where}: must be {minimum:g} or more, got {value:g}")
    return float(value)


def _positive(value: object, where: str) -> float:
    number = _number(value, where)
    if number <= 0:
        raise _Bad(f"{where}: must be more than 0")
    return number


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise _Bad(f"{where}: expected a text, got {shown(value)}")
    return value
