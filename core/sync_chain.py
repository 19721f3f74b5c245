"""The innermost middleware, and sync-only on purpose: under Django's own ASGI handler the
whole middleware chain then runs in one worker thread per request instead of hopping between
the event loop and that thread for each MiddlewareMixin hook (22 hops for a bare GET /livez,
3 with this); the handler we serve (core/asgi_handler.py) builds the chain in sync mode
anyway. It also opens the request's scope of the generation caches (one MGET for all of
them)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase

from core.generation_cache import request_scope


class SyncChainMiddleware:
    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        with request_scope():
            return self.get_response(request)
