"""The Celery application, configured from Django settings with the CELERY_ prefix."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("pdfreports")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Tasks live in jobs/worker/tasks.py, not in an app's top-level tasks module.
app.autodiscover_tasks(lambda: ["jobs.worker"])
