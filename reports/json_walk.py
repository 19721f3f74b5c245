"""Walking a JSON value (a template's schema) with a stack of its own rather than
recursion: a hostile schema may nest deeper than Python's call stack."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def json_nodes(value: Any) -> Iterator[Any]:
    """Every node of `value`, objects, arrays and scalars, depth first (the last child of
    each first). A node's children are put on the stack only once it has been looked at,
    so a caller that stops early walks no further."""
    stack = [value]
    while stack:
        item = stack.pop()
        yield item
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
