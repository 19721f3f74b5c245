"""WebSocket URL patterns of the jobs app, wired by config.asgi."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.websocket_routes import websocket_path
from jobs.live.consumers import JobEventsConsumer, OwnerJobsConsumer

if TYPE_CHECKING:
    from core.websocket_routes import WebSocketRoutes

websocket_urlpatterns: WebSocketRoutes = [
    websocket_path("ws/jobs/", OwnerJobsConsumer.as_asgi()),
    websocket_path("ws/jobs/<str:job_id>/", JobEventsConsumer.as_asgi()),
]
