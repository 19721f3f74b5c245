"""Operator endpoints: liveness, readiness, Prometheus metrics."""

from django.urls import path

from jobs.ops import health, views

urlpatterns = [
    path("livez", health.livez, name="livez"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", views.metrics, name="metrics"),
]
