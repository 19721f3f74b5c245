"""The workspace switcher, and the owners' pages of a workspace."""

from django.urls import path

from workspaces import pages, views

urlpatterns = [
    path("workspaces/switch", views.workspace_switch_post, name="workspace-switch"),
    path("audit/", pages.audit_log, name="audit-log"),
]
