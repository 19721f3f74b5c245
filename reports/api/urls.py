"""URLs of the template API, mounted under /api/v1/ (namespace "api") by config.urls."""

from django.urls import URLPattern, path
from rest_framework.views import APIView

from reports.api import views


def _operation(operation: str, view: type[APIView]) -> URLPattern:
    """A template's own operation: templates/<slug>/<operation>, named template-<operation>."""
    return path(f"templates/<slug:slug>/{operation}", view.as_view(), name=f"template-{operation}")


urlpatterns = [
    path("templates", views.TemplateListCreateApi.as_view(), name="template-list"),
    path("templates/<slug:slug>", views.TemplateDetailApi.as_view(), name="template-detail"),
    _operation("restore", views.TemplateRestoreApi),
    _operation("publish", views.TemplatePublishApi),
    _operation("rollback", views.TemplateRollbackApi),
    _operation("diff", views.TemplateDiffApi),
    path(
        "templates/<slug:slug>/diff/<str:token>.png",
        views.TemplateDiffImageApi.as_view(),
        name="template-diff-image",
    ),
    _operation("versions", views.TemplateVersionListApi),
    _operation("preview", views.TemplatePreviewApi),
]
