"""Root URLconf: the API under /api/v1/, its schema and docs, the admin and the browser UI."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from jobs import pages

urlpatterns = [
    path("", pages.home, name="home"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("jobs.urls")),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/v1/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/v1/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
]
