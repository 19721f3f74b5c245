"""App config for workspaces: who works together, and in which role."""

from django.apps import AppConfig


class WorkspacesConfig(AppConfig):
    name = "workspaces"
    verbose_name = "Workspaces"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Workspaces' own quota limits are cached per process (workspaces.limits).
        from django.db.models.signals import post_delete, post_save

        from workspaces.limits import workspace_limits_invalidate
        from workspaces.models import WorkspaceQuota

        for signal in (post_save, post_delete):
            signal.connect(
                workspace_limits_invalidate, sender=WorkspaceQuota, dispatch_uid="quota-rows"
            )
