"""Prompt variants (`tune --prompts FILE`, `eval --prompts FILE`): the user's texts per prompt.

The file maps a *slot* (a prompt name the searched schemes' ops send: `part`, `merge`, `refine`
for `got`; the task's `io`/`cot`, `improve`, ... for `got_paper` and `tot`) to a list of variant
templates, each a plain string or `{name: ..., template: ...}`:

    part:
      - name: careful
        template: |
          Sort this part carefully. <part>{{part}}</part> ...
      - "Sort: <part>{{part}}</part> Format: {{format}}"

Every slot also keeps its built-in prompt as the variant `default`, so a tune can find that the
stock text was best. A trial picks one variant per slot its graph uses; the graph then carries
the chosen text in its own `prompts` (graph.py), so `solve --graph best.yaml` sends exactly the
words that were tuned. Everything is checked here, before any call: the file's shape, the slots,
the names, and that every template parses and asks only for values its ops fill. `eval
--prompts` reads the same file and sends each slot's first variant (so the format lives here,
under both).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from thoughtgraph.errors import InputError, shown
from thoughtgraph.io.bounds import MAX_GRAPH_FILE_BYTES, read_file
from thoughtgraph.io.strictload import RefusedDocument, load_json, load_yaml
from thoughtgraph.tasks.prompts import PromptTemplate, TemplateError

DEFAULT = "default"  # the variant name of a slot's built-in prompt
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Variants:
    """slot -> {variant name -> template text}; `default` (the built-in) is not stored."""

    slots: dict[str, dict[str, str]]
    digest: str  # of the file's variants: a resumed tune must search the same ones
    round: int = 1  # `tune --propose`: the proposal round whose choices trials are asked now

    def choices(self, slot: str) -> list[str]:
        """The variant names a trial chooses among, the built-in first."""
        return [DEFAULT, *self.slots[slot]]

    def param(self, slot: str) -> str:
        """The Optuna parameter of a slot's choice: one per proposal round, since a
        categorical's choices cannot grow within a study (`prompt.part`, `prompt.part@2`)."""
        return f"prompt.{slot}" + (f"@{self.round}" if self.round > 1 else "")

    def with_proposals(self, round: int, proposals: Mapping[str, list[str]]) -> Variants:
        """These variants plus a round's proposals (named proposedR_I), asked as round `round`."""
        slots = {slot: dict(named) for slot, named in self.slots.items()}
        for slot, texts in proposals.items():
            for index, text in enumerate(texts, start=1):
                slots.setdefault(slot, {})[f"proposed{round}_{index}"] = text
        return Variants(slots, self.digest, round)

    def text(self, slot: str, name: str) -> str | None:
        """The chosen variant's template text; None for the built-in."""
        return None if name == DEFAULT else self.slots[slot][name]


def load(path: Path, slots: Mapping[str, frozenset[str]]) -> Variants:
    """Read and check a prompts file against the slots of the searched schemes (slot -> the
    template values its ops fill). Any problem is one `InputError` naming the file."""
    where = f"--prompts {path}"
    text = read_file(path, MAX_GRAPH_FILE_BYTES, "prompts file")
    try:
        return parse(_decode(text, path), slots)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    except RecursionError:
        raise InputError(f"{where}: nested too deeply to be a prompts file") from None


def _decode(text: str, path: Path) -> Any:
    if path.suffix.lower() == ".json":
        try:
            return load_json(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg} at line {exc.lineno}") from None
        except RefusedDocument as exc:
            raise InputError(f"invalid JSON: {exc}") from None
    import yaml

    try:
        return load_yaml(text)
    except RefusedDocument as exc:
        raise InputError(f"invalid YAML: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError("invalid YAML" + (f" at line {mark.line + 1}" if mark else "")) from None


def parse(data: object, slots: Mapping[str, frozenset[str]]) -> Variants:
    """The variants of decoded file data, its shape checked here (see the module docstring for
    the format)."""
    if not isinstance(data, dict) or not data:
        raise InputError("must map prompt slots (e.g. part) to lists of variant templates")
    found: dict[str, dict[str, str]] = {}
    for slot, items in data.items():
        if slot not in slots:
            known = ", ".join(sorted(slots)) or "none"
            raise InputError(
                f"unknown slot {shown(slot)}: the searched schemes' prompts are {known}"
            )
        if not isinstance(items, list) or not items:
            raise InputError(f"{slot}: give a non-empty list of variant templates")
        found[slot] = {}
        for index, item in enumerate(items, start=1):
            name, source = _variant(slot, index, item)
            if name in found[slot] or name == DEFAULT:
                reason = "is the built-in's name" if name == DEFAULT else "is given twice"
                raise InputError(f"{slot}[{index}]: variant name {shown(name)} {reason}")
            _check_template(f"{slot}[{index}] ({name})", source, slots[slot])
            found[slot][name] = source
    canonical = json.dumps(found, sort_keys=True, ensure_ascii=False)
    return Variants(found, hashlib.sha256(canonical.encode()).hexdigest()[:16])


def _variant(slot: str, index: int, item: object) -> tuple[str, str]:
    """(name, template) of one list item: a string (named SLOT_N) or {name, template}."""
    if isinstance(item, str):
        return f"{slot}_{index}", item
    if isinstance(item, dict) and set(item) <= {"name", "template"} and "template" in item:
        name, source = item.get("name", f"{slot}_{index}"), item["template"]
        if not isinstance(name, str) or not _NAME.match(name):
            raise InputError(
                f"{slot}[{index}]: name must be letters, digits, _ . - (got {shown(name)})"
            )
        if isinstance(source, str):
            return name, source
    raise InputError(f"{slot}[{index}]: a variant is a template string or {{name, template}}")


def _check_template(where: str, source: str, fills: frozenset[str]) -> None:
    """The template parses, and asks only for values every op sending it fills."""
    if not source.strip():
        raise InputError(f"{where}: the template is empty")
    try:
        needed = PromptTemplate(source).variables - fills
    except TemplateError as exc:
        raise InputError(f"{where}: {exc}") from None
    if needed:
        raise InputError(
            f"{where}: needs {', '.join(sorted(needed))}, which its ops do not fill "
            f"(they fill: {', '.join(sorted(fills))})"
        )
