"""WebSocket URL patterns of the jobs app, wired by config.asgi."""

from django.urls import path

from jobs.live.consumers import JobEventsConsumer, OwnerJobsConsumer

websocket_urlpatterns = [
    path("ws/jobs/", OwnerJobsConsumer.as_asgi()),
    path("ws/jobs/<str:job_id>/", JobEventsConsumer.as_asgi()),
]
