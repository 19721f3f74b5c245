"""Root URLconf: the API under /api/v1/, its schema and docs, the admin and the browser UI."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from config import health
from jobs import ops_views
from jobs.pages import api_keys, dashboard, job_page, new_report

urlpatterns = [
    path("", dashboard.dashboard, name="home"),
    path(
        "login/",
        auth_views.LoginView.as_view(
            template_name="auth/login.html", redirect_authenticated_user=True
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("reports/new/", new_report.template_gallery, name="template-gallery"),
    path("reports/new/<slug:slug>/", new_report.report_new, name="report-new"),
    path(
        "templates/<slug:slug>/thumbnail.png",
        new_report.template_thumbnail_png,
        name="template-thumbnail",
    ),
    path("jobs/<uuid:job_id>/", job_page.job_page, name="job-page"),
    path("jobs/<uuid:job_id>/retry", job_page.job_retry, name="job-retry"),
    path("jobs/<uuid:job_id>/cancel", job_page.job_cancel, name="job-cancel-page"),
    path("jobs/<uuid:job_id>/download", job_page.job_download, name="job-download"),
    path("keys/", api_keys.api_keys, name="api-keys"),
    path("keys/<int:key_id>/revoke", api_keys.api_key_revoke_view, name="api-key-revoke"),
    path("admin/", admin.site.urls),
    path("livez", health.livez, name="livez"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", ops_views.metrics, name="metrics"),
    path("api/v1/", include("jobs.urls")),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/v1/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/v1/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
]

handler404 = "config.http_errors.not_found"
handler500 = "config.http_errors.server_error"
