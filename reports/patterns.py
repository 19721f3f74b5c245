"""JSON Schema regular expressions run by RE2, whose matching time is linear in the input.

Tenant schemas are untrusted: with Python's backtracking `re`, `^(a+)+$` against forty
`a`s and a `!` runs for minutes holding the GIL. jsonschema calls `re.search` for
`pattern`, `patternProperties` and the `additionalProperties` that depends on them, so a
validator class replaces exactly those keywords; the meta-schema's `format: regex` check
compiles with RE2 too, so a pattern RE2 cannot run (backreferences, lookaround) is refused
when the schema is saved.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

import re2
from jsonschema import Draft202012Validator, FormatChecker, validators
from jsonschema.exceptions import ValidationError


class PatternUnsupported(Exception):
    """A schema pattern RE2 cannot compile."""

    def __init__(self, pattern: str, reason: str) -> None:
        super().__init__(f"pattern {pattern[:80]!r} is not supported: {reason}")
        self.pattern = pattern


_OPTIONS = re2.Options()
# RE2 bounds a compiled program's memory; a pattern past it ("(a{1000}){1000}") fails to
# compile instead of allocating. 8 MB is RE2's default, stated here because it is a limit.
_OPTIONS.max_mem = 8 << 20
_OPTIONS.log_errors = False  # a refused pattern is the tenant's error, not a log line


def _reason(exc: Exception) -> str:
    reason = exc.args[0] if exc.args else ""
    text = reason.decode(errors="replace") if isinstance(reason, bytes) else str(reason)
    return text or "RE2 cannot compile it"


@lru_cache(maxsize=512)
def pattern_compile(pattern: str) -> Any:
    """The RE2 program of a pattern (cached: a schema is used for every job of a template)."""
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        raise PatternUnsupported(pattern, _reason(exc)) from None


def pattern_search(pattern: str, text: str) -> bool:
    return pattern_compile(pattern).search(text) is not None


def _pattern(
    validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not pattern_search(pattern, instance):
        yield ValidationError(f"{instance[:80]!r} does not match {pattern[:80]!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if pattern_search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [
        key
        for key in instance
        if key not in properties and not any(pattern_search(p, key) for p in patterns)
    ]


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    extras = _additional(instance, schema)
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        names = ", ".join(repr(extra) for extra in sorted(extras)[:10])
        yield ValidationError(f"additional properties are not allowed ({names})")


SchemaValidator = validators.extend(
    Draft202012Validator,
    {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    },
)

# The meta-schema marks `pattern` and every `patternProperties` key as `format: regex`.
FORMAT_CHECKER = FormatChecker()
FORMAT_CHECKER.checks("regex", raises=PatternUnsupported)(
    lambda value: not isinstance(value, str) or bool(pattern_compile(value))
)
