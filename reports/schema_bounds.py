"""Bounds a tenant's JSON Schema must keep when it is saved, so validating data against it
costs at most a bounded number of subschema evaluations per data node.

jsonschema's work is super-linear in two ways a size limit alone does not stop: in-place
applicators over `$ref` chains multiply (`anyOf` of two refs to the level below doubles the
work per level: depth 12 in 873 bytes took 0.38 s, depth 30 days), and recursion through
the same data location loops. So besides its JSON size and node count, the schema is
walked with its local references followed: the deepest chain of in-place applicators at
one data location and the number of subschemas it expands to are capped, and a reference
cycle that never descends into the data is refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from referencing._core import Resolver
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from rendering.errors import ApplicationError
from rendering.limits import Limits
from reports.schema_refs import REGISTRY

# Keywords whose subschemas apply to the same data location as their parent.
_IN_PLACE_ONE = ("not", "if", "then", "else")
_IN_PLACE_MANY = ("allOf", "anyOf", "oneOf")
_IN_PLACE_MAP = ("dependentSchemas",)
# Keywords whose subschemas apply to a child of the data (an item, a property value, a key).
_DESCEND_ONE = (
    "items",
    "additionalItems",
    "additionalProperties",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)
_DESCEND_MANY = ("prefixItems",)
_DESCEND_MAP = ("properties", "patternProperties")
_REFS = ("$ref", "$dynamicRef", "$recursiveRef")


class SchemaTooComplex(ApplicationError):
    """reports.validation.schema_check answers it as SchemaInvalid."""

    code = "invalid_schema"


def _count_nodes(schema: Any, limit: int) -> int:
    count = 0
    stack = [schema]
    while stack and count <= limit:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


@dataclass
class _Walk:
    limits: Limits
    expanded: int = 0
    # The reference targets on the current path, with the descents made before each.
    targets: list[tuple[int, int]] = field(default_factory=list)
    descents: int = 0
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
        children = [node[key] for key in _DESCEND_ONE if key in node]
        children += [sub for key in _DESCEND_MANY for sub in _as_list(node.get(key))]
        children += [sub for key in _DESCEND_MAP for sub in _as_dict(node.get(key)).values()]
        if isinstance(node.get("items"), list):  # draft 4-7 tuple form
            children.remove(node["items"])
            children += node["items"]
        self.descents += 1
        for child in children:
            self.visit(child, resolver, 0)
        self.descents -= 1

    def _follow(self, ref: str, resolver: Resolver, depth: int) -> None:
        key = (resolver._base_uri, ref)  # referencing keeps the base URI unexposed
        resolved = self.resolved.get(key)
        if resolved is None:
            try:
                resolved = self.resolved[key] = resolver.lookup(ref)
            except Unresolvable:
                raise SchemaTooComplex(f"schema $ref {ref[:120]!r} does not resolve.") from None
        target = id(resolved.contents)
        for seen, descents in self.targets:
            if seen == target:
                if descents == self.descents:
                    raise SchemaTooComplex(
                        f"schema $ref {ref[:120]!r} refers back to itself without descending "
                        "into the data (an endless loop)."
                    )
                self.expanded += 1  # recursion into a child of the data: bounded by it
                return
        self.targets.append((target, self.descents))
        try:
            self.visit(resolved.contents, resolved.resolver, depth)
        finally:
            self.targets.pop()


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
