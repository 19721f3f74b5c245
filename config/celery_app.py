"""The Celery application of `celery -A config`: core's app, with the apps' tasks and our logs."""

import os
from typing import Any

from celery.signals import setup_logging

from core.celery import app
from core.logs import configure

# core's app reads the settings lazily, at its first use: this still comes first.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

__all__ = ("app",)

# Tasks live in jobs/worker/tasks.py (a job's life), jobs/ops/tasks.py (beat's) and
# reports/tasks.py (previews).
app.autodiscover_tasks(lambda: ["jobs.worker", "jobs.ops", "reports"])


@setup_logging.connect
def _logging_from_django_settings(**_: Any) -> None:
    """Workers and beat log exactly as the web does (core/logs.py), instead of Celery's
    own format; connecting this signal also stops Celery from taking over the root logger."""
    from django.conf import settings

    configure(settings.LOGGING)
