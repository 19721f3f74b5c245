"""The one place settings become a rendering `Limits` value."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

from rendering.limits import Limits

# The configured limits, built once per process (a submit read 27 settings for them);
# None again whenever a setting changes (override_settings, pytest-django's `settings`).
_configured: Limits | None = None


@receiver(setting_changed)
def _settings_changed(**_: Any) -> None:
    global _configured
    _configured = None


def limits_from_settings(*, max_render_seconds: float | None = None) -> Limits:
    """The configured limits; `max_render_seconds` overrides the layout budget (previews)."""
    global _configured
    limits = _configured
    if limits is None:
        limits = _configured = _limits_read()
    if max_render_seconds:
        return replace(limits, max_render_seconds=max_render_seconds)
    return limits


def _limits_read() -> Limits:
    return Limits(
        max_template_bytes=settings.PDF_MAX_TEMPLATE_BYTES,
        max_data_bytes=settings.PDF_MAX_DATA_BYTES,
        max_html_bytes=settings.PDF_MAX_HTML_BYTES,
        max_pages=settings.PDF_MAX_PAGES,
        max_nesting_depth=settings.PDF_MAX_NESTING_DEPTH,
        max_render_seconds=settings.PDF_MAX_RENDER_SECONDS,
        template_timeout_ms=settings.PDF_TEMPLATE_TIMEOUT_MS,
        template_max_memory_mb=settings.PDF_TEMPLATE_MAX_MEMORY_MB,
        max_charts=settings.PDF_MAX_CHARTS,
        schema_max_bytes=settings.PDF_SCHEMA_MAX_BYTES,
        schema_max_nodes=settings.PDF_SCHEMA_MAX_NODES,
        schema_max_depth=settings.PDF_SCHEMA_MAX_DEPTH,
        schema_max_expansion=settings.PDF_SCHEMA_MAX_EXPANSION,
        schema_validation_seconds=settings.PDF_SCHEMA_VALIDATION_MS / 1000,
        schema_validation_seconds_per_mb=settings.PDF_SCHEMA_VALIDATION_MS_PER_MB / 1000,
        chart_cache_bytes=settings.PDF_CHART_CACHE_BYTES,
        chart_max_side_px=settings.PDF_CHART_MAX_SIDE_PX,
        chart_max_rows=settings.PDF_CHART_MAX_ROWS,
        remote_allowed_hosts=frozenset(h.lower() for h in settings.PDF_REMOTE_ALLOWED_HOSTS),
        chromium_path=settings.CHROMIUM_PATH,
        chromium_max_jobs=settings.PDF_CHROMIUM_MAX_JOBS,
        chromium_process_memory_mb=settings.CHROMIUM_PROCESS_MEMORY_MB,
        chromium_run_as=settings.CHROMIUM_RUN_AS,
        chromium_sandbox=settings.CHROMIUM_SANDBOX,
        office_path=settings.OFFICE_PATH,
        office_profile_dir=settings.OFFICE_PROFILE_DIR,
        max_office_bytes=settings.PDF_MAX_OFFICE_BYTES,
    )
