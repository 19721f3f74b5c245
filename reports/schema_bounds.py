"""Bounds a tenant's JSON Schema must keep when it is saved, so validating data against it
costs at most a bounded number of subschema evaluations per data node.

jsonschema's work is super-linear in two ways a size limit alone does not stop: in-place
applicators over `$ref` chains multiply (`anyOf` of two refs to the level below doubles the
work per level: depth 12 in 873 bytes took 0.38 s, depth 30 days), and recursion through
the same data location loops. So besides its JSON size and node count, the schema is
walked with its local references followed: the deepest chain of in-place applicators at
one data location and the number of subschemas it expands to are capped, and recursion is
refused when it never descends into the data or reaches the same data twice per level.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from referencing._core import Resolver
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from rendering.errors import ApplicationError
from rendering.limits import Limits
from reports.error_codes import TemplateErrorCode
from reports.json_walk import json_nodes
from reports.schema_refs import REGISTRY

# Keywords whose subschemas apply to the same data location as their parent.
_IN_PLACE_ONE = ("not", "if", "then", "else")
_IN_PLACE_MANY = ("allOf", "anyOf", "oneOf")
_IN_PLACE_MAP = ("dependentSchemas",)
# Keywords whose subschema applies to children of the data, and the path segment of those
# children: items of an array ("[*]"), values of an object (".*"), its keys.
_DESCEND_ONE = {
    "items": "[*]",
    "additionalItems": "[*]",
    "contains": "[*]",
    "unevaluatedItems": "[*]",
    "additionalProperties": ".*",
    "unevaluatedProperties": ".*",
    "propertyNames": "{key}",
}
_REFS = ("$ref", "$dynamicRef", "$recursiveRef")


class SchemaTooComplex(ApplicationError):
    """reports.validation.schema_check answers it as SchemaInvalid."""

    code = TemplateErrorCode.INVALID_SCHEMA


def _count_nodes(schema: Any, limit: int) -> int:
    """The schema's nodes, counted no further than one past `limit`."""
    return sum(1 for _node in islice(json_nodes(schema), limit + 1))


@dataclass
class _Target:
    """A reference target being expanded: where in the data it was entered, and how often
    its own expansion refers back to it for each data path below that."""

    key: int
    entered_at: int
    back_edges: Counter[tuple[str, ...]] = field(default_factory=Counter)


