"""The ops dashboard (staff only): the page, and the JSON it refreshes itself from."""

from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from jobs.ops.dashboard import DEFAULT_RANGE, RANGES, dashboard_snapshot

REFRESH_SECONDS = 10


def _refresh_seconds(request: HttpRequest) -> int:
    """`?refresh=N` (2 to 300 s) for a wall screen or a test; 10 s otherwise."""
    raw = request.GET.get("refresh", "")
    return min(300, max(2, int(raw))) if raw.isdigit() else REFRESH_SECONDS


@require_GET
@staff_member_required
def ops_dashboard(request: HttpRequest) -> HttpResponse:
    range_key = request.GET.get("range", DEFAULT_RANGE)
    return render(
        request,
        "ops/dashboard.html",
        {
            "snapshot": dashboard_snapshot(range_key),
            "ranges": RANGES.values(),
            "refresh_seconds": _refresh_seconds(request),
        },
    )


@require_GET
@staff_member_required
def ops_dashboard_data(request: HttpRequest) -> JsonResponse:
    return JsonResponse(dashboard_snapshot(request.GET.get("range", DEFAULT_RANGE)))
