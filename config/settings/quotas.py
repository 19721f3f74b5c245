"""Per-tenant quotas and rate limits, and the Redis keys their shared counters live under."""

from __future__ import annotations

from typing import Any

from config.env import env_int, env_str

# ---------------------------------------------------------------- tenant quotas
# Jobs one tenant may have queued or processing at once (checked atomically at submit).
PDF_MAX_JOBS_IN_FLIGHT = env_int("PDF_MAX_JOBS_IN_FLIGHT", 1000, minimum=1)
# What a 429 tells the client to wait before trying again.
PDF_QUOTA_RETRY_AFTER_SECONDS = env_int("PDF_QUOTA_RETRY_AFTER_SECONDS", 10, minimum=1)
# Usable (unrevoked, unexpired) API keys one tenant may hold; the next is a 409.
API_KEYS_MAX_PER_TENANT = env_int("API_KEYS_MAX_PER_TENANT", 20, minimum=1)
# Requests per tenant, whichever of its keys (or its browser session) sends them (DRF rate
# syntax: N/s, N/min, N/hour), counted in Redis.
API_RATE_SUBMIT = env_str("API_RATE_SUBMIT", "600/min") or "600/min"
API_RATE_PREVIEW = env_str("API_RATE_PREVIEW", "60/min") or "60/min"
API_RATE_TEMPLATE_WRITE = env_str("API_RATE_TEMPLATE_WRITE", "120/min") or "120/min"
API_RATE_STATUS_READ = env_str("API_RATE_STATUS_READ", "3000/min") or "3000/min"
# Gallery thumbnails a tenant may ask for (each may send a render to the previews queue).
API_RATE_THUMBNAIL = env_str("API_RATE_THUMBNAIL", "120/min") or "120/min"
# Live streams (SSE + WebSocket) open at once: per tenant across all web processes (Redis),
# and per web process (its channel-layer connections are the ceiling).
# The per-tenant cap is a tenth of a process's, so no two or three tenants fill a process.
STREAMS_MAX_PER_TENANT = env_int("STREAMS_MAX_PER_TENANT", 200, minimum=1)
STREAMS_MAX_PER_PROCESS = env_int("STREAMS_MAX_PER_PROCESS", 2000, minimum=1)

# Prefix of every per-tenant counter in Redis (rates, open streams, preview answers).
LIMITS_KEY_PREFIX = "limits"
# Only the in-process cache: the shared counters (rates, streams) keep to Redis themselves.
CACHES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
}
