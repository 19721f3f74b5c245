"""The workspace switcher's URL."""

from django.urls import path

from workspaces import views

urlpatterns = [
    path("workspaces/switch", views.workspace_switch_post, name="workspace-switch"),
]
