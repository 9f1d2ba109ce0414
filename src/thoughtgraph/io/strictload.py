"""JSON and YAML as thoughtgraph reads them: bounded always, refusing repeated keys in what
users write.

Bounded (`read_json`, and the strict loaders below): an integer too long for Python to convert
(a 5,000-digit number) and nesting deeper than Python's stack (200,000 nested lists) are each
one `RefusedDocument` line, never Python's `ValueError` or a `RecursionError` traceback. Every
JSON body or file thoughtgraph parses goes through here (a server's response, a data file, a
trace, an events file, an eval folder's files).

Strict (`load_json`, `load_yaml`, for files users write: graph files, `--prompts` files): both
parsers keep the last of two equal keys without a word, so a graph file with two `prompts`
named `io`, or a prompts file with two `part:` slots, would silently run only one of them.
A repeated key here is an error naming the key and, for YAML, its line. YAML aliases that
expand a document far past its written size (an "alias bomb") are refused before anything
walks the expanded data.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

from thoughtgraph.errors import shown


class RefusedDocument(ValueError):
    """A JSON or YAML document these loaders refuse (the message says why, in one line)."""


class DuplicateKeyError(RefusedDocument):
    """A mapping gives the same key twice."""


class NumberTooLongError(RefusedDocument):
    """An integer longer than Python will convert (`sys.get_int_max_str_digits`)."""


def _check_digits(text: str) -> None:
    """Refuse (one line, not Python's traceback) a number too long to convert or print back."""
    digits = sum(c.isdigit() for c in text)
    limit = sys.get_int_max_str_digits() or 4300
    if digits > limit:
        raise NumberTooLongError(f"a number has {digits} digits (at most {limit} are read)")


def _checked_int(text: str) -> int:
    _check_digits(text)
    return int(text)


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise DuplicateKeyError(f"the key {shown(key)} is given twice")
        data[key] = value
    return data


class TooDeepError(RefusedDocument):
    """A document nested deeper than Python's stack lets a parser go."""

    def __init__(self) -> None:
        super().__init__("nested too deeply (lists or mappings inside one another)")


def _finite_float(text: str) -> float:
    """A JSON number with a fraction or exponent; `1e999` (no JSON writer writes it: it is
    infinity, which JSON has no number for) is refused rather than read as `inf`."""
    value = float(text)
    if not math.isfinite(value):
        raise NumberTooLongError(f"the number {text[:20]} is too large to be a number")
    return value


def read_json(text: str | bytes) -> Any:
    """`json.loads` bounded: a too-long integer is `NumberTooLongError`, too deep a nesting
    `TooDeepError` (both `RefusedDocument`, a `ValueError`), a number too large for a float
    refused too; a repeated key keeps the last."""
    try:
        return json.loads(text, parse_int=_checked_int, parse_float=_finite_float)
    except RecursionError:
        raise TooDeepError() from None


def load_json(text: str) -> Any:
    """`read_json`, refusing an object that repeats a key (DuplicateKeyError)."""
    try:
        return json.loads(
            text, object_pairs_hook=_no_repeats, parse_int=_checked_int, parse_float=_finite_float
        )
    except RecursionError:
        raise TooDeepError() from None


def load_toml(text: str) -> Any:
    """`tomllib.loads`, bounded as `read_json` is (TOML has no repeated keys to refuse: it
    refuses them itself)."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except RecursionError:
        raise TooDeepError() from None
    except ValueError:  # tomllib's one bare ValueError: `int()` of a number too long
        limit = sys.get_int_max_str_digits() or 4300
        raise NumberTooLongError(f"a number has more than {limit} digits (the most read)") from None


def load_yaml(text: str) -> Any:
    """`yaml.safe_load`, refusing a mapping that repeats a key (DuplicateKeyError)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
        seen: set[tuple[str, str]] = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                continue  # a `<<:` merge key may repeat keys on purpose
            key = (key_node.tag, key_node.value)
            if key in seen:
                line = key_node.start_mark.line + 1
                raise DuplicateKeyError(
                    f"the key {shown(key_node.value)} is given twice (line {line})"
                )
            seen.add(key)
        return loader.construct_mapping(node, deep=True)

    def integer(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
        _check_digits(node.value)
        return int(yaml.SafeLoader.construct_yaml_int(loader, node))

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    Loader.add_constructor("tag:yaml.org,2002:int", integer)
    loader = Loader(text)  # a SafeLoader subclass: safe
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_aliases(node)
        return loader.construct_document(node)
    except RecursionError:
        raise TooDeepError() from None
    finally:
        loader.dispose()


ALIAS_BUDGET = 100_000
"""How much larger (in nodes plus scalar characters) aliases may make a YAML document than it
is written. Anchors and aliases (`&a` / `*a`) are for reusing a prompt or a block a few times;
nested ones grow exponentially (a 440-byte file of nine levels expands to billions of nodes,
and the first `repr`, JSON dump or walk of it hangs the CLI)."""


class AliasBombError(RefusedDocument):
    """A YAML document whose aliases expand it past `ALIAS_BUDGET`."""


def _check_aliases(root: object) -> None:
    """Refuse a document whose aliases expand it past the budget. Each node's expanded size is
    computed once (memoised by identity), so the check is linear in the document as written."""
    import yaml

    expanded: dict[int, int] = {}
    entered: set[int] = set()
    written = 0
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:  # iterative post-order: a deeply nested file must not hit the recursion limit
        node, children_done = stack.pop()
        if id(node) in expanded:
            continue
        if isinstance(node, yaml.ScalarNode):
            expanded[id(node)] = 1 + len(node.value)
            written += expanded[id(node)]
            continue
        children = (
            [n for pair in node.value for n in pair]
            if isinstance(node, yaml.MappingNode)
            else list(node.value)
        )
        if not children_done:
            if id(node) in entered:  # an alias to an enclosing node: `&a [*a]`
                raise AliasBombError(
                    f"an alias near line {node.start_mark.line + 1} refers to a node that "
                    "contains it: a document cannot contain itself"
                )
            entered.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in expanded)
            continue
        expanded[id(node)] = 1 + sum(expanded.get(id(child), 0) for child in children)
        written += 1
        if expanded[id(node)] > written + ALIAS_BUDGET:
            line = node.start_mark.line + 1
            raise AliasBombError(
                f"aliases (*name) near line {line} expand the document past "
                f"{ALIAS_BUDGET:,} nodes and characters more than it is written: "
                "write the repeated parts out, or reuse them less deeply"
            )
    if expanded[id(root)] > written + ALIAS_BUDGET:
        raise AliasBombError(
            f"aliases (*name) expand the document past {ALIAS_BUDGET:,} nodes and characters "
            "more than it is written"
        )
