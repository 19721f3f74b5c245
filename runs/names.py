"""Download names of a run's PDFs: a pattern over each record's fields, made safe and
unique within the run ("invoice-{number}" -> invoice-1001.pdf, invoice-1001-2.pdf)."""

from __future__ import annotations

import re
from typing import Any

from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError
from rendering.options import parse_options

_FIELD = re.compile(r"\{([A-Za-z0-9_.\-]*)\}")
DEFAULT_PATTERN = "record-{index}"


_ABSENT = object()


def _walk(data: Any, path: str) -> Any:
    """The value at a dotted path ("customer.name", "items.0"), else _ABSENT."""
    value = data
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _ABSENT
    return value


def _lookup(data: Any, path: str) -> str:
    value = _walk(data, path)
    if value is _ABSENT or value is None or isinstance(value, dict | list):
        return ""
    return str(value)


def _present(data: Any, path: str) -> bool:
    return _walk(data, path) is not _ABSENT


def _pattern_error(message: str) -> ApplicationError:
    return ApplicationError(
        message, code=ErrorCode.INVALID_DATA, details={"field": "filename_pattern"}
    )


def pattern_check(pattern: str, records: list[Any]) -> None:
    """A 400 naming the problem when `pattern` names no field (every PDF would share one
    name) or a field none of the records has (every PDF would be record-N.pdf)."""
    if not pattern:
        return
    fields = _FIELD.findall(pattern)
    if not fields:
        raise _pattern_error(
            f"filename_pattern {pattern!r} names no field, so every PDF would get the same "
            "name; put a record's field in braces, e.g. 'invoice-{number}' or "
            "'letter-{index}'."
        )
    for name in fields:
        if name == "index" or any(_present(data, name) for data in records):
            continue
        known = sorted({key for data in records[:50] if isinstance(data, dict) for key in data})
        listed = ", ".join(known[:20]) or "none"
        raise _pattern_error(
            f"filename_pattern: {{{name}}} is not a field of the records (they have: "
            f"{listed}; {{index}} counts from 1)."
        )


class UniqueNames:
    """Hands out one safe name per record; a name seen before gets -2, -3, ..."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern or DEFAULT_PATTERN
        self.seen: set[str] = set()

    def next(self, *, index: int, data: Any) -> str:
        def field(found: re.Match[str]) -> str:
            name = found.group(1)
            # {index} counts from 1 like the rows people see; a field of that name wins.
            if name == "index" and not (isinstance(data, dict) and "index" in data):
                return str(index + 1)
            return _lookup(data, name)

        raw = _FIELD.sub(field, self.pattern).strip() or DEFAULT_PATTERN.format(index=index + 1)
        name = parse_options({"filename": raw}).filename  # no path, no control characters
        stem, candidate, count = name[:-4], name, 1
        while candidate.lower() in self.seen:
            count += 1
            candidate = f"{stem}-{count}.pdf"
        self.seen.add(candidate.lower())
        return candidate
