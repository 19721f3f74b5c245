"""The audit log as rows: for the API's JSON, the CSV export of the API and the page, and
the page's own reading of an entry's changes."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from typing import Any

from core.spreadsheet import spreadsheet_cell
from workspaces.models import AuditEntry

COLUMNS = ("at", "actor", "action", "target_type", "target_id", "target", "changes")


def audit_row(entry: AuditEntry) -> dict[str, Any]:
    return {
        "at": entry.at.isoformat(),
        "actor": entry.actor,
        "action": entry.action,
        "target_type": entry.target_type,
        "target_id": entry.target_id,
        "target": entry.target,
        "changes": entry.changes,
    }


def audit_csv(rows: Iterable[dict[str, Any]]) -> str:
    """One line per entry under a header; `changes` as compact JSON."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for row in rows:
        cells = {**row, "changes": json.dumps(row.get("changes") or {}, sort_keys=True)}
        writer.writerow([spreadsheet_cell(cells.get(column, "")) for column in COLUMNS])
    return out.getvalue()


# Keys whose two-item list is a plain list, not [before, after]: the fields a change named,
# and a schedule's deliveries except in schedule.changed (where they are before and after).
_PLAIN_LISTS = {"fields"}


def _value_text(value: Any) -> str:
    if value is None or value == [] or value == {}:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(_value_text(item) for item in value)
    if isinstance(value, dict):
        inner = ", ".join(f"{key} {_value_text(item)}" for key, item in value.items())
        return f"({inner})"
    return str(value)


def changes_text(action: str, changes: dict[str, Any] | None) -> list[str]:
    """An entry's changes as a person reads them, one line a key: `role: viewer → editor`,
    `fields: css, html`, `owner: fiona` (not a Python dict's repr)."""
    lines = []
    for key, value in (changes or {}).items():
        pair = (
            isinstance(value, list)
            and len(value) == 2
            and key not in _PLAIN_LISTS
            and not (key == "deliveries" and action != "schedule.changed")
        )
        text = f"{_value_text(value[0])} → {_value_text(value[1])}" if pair else _value_text(value)
        lines.append(f"{key}: {text}")
    return lines
