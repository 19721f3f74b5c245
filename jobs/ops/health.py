"""Health checks for load balancers and orchestrators: liveness and readiness."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from jobs.readiness import results_json, run_checks


def livez(request: HttpRequest) -> JsonResponse:
    """The process answers; touches nothing else (also the benchmarks' bare baseline)."""
    return JsonResponse({"status": "ok"})


def readyz(request: HttpRequest) -> JsonResponse:
    """Each check by name (database, broker, redis, storage, renderer); 503 when one fails."""
    body = results_json(run_checks())
    return JsonResponse(body, status=200 if body["status"] == "ok" else 503)
