"""The one validation of input for submit, preview, template save and the browser form:
sizes (UTF-8 bytes, 413), nesting depth, data shape and JSON Schema (messages that name
the failing path). Every failure is an ApplicationError with a code and an HTTP status."""

from __future__ import annotations

import json
from typing import Any

from jsonschema.exceptions import SchemaError, ValidationError
from referencing.exceptions import Unresolvable

from rendering.error_codes import ErrorCode
from rendering.errors import LimitExceeded, RenderError
from rendering.limits import DEFAULT_LIMITS, Limits, size_text
from reports.error_codes import TemplateErrorCode
from reports.json_walk import json_nodes
from reports.patterns import FORMAT_CHECKER, PatternUnsupported, SchemaValidator
from reports.schema_bounds import SchemaTooComplex, schema_bounds_check
from reports.schema_refs import non_local_ref, remote_ref_refused
from reports.schema_validator import ValidationDeadline, schema_first_error

_TYPE_NAMES = {
    "number": "number",
    "integer": "integer",
    "string": "string",
    "boolean": "boolean",
    "object": "object",
    "array": "array",
    "null": "null",
}


class DataValidationError(RenderError):
    code = ErrorCode.INVALID_DATA


class SchemaInvalid(RenderError):
    code = TemplateErrorCode.INVALID_SCHEMA


def _path(error: ValidationError) -> str:
    text = ""
    for part in error.absolute_path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "data"


def _reason(error: ValidationError) -> str:
    if error.validator == "type":
        wanted = error.validator_value
        names = [wanted] if isinstance(wanted, str) else list(wanted)
        return "expected " + " or ".join(_TYPE_NAMES.get(n, n) for n in names)
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"missing required property {missing!r}"
    message: str = error.message
    return message[:200]


def schema_check(schema: Any, *, limits: Limits = DEFAULT_LIMITS) -> None:
    """Raise SchemaInvalid if `schema` is not a usable JSON Schema object: valid against
    the meta-schema, its references all local, within the bounds that keep validation
    linear (reports.schema_bounds)."""
    if not isinstance(schema, dict):
        raise SchemaInvalid("schema must be a JSON object (a JSON Schema).")
    if (ref := non_local_ref(schema)) is not None:
        raise SchemaInvalid(
            f"schema $ref {ref[:120]!r}: remote $ref not allowed; refer only inside the "
            "schema ('#/$defs/name')."
        )
    try:
        schema_bounds_check(schema, limits=limits)  # before the meta-schema: it bounds that too
        SchemaValidator.check_schema(schema, format_checker=FORMAT_CHECKER)
    except SchemaError as exc:
        if isinstance(exc.cause, PatternUnsupported):
            raise SchemaInvalid(f"schema {exc.cause}; {_RE2_HINT}") from None
        raise SchemaInvalid(f"schema is not a valid JSON Schema: {exc.message}") from None
    except SchemaTooComplex as exc:
        raise SchemaInvalid(exc.message) from None
    except RecursionError:
        raise SchemaInvalid("schema nests too deeply to check.") from None
    if _has_key(schema, "unevaluatedProperties") and _has_key(schema, "patternProperties"):
        # jsonschema evaluates that pair with Python's backtracking `re`, out of our reach.
        raise SchemaInvalid("schema may not combine unevaluatedProperties with patternProperties.")


_RE2_HINT = "patterns run on RE2 (no backreferences or lookaround)."


def _has_key(value: Any, key: str) -> bool:
    return any(isinstance(item, dict) and key in item for item in json_nodes(value))


