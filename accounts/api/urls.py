"""URLs of the accounts API, mounted under /api/v1/ (namespace "api") by config.urls."""

from django.urls import path

from accounts.api import views

urlpatterns = [
    path(
        "signing-certificates",
        views.SigningCertificateCreateApi.as_view(),
        name="signing-certificate-create",
    ),
    path(
        "signing-certificates/<str:certificate_id>",
        views.SigningCertificateRevokeApi.as_view(),
        name="signing-certificate-revoke",
    ),
    path("workspace/sso", views.WorkspaceSsoApi.as_view(), name="workspace-sso"),
]
