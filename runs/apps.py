"""App config for runs: a template rendered once per record of a CSV, JSON or NDJSON upload."""

from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "runs"
    verbose_name = "Bulk runs"

    def ready(self) -> None:
        from jobs.signals import job_mail_wanted, job_settled
        from runs import progress

        # A run's counters follow its jobs' final states; its records get no mail each.
        job_settled.connect(progress.job_settled_received, dispatch_uid="runs_recount")
        job_mail_wanted.connect(progress.job_mail_wanted_received, dispatch_uid="runs_mail")
