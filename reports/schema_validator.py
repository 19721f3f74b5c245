"""The one JSON Schema validator every check of tenant data goes through (submit, preview,
template save, the browser form): RE2 patterns (reports.patterns), references resolved
inside the schema only (reports.schema_refs), a linear `uniqueItems`, a deadline, and
only the first error computed. Valid data against a schema of common keywords is
answered by a plain walk (data_surely_valid); any error is jsonschema's.
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from jsonschema import validators
from jsonschema.exceptions import ValidationError, best_match

from rendering.cpu_budget import CpuBudget
from reports.patterns import PatternUnsupported, SchemaValidator, pattern_search
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


# The keywords the walk below knows. Annotations assert nothing here: the validator gets no
# format checker, so `format` too is an annotation. `$schema` only at the root: a subschema
# with one is validated by the class it names (jsonschema's `evolve`), not by ours.
_ANNOTATIONS = frozenset(
    {"title", "description", "$comment", "default", "examples", "deprecated", "readOnly"}
    | {"writeOnly", "format"}
)
_KNOWN = _ANNOTATIONS | {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "enum",
}


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


# jsonschema's Draft 2020-12 type checker, predicate for predicate.
_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "number": _is_number,
    "integer": lambda value: (
        (isinstance(value, int) and not isinstance(value, bool))
        or (isinstance(value, float) and value.is_integer())
    ),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
}
# The same answers for the types JSON gives, without a call: the type names a value of
# each exact type is (a float that is whole is an integer too: floats go the long way).
_TYPE_NAMES: dict[type, frozenset[str]] = {
    dict: frozenset({"object"}),
    list: frozenset({"array"}),
    str: frozenset({"string"}),
    int: frozenset({"integer", "number"}),
    float: frozenset({"number"}),
    bool: frozenset({"boolean"}),
    type(None): frozenset({"null"}),
}


def _type_holds(names: Any, instance: Any) -> bool:
    """jsonschema's `type` keyword: any of `names` (in order) that `instance` is. KeyError
    for a name it does not know before a match, where jsonschema raises UnknownType."""
    kind = type(instance)
    known = _TYPE_NAMES.get(kind)
    if type(names) is str and known is not None and kind is not float:
        if names in known:
            return True
        if names not in _TYPE_CHECKS:
            raise KeyError(names)
        return False
    if isinstance(names, str):
        names = (names,)
    return any(_TYPE_CHECKS[name](instance) for name in names)


def _surely_valid(schema: Any, instance: Any, budget: CpuBudget) -> bool:
    """True only if jsonschema (TenantSchemaValidator) finds no error in `instance` against
    `schema`; False when it may find one, or the schema uses anything this walk does not
    know. The same keywords jsonschema applies to each type of value, in plain code."""
    if schema is True:
        return True
    if type(schema) is not dict or not schema.keys() <= _KNOWN:
        return False
    # As often as the validator's own check: it checks before each keyword of a subschema.
    if not budget.left():
        raise ValidationDeadline
    if "type" in schema and not _type_holds(schema["type"], instance):
        return False
    if "enum" in schema:
        # JSON Schema's equality is Python's == between two strings; other values go to
        # jsonschema, whose equality tells true from 1.
        enum = schema["enum"]
        if not isinstance(instance, str) or instance not in [e for e in enum if isinstance(e, str)]:
            return False
    if isinstance(instance, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", ()):
            if name not in instance:
                return False
        for name, subschema in properties.items():
            if name in instance and not _surely_valid(subschema, instance[name], budget):
                return False
        if "additionalProperties" in schema:
            additional = schema["additionalProperties"]
            extras = [key for key in instance if key not in properties]
            if isinstance(additional, dict):
                for key in extras:
                    if not _surely_valid(additional, instance[key], budget):
                        return False
            elif not additional and extras:
                return False
    elif isinstance(instance, list):
        if "items" in schema:
            items = schema["items"]
            for item in instance:
                if not _surely_valid(items, item, budget):
                    return False
        if "minItems" in schema and len(instance) < schema["minItems"]:
            return False
        if "maxItems" in schema and len(instance) > schema["maxItems"]:
            return False
    elif isinstance(instance, str):
        if "minLength" in schema and len(instance) < schema["minLength"]:
            return False
        if "maxLength" in schema and len(instance) > schema["maxLength"]:
            return False
        if "pattern" in schema and not pattern_search(schema["pattern"], instance):
            return False
    elif _is_number(instance):
        if "minimum" in schema and instance < schema["minimum"]:
            return False
        if "maximum" in schema and instance > schema["maximum"]:
            return False
        if "exclusiveMinimum" in schema and instance <= schema["exclusiveMinimum"]:
            return False
        if "exclusiveMaximum" in schema and instance >= schema["exclusiveMaximum"]:
            return False
    return True


def data_surely_valid(schema: Any, data: Any, budget: CpuBudget) -> bool:
    """True only if TenantSchemaValidator finds no error in `data`: a plain walk over the
    data for schemas of common keywords (jsonschema's descent builds a validator for every
    subschema it enters: 15 % of a submit by slug under the profiler). False sends the check to
    jsonschema, so every error, and its message, is still jsonschema's. Raises
    ValidationDeadline when `budget` is spent."""
    if type(schema) is not dict:
        return False
    if "$schema" in schema:  # ignored at the root, where the validator's class is ours
        schema = {key: value for key, value in schema.items() if key != "$schema"}
    try:
        return _surely_valid(schema, data, budget)
    except (TypeError, KeyError, AttributeError, RecursionError, PatternUnsupported):
        return False  # a schema saved before today's checks: jsonschema says what it does


def schema_first_error(*, schema: Any, data: Any, seconds: float) -> ValidationError | None:
    """The first way `data` fails `schema` (the most relevant cause inside it, as
    best_match picks), or None. Raises ValidationDeadline past `seconds` of this thread's
    CPU time, and referencing's Unresolvable for a reference outside the schema (never
    fetched)."""
    budget = CpuBudget(seconds, time.thread_time)
    token = _budget.set(budget)
    try:
        if data_surely_valid(schema, data, budget):
            return None
        validator = TenantSchemaValidator(schema, registry=REGISTRY)
        first = next(iter(validator.iter_errors(data)), None)
        return None if first is None else best_match([first])
    finally:
        _budget.reset(token)
