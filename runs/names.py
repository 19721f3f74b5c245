"""Download names of a run's PDFs: a pattern over each record's fields, made safe and
unique within the run ("invoice-{number}" -> invoice-1001.pdf, invoice-1001-2.pdf)."""

from __future__ import annotations

import re
from typing import Any

from rendering.options import parse_options

_FIELD = re.compile(r"\{([A-Za-z0-9_.\-]*)\}")
DEFAULT_PATTERN = "record-{index}"


def _lookup(data: Any, path: str) -> str:
    value = data
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return ""
    return "" if isinstance(value, dict | list) or value is None else str(value)


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
