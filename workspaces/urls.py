"""The workspace switcher's and the single sign-on page's URLs."""

from django.urls import path

from workspaces import views

urlpatterns = [
    path("workspaces/switch", views.workspace_switch_post, name="workspace-switch"),
    path("workspace/sso/", views.workspace_sso_page, name="workspace-sso-page"),
]