@dataclass
class _Walk:
    limits: Limits
    expanded: int = 0
    # The data path from the root (".name", ".*", "[*]", "[0]"...) and the reference
    # targets being expanded along it.
    path: list[str] = field(default_factory=list)
    targets: list[_Target] = field(default_factory=list)
    # Lookups by (base URI, reference): a shared definition is reached many times.
    resolved: dict[tuple[str, str], Any] = field(default_factory=dict)

    def visit(self, node: Any, resolver: Resolver, depth: int) -> None:
        self.expanded += 1
        if self.expanded > self.limits.schema_max_expansion:
            raise SchemaTooComplex(
                f"schema expands to more than {self.limits.schema_max_expansion} subschemas "
                "with its $refs followed (PDF_SCHEMA_MAX_EXPANSION); share less through "
                "anyOf/oneOf/allOf of references."
            )
        if depth > self.limits.schema_max_depth:
            raise SchemaTooComplex(
                f"schema nests more than {self.limits.schema_max_depth} in-place applicators "
                "(allOf, anyOf, oneOf, not, if/then/else, $ref) at one data location "
                "(PDF_SCHEMA_MAX_DEPTH)."
            )
        if not isinstance(node, dict):
            return  # true / false
        if isinstance(node.get("$id"), str):
            resolver = resolver.in_subresource(DRAFT202012.create_resource(node))
        for key in _REFS:
            if isinstance(node.get(key), str):
                self._follow(node[key], resolver, depth + 1)
        for key in _IN_PLACE_ONE:
            if key in node:
                self.visit(node[key], resolver, depth + 1)
        for key in _IN_PLACE_MANY:
            for sub in _as_list(node.get(key)):
                self.visit(sub, resolver, depth + 1)
        for key in _IN_PLACE_MAP:
            for sub in _as_dict(node.get(key)).values():
                self.visit(sub, resolver, depth + 1)
        for segment, child in _children(node):
            self.path.append(segment)
            try:
                self.visit(child, resolver, 0)
            finally:
                self.path.pop()

    def _follow(self, ref: str, resolver: Resolver, depth: int) -> None:
        key = (resolver._base_uri, ref)  # referencing keeps the base URI unexposed
        resolved = self.resolved.get(key)
        if resolved is None:
            try:
                resolved = self.resolved[key] = resolver.lookup(ref)
            except Unresolvable:
                raise SchemaTooComplex(f"schema $ref {ref[:120]!r} does not resolve.") from None
        target = id(resolved.contents)
        for entered in self.targets:
            if entered.key == target:
                self._back_edge(entered, ref)
                return
        self.targets.append(_Target(key=target, entered_at=len(self.path)))
        try:
            self.visit(resolved.contents, resolved.resolver, depth)
        finally:
            self.targets.pop()

    def _back_edge(self, entered: _Target, ref: str) -> None:
        """Recursion: fine once per data path below the target (a tree), refused when it
        does not descend (an endless loop) or reaches the same data twice (the work then
        doubles with every level of the data)."""
        below = tuple(self.path[entered.entered_at :])
        if not below:
            raise SchemaTooComplex(
                f"schema $ref {ref[:120]!r} refers back to itself without descending "
                "into the data (an endless loop)."
            )
        entered.back_edges[below] += 1
        if entered.back_edges[below] > 1:
            raise SchemaTooComplex(
                f"schema $ref {ref[:120]!r} is reached twice for the same data "
                f"({''.join(below)}) at each level of its recursion, so the work doubles "
                "per level; choose the branch with if/then instead of anyOf/oneOf."
            )
        self.expanded += 1  # one level into the data: bounded by the data's depth


def _children(node: dict[str, Any]) -> list[tuple[str, Any]]:
    """The subschemas that apply to children of the data, with the child's path segment."""
    children = [(segment, node[key]) for key, segment in _DESCEND_ONE.items() if key in node]
    if isinstance(node.get("items"), list):  # draft 4-7 tuple form
        children = [(segment, sub) for segment, sub in children if sub is not node["items"]]
        children += [(f"[{index}]", sub) for index, sub in enumerate(node["items"])]
    children += [(f"[{i}]", sub) for i, sub in enumerate(_as_list(node.get("prefixItems")))]
    children += [(f".{name}", sub) for name, sub in _as_dict(node.get("properties")).items()]
    children += [
        (f".~{pattern}", sub) for pattern, sub in _as_dict(node.get("patternProperties")).items()
    ]
    return children


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def schema_bounds_check(schema: dict[str, Any], *, limits: Limits) -> None:
    """Raise SchemaTooComplex (400 invalid_schema) naming the bound a schema passes. Every
    step stops at its limit, so the check itself is linear in the limits."""
    size = len(json.dumps(schema, separators=(",", ":")).encode("utf-8"))
    if size > limits.schema_max_bytes:
        raise SchemaTooComplex(
            f"schema is {size} bytes; the limit is {limits.schema_max_bytes} bytes "
            "(PDF_SCHEMA_MAX_BYTES)."
        )
    if _count_nodes(schema, limits.schema_max_nodes) > limits.schema_max_nodes:
        raise SchemaTooComplex(
            f"schema has more than {limits.schema_max_nodes} JSON values (PDF_SCHEMA_MAX_NODES)."
        )
    resource = DRAFT202012.create_resource(schema)
    resolver = REGISTRY.resolver_with_root(resource)
    _Walk(limits=limits).visit(schema, resolver, 0)
