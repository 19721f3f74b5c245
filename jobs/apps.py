"""App config for jobs: getting a report made."""

from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "jobs"
    verbose_name = "PDF jobs"

    def ready(self) -> None:
        from jobs.schedules import hooks
        from jobs.schedules.access import access_lost_received
        from jobs.signals import job_settled
        from jobs.worker import signals  # noqa: F401 - connects the Celery signal handlers
        from workspaces.access import access_lost

        # Schedules run as their creator: pause them when the creator loses access.
        access_lost.connect(access_lost_received, dispatch_uid="schedules_pause")
        # A schedule's deliveries follow its jobs' final states.
        job_settled.connect(hooks.job_settled_received, dispatch_uid="schedules_deliver")
