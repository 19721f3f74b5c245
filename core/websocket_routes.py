"""WebSocket routes typed the way Channels' URLRouter takes them (django-stubs types
`path()` for views only, so a consumer's ASGI app goes through here)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias, cast

from django.urls import path

if TYPE_CHECKING:
    from channels.routing import URLRouter, _ExtendedURLPattern  # stub-only pattern type

    WebSocketRoutes: TypeAlias = list[_ExtendedURLPattern | URLRouter]


def websocket_path(route: str, app: Any) -> _ExtendedURLPattern:
    """`django.urls.path(route, Consumer.as_asgi())`, as the pattern Channels routes."""
    return cast("_ExtendedURLPattern", path(route, app))
