"""Health checks for load balancers and orchestrators: liveness and readiness."""

from __future__ import annotations

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse


def livez(request: HttpRequest) -> JsonResponse:
    """The process answers; touches nothing else (also the benchmarks' bare baseline)."""
    return JsonResponse({"status": "ok"})


def readyz(request: HttpRequest) -> JsonResponse:
    """The database and Redis answer; 503 naming what does not."""
    problems = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:
        problems["database"] = type(exc).__name__
    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        problems["redis"] = type(exc).__name__
    finally:
        client.close()
    if problems:
        return JsonResponse({"status": "unavailable", "problems": problems}, status=503)
    return JsonResponse({"status": "ok"})
