"""App config for reports: what a report is and how it becomes a PDF."""

from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "reports"
    verbose_name = "Reports"

    def ready(self) -> None:
        # Django's template engine needs Django, which rendering may not import: it is
        # plugged into rendering's one engine registry here, in every process that sets
        # up the apps (web, workers, management commands).
        from rendering.engines import register_engine
        from reports.django_engine import DjangoTemplateEngine

        register_engine(DjangoTemplateEngine())
