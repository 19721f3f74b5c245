"""Operator endpoints: Prometheus metrics (health checks are in `health`)."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from jobs.ops.metrics import metrics_text


def metrics(request: HttpRequest) -> HttpResponse:
    """Open when METRICS_TOKEN is empty; otherwise `Authorization: Bearer <token>`."""
    token = settings.METRICS_TOKEN
    if token:
        given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(given, token):
            return HttpResponse(
                "metrics need Authorization: Bearer <METRICS_TOKEN>\n",
                status=401,
                content_type="text/plain",
            )
    return HttpResponse(metrics_text(), content_type="text/plain; version=0.0.4")
