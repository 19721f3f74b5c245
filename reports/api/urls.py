"""URLs of the template API, mounted under /api/v1/ (namespace "api") by config.urls."""

from django.urls import path

from reports.api import views

urlpatterns = [
    path("templates", views.TemplateListCreateApi.as_view(), name="template-list"),
    path("templates/<slug:slug>", views.TemplateDetailApi.as_view(), name="template-detail"),
    path(
        "templates/<slug:slug>/restore",
        views.TemplateRestoreApi.as_view(),
        name="template-restore",
    ),
    path(
        "templates/<slug:slug>/publish",
        views.TemplatePublishApi.as_view(),
        name="template-publish",
    ),
    path(
        "templates/<slug:slug>/rollback",
        views.TemplateRollbackApi.as_view(),
        name="template-rollback",
    ),
    path("templates/<slug:slug>/diff", views.TemplateDiffApi.as_view(), name="template-diff"),
    path(
        "templates/<slug:slug>/diff/<str:token>.png",
        views.TemplateDiffImageApi.as_view(),
        name="template-diff-image",
    ),
    path(
        "templates/<slug:slug>/versions",
        views.TemplateVersionListApi.as_view(),
        name="template-versions",
    ),
    path(
        "templates/<slug:slug>/preview",
        views.TemplatePreviewApi.as_view(),
        name="template-preview",
    ),
]
