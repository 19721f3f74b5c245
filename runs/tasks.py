"""The runs' task: build a finished run's combined PDF. Thin: it calls the service."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from runs.combined import run_combined_build
from runs.dispatch import RUN_COMBINE_TASK


@shared_task(
    name=RUN_COMBINE_TASK,
    ignore_result=True,
    soft_time_limit=settings.RUN_COMBINED_BUILD_SECONDS - 30,
    time_limit=settings.RUN_COMBINED_BUILD_SECONDS,
)
def build_run_combined(run_id: str) -> str:
    return run_combined_build(run_id=run_id)
