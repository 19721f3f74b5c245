"""App config for jobs: getting a report made."""

from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "jobs"
    verbose_name = "PDF jobs"

    def ready(self) -> None:
        from jobs.worker import signals  # noqa: F401 - connects the Celery signal handlers
