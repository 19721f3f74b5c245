"""Operator endpoints: liveness, readiness, Prometheus metrics, the ops dashboard."""

from django.urls import path

from jobs.ops import dashboard_views, health, views

urlpatterns = [
    path("livez", health.livez, name="livez"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", views.metrics, name="metrics"),
    path("ops/", dashboard_views.ops_dashboard, name="ops-dashboard"),
    path("ops/data.json", dashboard_views.ops_dashboard_data, name="ops-dashboard-data"),
]
