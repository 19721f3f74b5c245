"""Records of a run from an upload: a CSV with a header row, a JSON array or NDJSON. A row
that cannot be read becomes that record's error (naming the row); the others go on."""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError


@dataclass(frozen=True)
class Record:
    data: Any  # what the row holds; checked against the template's schema later
    where: str  # "row 3" (CSV, counting the header as row 1), "line 2", "records[4]"
    error: str = ""  # set when the row could not be read at all


def records_from_list(items: list[Any]) -> list[Record]:
    return [Record(data=item, where=f"records[{index}]") for index, item in enumerate(items)]


def records_from_upload(*, name: str, content: bytes, schema: dict[str, Any]) -> list[Record]:
    """The records of an uploaded file, by its name's extension (else by its first byte).
    Read one record at a time and never past RUN_MAX_RECORDS + 1: one too many is enough
    for run_create to refuse the run, and the rest of the file is never parsed."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ApplicationError(
            "The records file is not UTF-8 text.", code=ErrorCode.INVALID_DATA
        ) from None
    lowered = name.lower()
    stripped = text.lstrip()
    rows: Iterator[Record]
    if lowered.endswith(".csv"):
        rows = _csv_records(text, schema)
    elif lowered.endswith((".ndjson", ".jsonl")):
        rows = _ndjson_records(text)
    elif lowered.endswith(".json") or stripped.startswith("["):
        rows = _json_records(text)
    elif stripped.startswith("{"):
        rows = _ndjson_records(text)
    else:
        rows = _csv_records(text, schema)
    return list(itertools.islice(rows, settings.RUN_MAX_RECORDS + 1))


def _json_invalid(exc: json.JSONDecodeError) -> ApplicationError:
    return ApplicationError(
        f"The records file is not valid JSON (line {exc.lineno}, column {exc.colno}: "
        f"{exc.msg}); send a JSON array of objects, NDJSON or a CSV.",
        code=ErrorCode.INVALID_DATA,
    )


def _json_records(text: str) -> Iterator[Record]:
    """A JSON array, decoded one element at a time (raw_decode from each element's start),
    so stopping early leaves the rest of the array unparsed."""
    decoder = json.JSONDecoder()
    position = _skip_space(text, 0)
    if not text.startswith("[", position):
        if position == len(text):
            raise _json_invalid(json.JSONDecodeError("Expecting value", text, position))
        raise ApplicationError(
            "A JSON records file must hold an array of objects.", code=ErrorCode.INVALID_DATA
        )
    position = _skip_space(text, position + 1)
    if text.startswith("]", position):
        return
    index = 0
    while True:
        try:
            item, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise _json_invalid(exc) from None
        yield Record(data=item, where=f"records[{index}]")
        index += 1
        position = _skip_space(text, position)
        if text.startswith(",", position):
            position = _skip_space(text, position + 1)
            continue
        if text.startswith("]", position):
            break
        raise _json_invalid(json.JSONDecodeError("Expecting ',' delimiter", text, position))
    if _skip_space(text, position + 1) != len(text):
        raise _json_invalid(json.JSONDecodeError("Extra data", text, position + 1))


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\n\r":
        position += 1
    return position


def _ndjson_records(text: str) -> Iterator[Record]:
    for number, line in enumerate(io.StringIO(text, newline=None), start=1):
        if not line.strip():
            continue
        try:
            yield Record(data=json.loads(line), where=f"line {number}")
        except json.JSONDecodeError as exc:
            yield Record(None, f"line {number}", f"not valid JSON ({exc.msg})")


def _csv_records(text: str, schema: dict[str, Any]) -> Iterator[Record]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        raise ApplicationError(f"The CSV header cannot be read: {exc}.") from None
    header = [name.strip() for name in header]
    if not any(header):
        raise ApplicationError("The CSV's first row must name the fields (a header row).")
    types = _property_types(schema)
    while True:
        row_number = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            yield Record(None, f"row {row_number}", f"cannot be read ({exc})")
            continue
        if not any(cell.strip() for cell in row):
            continue  # a blank line is no record
        where = f"row {row_number}"
        if len(row) != len(header):
            problem = f"has {len(row)} fields; the header has {len(header)}"
            yield Record(None, where, problem)
            continue
        yield Record(_typed_row(dict(zip(header, row, strict=True)), types), where)


def _property_types(schema: dict[str, Any]) -> dict[str, str]:
    """The declared type of each top-level property, so "12.5" becomes a number where the
    schema wants one (CSV cells are all text)."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return {}
    types = {}
    for name, spec in properties.items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        if isinstance(kind, str):
            types[name] = kind
    return types


def _typed_row(row: dict[str, str], types: dict[str, str]) -> dict[str, Any]:
    typed: dict[str, Any] = {}
    for name, cell in row.items():
        typed[name] = _typed(cell, types.get(name))
    return typed


def _typed(cell: str, kind: str | None) -> Any:
    """The cell as the schema's type when it reads as one; else the text, so the schema
    check names the field and what it expected."""
    value = cell.strip()
    try:
        if kind == "integer":
            return int(value)
        if kind == "number":
            number = float(value)
            return int(number) if number.is_integer() and "." not in value else number
    except ValueError:
        return cell
    if kind == "boolean" and value.lower() in ("true", "false", "1", "0", "yes", "no"):
        return value.lower() in ("true", "1", "yes")
    if kind in ("object", "array") and value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return cell
    return cell
