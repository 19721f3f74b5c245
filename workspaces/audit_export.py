"""The audit log as rows: for the API's JSON, and the CSV export of the API and the page."""

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