def data_validate(
    *,
    schema: dict[str, Any],
    data: Any,
    limits: Limits = DEFAULT_LIMITS,
    data_bytes: int | None = None,
) -> None:
    """Raise DataValidationError naming the first failing path, e.g.
    `items[3].price: expected number`; an empty schema accepts anything. Schemas saved
    before today's bounds still stop at the deadline and never fetch a reference.
    `data_bytes` is the data's size as JSON when the caller has it (data_check_sized)."""
    if not schema:
        return
    if data_bytes is None:
        data_bytes = len(json.dumps(data).encode("utf-8"))
    megabytes = data_bytes / (1 << 20)
    seconds = limits.schema_validation_seconds + limits.schema_validation_seconds_per_mb * megabytes
    try:
        error = schema_first_error(schema=schema, data=data, seconds=seconds)
    except PatternUnsupported as exc:  # a schema saved before patterns were checked
        raise SchemaInvalid(f"the template's schema {exc}; {_RE2_HINT}") from None
    except ValidationDeadline:
        raise LimitExceeded(
            f"Checking the data against the template's schema took more than {seconds:.1f} s "
            "of CPU (PDF_SCHEMA_VALIDATION_MS); simplify the schema's anyOf/oneOf or $ref "
            "recursion.",
            code=TemplateErrorCode.SCHEMA_TOO_SLOW,
        ) from None
    except Unresolvable as exc:
        refused = remote_ref_refused(exc)
        reason = str(refused) if refused else f"a $ref does not resolve ({exc})"[:200]
        raise DataValidationError(f"the template's schema cannot be used: {reason}.") from None
    except RecursionError:
        raise SchemaInvalid("the template's schema refers to itself without end.") from None
    if error is None:
        return
    # A `required` failure is reported on the object, so name the object's path with it.
    raise DataValidationError(f"{_path(error)}: {_reason(error)}")


def data_depth(value: Any, *, limit: int) -> int:
    """Nesting depth of JSON data, stopping (and returning limit + 1) once past `limit`."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    deepest = 0
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return limit + 1
        deepest = max(deepest, depth)
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return deepest


def data_unstorable_text(value: Any) -> str:
    """Why JSON data cannot be stored (PostgreSQL's jsonb refuses NUL, UTF-8 refuses lone
    surrogates), naming the first offending key or string; "" when it can be."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        texts: list[str] = []
        if isinstance(item, dict):
            texts = [key for key in item if isinstance(key, str)]
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            texts = [item]
        for text in texts:
            if "\x00" in text:
                return "contains a NUL character (\\u0000)"
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return "contains an unpaired UTF-16 surrogate"
    return ""


def size_check(name: str, text: str, limit: int) -> None:
    """Raise a 413 naming `name` if `text` is more than `limit` bytes of UTF-8."""
    _size_within(name, len(text.encode("utf-8")), limit)


def _size_within(name: str, size: int, limit: int) -> None:
    if size > limit:
        raise LimitExceeded(
            f"{name} is {size_text(size)}; the limit is {size_text(limit)}.",
            code=ErrorCode.TOO_LARGE,
            http_status=413,
        )


def data_check_sized(
    data: Any, *, limits: Limits, name: str = "data"
) -> tuple[dict[str, Any], int]:
    """`data` as a JSON object within the size and nesting limits, else an error; and its
    size in bytes as JSON (what data_validate's deadline scales with), from the one dump
    both need."""
    if not isinstance(data, dict):
        raise DataValidationError(f"{name} must be a JSON object.")
    dumped = json.dumps(data)  # ASCII (ensure_ascii): its length is its size in UTF-8
    size = len(dumped)
    _size_within(name, size, limits.max_data_bytes)
    # The two walks over the data only when the text just dumped allows a problem. It is
    # ASCII: a NUL in any key or string shows as \u0000 and a lone surrogate as \udXXX
    # (lower-case hex), so without either there is nothing unstorable. And data nests at
    # most one level deeper than it has objects and arrays, each of which shows a { or [.
    if ("\\u0000" in dumped or "\\ud" in dumped) and (problem := data_unstorable_text(data)):
        raise DataValidationError(f"{name} {problem}, which cannot be stored.")
    limit = limits.max_nesting_depth
    if dumped.count("{") + dumped.count("[") >= limit and data_depth(data, limit=limit) > limit:
        raise LimitExceeded(
            f"{name} nests deeper than {limits.max_nesting_depth} levels.",
            code=TemplateErrorCode.TOO_DEEP,
        )
    return data, size


def template_data_check(
    *, schema: dict[str, Any], data: Any, limits: Limits, name: str = "data"
) -> dict[str, Any]:
    """Everything data must satisfy to render a template: shape, limits, its schema."""
    checked, size = data_check_sized(data, limits=limits, name=name)
    data_validate(schema=schema, data=checked, limits=limits, data_bytes=size)
    return checked
