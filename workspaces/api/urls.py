"""URLs of the workspaces API, mounted under /api/v1/ (namespace "api") by config.urls."""

from django.urls import path

from workspaces.api import views

urlpatterns = [
    path("audit-log", views.AuditLogApi.as_view(), name="audit-log"),
    path("workspaces", views.WorkspaceCreateApi.as_view(), name="workspace-create"),
]
