"""The Celery application, configured from Django settings with the CELERY_ prefix."""

import os
from typing import Any

from celery import Celery
from celery.signals import setup_logging

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("pdfreports")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Tasks live in jobs/worker/tasks.py and reports/tasks.py (previews).
app.autodiscover_tasks(lambda: ["jobs.worker", "reports"])


@setup_logging.connect
def _logging_from_django_settings(**_: Any) -> None:
    """Workers and beat log exactly as the web does (core/logs.py), instead of Celery's
    own format; connecting this signal also stops Celery from taking over the root logger."""
    from django.conf import settings

    from core.logs import configure

    configure(settings.LOGGING)
