"""App config for jobs: getting a report made."""

from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "jobs"
    verbose_name = "PDF jobs"
