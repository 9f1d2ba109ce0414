"""JSON and YAML for files users write (graph files, `--prompts` files), refusing repeated keys.

Both parsers keep the last of two equal keys without a word: a graph file with two `prompts`
named `io`, or a prompts file with two `part:` slots, would silently run only one of them.
A repeated key here is an error naming the key and, for YAML, its line.
"""

from __future__ import annotations

import json
from typing import Any


class DuplicateKeyError(ValueError):
    """A mapping gives the same key twice."""


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise DuplicateKeyError(f"the key {key!r} is given twice")
        data[key] = value
    return data


def load_json(text: str) -> Any:
    """`json.loads`, refusing an object that repeats a key (DuplicateKeyError)."""
    return json.loads(text, object_pairs_hook=_no_repeats)


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
                raise DuplicateKeyError(f"the key {key_node.value!r} is given twice (line {line})")
            seen.add(key)
        return loader.construct_mapping(node, deep=True)

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return yaml.load(text, Loader=Loader)  # a SafeLoader subclass: safe
