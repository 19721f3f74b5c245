"""App config for jobs: getting a report made."""

from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "jobs"
    verbose_name = "PDF jobs"

    def ready(self) -> None:
        # The operators' console lives in jobs/ops/, where admin autodiscovery does not look.
        from jobs.ops import admin  # noqa: F401
        from jobs.schedules.access import access_lost_received
        from jobs.worker import signals  # noqa: F401 - connects the Celery signal handlers
        from workspaces.access import access_lost

        # Schedules run as their creator: pause them when the creator loses access.
        access_lost.connect(access_lost_received, dispatch_uid="schedules_pause")
