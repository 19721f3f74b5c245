"""App config for workspaces: who works together, and in which role."""

from django.apps import AppConfig


class WorkspacesConfig(AppConfig):
    name = "workspaces"
    verbose_name = "Workspaces"
    default_auto_field = "django.db.models.BigAutoField"
