"""JSON Schema references resolve inside the schema only: no URL or file is ever fetched.

Without a registry of its own, jsonschema retrieves any `$ref` it cannot resolve locally
with `urlopen` (no timeout, redirects and proxies followed, `file:` allowed), from the web
process, while a request waits: blind SSRF and a local-file oracle. Every validator is
built with REGISTRY, whose retrieve refuses; the meta-schemas jsonschema ships stay
available (they are loaded from the package at import, not fetched).
"""

from __future__ import annotations

from typing import Any

from referencing import Registry
from referencing.exceptions import Unresolvable
from referencing.jsonschema import SchemaRegistry

from reports.json_walk import json_nodes

REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


class RemoteRefRefused(Exception):
    """A `$ref` that would need a document from outside the schema."""

    def __init__(self, uri: str) -> None:
        super().__init__(f"remote $ref not allowed ({uri[:120]!r}): only local '#' references")
        self.uri = uri


def _refuse(uri: str) -> Any:
    raise RemoteRefRefused(uri)


# attrs builds `retrieve` into __init__, which mypy cannot see.
REGISTRY: SchemaRegistry = Registry(retrieve=_refuse)  # type: ignore[call-arg]


def remote_ref_refused(exc: Unresolvable) -> RemoteRefRefused | None:
    """The refusal behind a resolution error, if that is what it was."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, RemoteRefRefused):
            return cause
        cause = cause.__cause__ or cause.__context__
    return None


def non_local_ref(schema: Any) -> str | None:
    """The first reference in `schema` that does not start with '#', or None. Walks every
    object, so a `$ref` string inside `const` or `default` counts too (rare, and harmless
    to refuse: the refusal names it)."""
    for item in json_nodes(schema):
        if isinstance(item, dict):
            for key in REF_KEYWORDS:
                ref = item.get(key)
                if isinstance(ref, str) and not ref.startswith("#"):
                    return ref
    return None
