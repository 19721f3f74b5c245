"""What a template takes as a run's CSV: its columns (the schema's top-level properties,
required ones marked) and a sample CSV of one row from its sample data."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from core.spreadsheet import spreadsheet_cell


@dataclass(frozen=True)
class Column:
    name: str
    required: bool
    kind: str  # the schema's type, "" when it gives none
    flat: bool  # a plain cell; False: a JSON object or array written in the cell


def template_columns(*, schema: dict[str, Any], sample_data: Any) -> list[Column]:
    """The schema's top-level properties in its order (else the sample data's keys)."""
    found = schema.get("properties") if isinstance(schema, dict) else None
    required = set(schema.get("required") or []) if isinstance(schema, dict) else set()
    properties: dict[str, Any] = found if isinstance(found, dict) else {}
    if properties:
        names = list(properties)
    else:
        names = list(sample_data) if isinstance(sample_data, dict) else []
    columns = []
    for name in names:
        given = properties.get(name)
        spec: dict[str, Any] = given if isinstance(given, dict) else {}
        kind = str(spec["type"]) if isinstance(spec.get("type"), str) else ""
        value = sample_data.get(name) if isinstance(sample_data, dict) else None
        flat = kind not in ("object", "array") and not isinstance(value, dict | list)
        columns.append(Column(name, name in required, kind, flat))
    return columns


def sample_csv(*, schema: dict[str, Any], sample_data: Any) -> str:
    """A header row of the columns and one row of the sample data (nested values as JSON,
    which a run reads back where the schema types the column an object or array)."""
    columns = template_columns(schema=schema, sample_data=sample_data)
    data = sample_data if isinstance(sample_data, dict) else {}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([c.name for c in columns])
    row = []
    for column in columns:
        value = data.get(column.name, "")
        if isinstance(value, dict | list):
            value = json.dumps(value, ensure_ascii=False)
        row.append(spreadsheet_cell(value))
    writer.writerow(row)
    return out.getvalue()
