"""The one JSON Schema validator every check of tenant data goes through (submit, preview,
template save, the browser form): RE2 patterns (reports.patterns), references resolved
inside the schema only (reports.schema_refs), a linear `uniqueItems`, a deadline, and
only the first error computed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from jsonschema import validators
from jsonschema.exceptions import ValidationError, best_match

from rendering.cpu_budget import CpuBudget
from reports.patterns import SchemaValidator
from reports.schema_refs import REGISTRY


class ValidationDeadline(Exception):
    """Validation spent its budget of the thread's CPU time."""


# The validating thread's CPU time (rendering.cpu_budget): the deadline bounds the work a
# schema makes, not the machine's load.
_budget: ContextVar[CpuBudget | None] = ContextVar("schema_validation_budget", default=None)


def _canonical(value: Any) -> Any:
    """A hashable value equal for exactly the JSON values JSON Schema calls equal: key
    order does not matter, 1 equals 1.0 (as in Python), true is not 1 (tagged apart)."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, dict):
        return ("o", frozenset((key, _canonical(item)) for key, item in value.items()))
    if isinstance(value, list):
        return ("a", tuple(_canonical(item) for item in value))
    return value


def _unique_items(
    validator: Any, unique: Any, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    # jsonschema compares arrays of objects pairwise (2,000 items of 23 KB: 4.6 s); a set
    # of canonical forms makes it one pass over the array.
    if not unique or not validator.is_type(instance, "array"):
        return
    seen: set[Any] = set()
    for index, item in enumerate(instance):
        key = _canonical(item)
        if key in seen:
            yield ValidationError(f"item {index} repeats an earlier item (uniqueItems)")
            return
        seen.add(key)


def _timed(keyword: Callable[..., Any]) -> Callable[..., Any]:
    """Check the deadline before each keyword: every descent into a subschema or a child of
    the data passes through one, so a schema that does too much stops mid-way."""

    def timed(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        budget = _budget.get()
        if budget is not None and not budget.left():
            raise ValidationDeadline
        return keyword(validator, value, instance, schema)

    return timed


_keywords = {**SchemaValidator.VALIDATORS, "uniqueItems": _unique_items}
TenantSchemaValidator = validators.extend(
    SchemaValidator, {name: _timed(fn) for name, fn in _keywords.items()}
)


def schema_first_error(*, schema: Any, data: Any, seconds: float) -> ValidationError | None:
    """The first way `data` fails `schema` (the most relevant cause inside it, as
    best_match picks), or None. Raises ValidationDeadline past `seconds` of this thread's
    CPU time, and referencing's Unresolvable for a reference outside the schema (never
    fetched)."""
    token = _budget.set(CpuBudget(seconds, time.thread_time))
    try:
        validator = TenantSchemaValidator(schema, registry=REGISTRY)
        first = next(iter(validator.iter_errors(data)), None)
        return None if first is None else best_match([first])
    finally:
        _budget.reset(token)
