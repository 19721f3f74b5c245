"""App config for jobs: getting a report made."""

from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "jobs"
    verbose_name = "PDF jobs"

    def ready(self) -> None:
        # The operators' console lives in jobs/ops/, where admin autodiscovery does not look.
        from jobs.ops import admin  # noqa: F401
