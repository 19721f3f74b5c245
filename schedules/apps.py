"""App config for schedules: a template rendered on a cron expression, then delivered."""

from django.apps import AppConfig


class SchedulesConfig(AppConfig):
    name = "schedules"
    verbose_name = "Schedules"

    def ready(self) -> None:
        from jobs.signals import job_mail_wanted, job_settled
        from schedules import hooks
        from schedules.access import access_lost_received
        from workspaces.access import access_lost

        # Schedules run as their creator: pause them when the creator loses access.
        access_lost.connect(access_lost_received, dispatch_uid="schedules_pause")
        # A schedule run waiting on a job delivers once the job is final.
        job_settled.connect(hooks.job_settled_received, dispatch_uid="schedules_deliver")
        # Its job mails nobody on its own: the schedule's deliveries are its outcome.
        job_mail_wanted.connect(hooks.job_mail_wanted_received, dispatch_uid="schedules_mail")
