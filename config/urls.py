"""Root URLconf: the API under /api/v1/, its schema and docs, the admin and the browser UI."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from config import health
from jobs import ops_views, pages

urlpatterns = [
    path("", pages.home, name="home"),
    path("admin/", admin.site.urls),
    path("livez", health.livez, name="livez"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", ops_views.metrics, name="metrics"),
    path("api/v1/", include("jobs.urls")),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/v1/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/v1/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
]
