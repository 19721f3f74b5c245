"""Celery tasks of the template library: previews and thumbnails on the previews queue."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings

from reports import preview_queue


@shared_task(
    name=preview_queue.PREVIEW_TASK,
    # At most once: a preview that kills its worker must not come back; the web gives up.
    acks_late=False,
    soft_time_limit=settings.PDF_PREVIEW_MAX_SECONDS + 5,
    time_limit=settings.PDF_PREVIEW_MAX_SECONDS + 10,
)
def render_preview(**kwargs: Any) -> None:
    preview_queue.preview_render_and_reply(**kwargs)
