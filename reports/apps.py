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

        # A submit's cached template (reports.template_cache) goes stale on any change.
        from django.db.models.signals import post_delete, post_save

        from reports.models import ReportTemplate, ReportTemplateVersion
        from reports.template_cache import template_cache_invalidate

        for model in (ReportTemplate, ReportTemplateVersion):
            post_save.connect(
                template_cache_invalidate, sender=model, dispatch_uid=f"tc-save-{model.__name__}"
            )
            post_delete.connect(
                template_cache_invalidate, sender=model, dispatch_uid=f"tc-delete-{model.__name__}"
            )
