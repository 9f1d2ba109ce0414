"""Scheme variants: a built-in scheme with settings of your own, or one of the paper's named ones.

`got_paper:parts=8` is `got_paper` with 8 parts (any builder keyword: `tot:k=5,levels=3`,
`top:b=2,d=3`);
`parts=size` means one part per item (the paper's GoTx). The paper's variants that are
configurations of our schemes have names of their own, for the task they were run on:
`got4`, `got8`, `gotx` (keyword counting) and `got2` (document merging). A variant's name is its
row in an evaluation's results, summary and figure; `label` is how tables and figures show it.
Every mistake is one `GraphError`/`UnknownNameError` line naming the variant.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from thoughtgraph.errors import GraphError, UnknownNameError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from thoughtgraph.schemes import TaskRef

SIZE = "size"  # `parts=size`: one part per item of the problem

# task -> name -> (scheme, settings over the paper's configuration, label)
PAPER_VARIANTS: dict[str, dict[str, tuple[str, dict[str, Any], str]]] = {
    "keyword-counting": {
        "got4": ("got_paper", {"parts": 4}, "GoT4"),
        "got8": ("got_paper", {"parts": 8}, "GoT8"),
        "gotx": ("got_paper", {"parts": SIZE, "part_prompt": "sentence"}, "GoTx"),
    },
    "doc-merge": {  # partial documents merged: pairs of documents first, then the two merges
        "got2": (
            "got_paper",
            {
                "parts": 2,
                "split_by": "code",
                "keep": 1,
                "sort_n": 5,
                "merge_n": 5,
                "fix_n": 5,
                "final_fix_n": 5,
            },
            "GoT2",
        ),
    },
}


@dataclass(frozen=True)
class Variant:
    """A row of an evaluation built by a scheme: `name` as given, `scheme` the builder."""

    name: str
    scheme: str
    settings: tuple[tuple[str, Any], ...] = ()
    paper_label: str = ""

    def build(self, task: TaskRef, size: int) -> Any:
        """The graph for `task` (its name, or the task object) at `size` (one line naming the
        variant if it cannot be built)."""
        from thoughtgraph.schemes import SCHEMES

        settings = self.settings_for(task, size)
        try:
            return SCHEMES[self.scheme].builder(**settings)
        except GraphError as exc:
            raise GraphError(f"scheme {self.name}: {exc}") from None

    def settings_for(self, task: TaskRef, size: int) -> dict[str, Any]:
        """The keywords its builder is called with for `task` at `size` (`schemes.settings_for`
        with the variant's own settings); one line naming the variant if they cannot be."""
        from thoughtgraph.schemes import settings_for

        settings = dict(self.settings)
        if settings.get("parts") == SIZE:
            settings["parts"] = size
        parts = settings.pop("parts", None)
        try:
            return settings_for(self.scheme, task, size, parts=parts, **settings)
        except GraphError as exc:
            raise GraphError(f"scheme {self.name}: {exc}") from None

    @property
    def custom(self) -> bool:
        return bool(self.settings) and not self.paper_label


def is_variant(name: str) -> bool:
    """Does a row name carry settings (`got_paper:parts=8`)?"""
    return ":" in name


def parse(text: str, task: str | None = None) -> Variant:
    """`got_paper:parts=8,merge_n=5`, a paper variant name (`got8`) or a plain scheme name."""
    from thoughtgraph.schemes import SCHEMES

    name = text.strip()
    if task is not None and name.lower() in PAPER_VARIANTS.get(task, {}):
        scheme, preset, label = PAPER_VARIANTS[task][name.lower()]
        return Variant(name.lower(), scheme, tuple(preset.items()), label)
    base, colon, rest = name.partition(":")
    base = base.strip()
    if base not in SCHEMES:
        known = [*SCHEMES, *PAPER_VARIANTS.get(task or "", {})]
        hint = ""
        for other, names in PAPER_VARIANTS.items():
            if base.lower() in names and other != task:
                hint = f"; {base} is the paper's variant for {other}"
        raise UnknownNameError(f"unknown scheme {base!r} (known: {', '.join(known)}{hint})")
    if not colon:
        return Variant(base, base)
    if not rest.strip():
        raise GraphError(f"scheme {name}: give settings after the colon, e.g. got_paper:parts=8")
    settings: dict[str, Any] = {}
    accepted = _parameters(base)
    for item in rest.split(","):
        key, eq, value = (s.strip() for s in item.partition("="))
        if not eq or not key or not value:
            raise GraphError(f"scheme {name}: {item.strip()!r} is not key=value")
        if key not in accepted:
            raise GraphError(
                f"scheme {name}: {base} has no setting {key!r} (settings: {', '.join(accepted)})"
            )
        if key in settings:
            raise GraphError(f"scheme {name}: {key} is given twice")
        settings[key] = _value(name, key, value, accepted[key])
    canonical = f"{base}:" + ",".join(f"{k}={v}" for k, v in settings.items())
    return Variant(canonical, base, tuple(settings.items()))


def split_list(text: str) -> list[str]:
    """`--schemes io,got_paper:parts=8,merge_n=5,got` -> ['io', 'got_paper:parts=8,merge_n=5',
    'got']: an item with `=` and no `:` is one more setting of the variant before it."""
    names: list[str] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if "=" in item and ":" not in item and names and ":" in names[-1]:
            names[-1] += "," + item
        else:
            names.append(item)
    return list(dict.fromkeys(names))


def _parameters(scheme: str) -> dict[str, Any]:
    """The builder's keywords and their defaults (the type a value must read as)."""
    from thoughtgraph.schemes import SCHEMES

    signature = inspect.signature(SCHEMES[scheme].builder)
    found = {
        name: p.default
        for name, p in signature.parameters.items()
        if not isinstance(p.default, bool)  # a switch the scheme sets itself (top's pairwise)
    }
    if scheme in ("got", "got_paper"):
        found.setdefault("parts", 1)
    return found


def _value(name: str, key: str, text: str, default: object) -> object:
    if key == "parts" and text == SIZE:
        return SIZE
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            extra = " or 'size'" if key == "parts" else ""
            raise GraphError(
                f"scheme {name}: {key} must be a whole number{extra}, got {text!r}"
            ) from None
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise GraphError(f"scheme {name}: {key} must be a number, got {text!r}") from None
    return text


def label(name: str, task: str | None) -> str | None:
    """The paper's label of a named variant (GoT8), else None."""
    entry = PAPER_VARIANTS.get(task or "", {}).get(name)
    return entry[2] if entry else None
