"""The owners' pages of a workspace: its audit log (search and export)."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from workspaces.api.serializers import AuditFilterSerializer
from workspaces.audit import AuditAction
from workspaces.audit_export import audit_csv, audit_row, changes_text
from workspaces.current import workspace_page_for
from workspaces.permissions import Action
from workspaces.selectors import audit_entries

PAGE_ROWS = 200


@never_cache
@login_required
def audit_log(request: HttpRequest) -> HttpResponse:
    """The log with the API's filters; `?format=csv|json` downloads what the filters match."""
    workspace = workspace_page_for(request, Action.AUDIT_VIEW)
    # An empty field of the search form means "any", not "blank".
    given = {name: value for name, value in request.GET.items() if value}
    filters = AuditFilterSerializer(data=given)
    valid = filters.is_valid()
    found: dict[str, Any] = filters.validated_data if valid else {"limit": PAGE_ROWS}
    entries = audit_entries(workspace=workspace, filters=found)
    kind = found.get("format")
    if kind:
        rows = [audit_row(entry) for entry in entries[: found["limit"]]]
        if kind == "csv":
            body, content_type = audit_csv(rows), "text/csv; charset=utf-8"
        else:
            body, content_type = json.dumps(rows, indent=1), "application/json"
        response = HttpResponse(body, content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="audit-{workspace.slug}.{kind}"'
        return response
    query = {name: value for name, value in given.items() if name != "format"}
    context = {
        "workspace": workspace,
        "entries": [
            (entry, changes_text(entry.action, entry.changes)) for entry in entries[:PAGE_ROWS]
        ],
        "actions": [action.value for action in AuditAction],
        "given": query,
        "errors": {} if valid else filters.errors,
        "query": "&".join(f"{name}={value}" for name, value in query.items()),
    }
    return render(request, "workspaces/audit_log.html", context, status=200 if valid else 400)
