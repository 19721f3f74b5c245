"""App config for reports: what a report is and how it becomes a PDF."""

from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "reports"
    verbose_name = "Reports"
