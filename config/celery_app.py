"""The Celery application of `celery -A config`: core's app, with the apps' tasks and our logs."""

import os
from typing import Any

from celery.signals import setup_logging

from config.startup import refuse_bad_configuration
from core.celery import app
from core.logs import configure

# core's app reads the settings lazily, at its first use: this still comes first.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

__all__ = ("app",)

# Tasks live in jobs/worker/tasks.py (a job's life), jobs/ops/tasks.py (beat's) and
# reports/tasks.py (previews).
app.autodiscover_tasks(lambda: ["jobs.worker", "jobs.ops", "schedules", "runs", "reports"])


@app.on_configure.connect
def _settings_or_one_line(**_: Any) -> None:
    """Celery reads the settings the first time it needs its configuration (the worker's
    options, a publish): a bad setting then exits naming it instead of a loader traceback."""
    from django.conf import settings

    with refuse_bad_configuration("celery"):
        settings.INSTALLED_APPS  # noqa: B018 - reading one setting loads them all


@setup_logging.connect
def _logging_from_django_settings(**_: Any) -> None:
    """Workers and beat log exactly as the web does (core/logs.py), instead of Celery's
    own format; connecting this signal also stops Celery from taking over the root logger."""
    from django.conf import settings

    configure(settings.LOGGING)
