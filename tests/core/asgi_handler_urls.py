"""Views for tests/core/test_asgi_handler.py: each records the thread it ran in."""

from __future__ import annotations

import threading

from django.http import HttpRequest, HttpResponse
from django.urls import path

# What ran in which thread, in order: (what, thread ident).
SEEN: list[tuple[str, int]] = []
# Set by a test to make concurrent requests meet inside their views.
BARRIER: threading.Barrier | None = None


def sync_view(request: HttpRequest, word: str) -> HttpResponse:
    SEEN.append(("view", threading.get_ident()))
    return HttpResponse(f"sync {word} {request.resolver_match.url_name}")


async def async_view(request: HttpRequest) -> HttpResponse:
    SEEN.append(("async view", threading.get_ident()))
    return HttpResponse("async")


def meeting_view(request: HttpRequest) -> HttpResponse:
    SEEN.append(("view", threading.get_ident()))
    assert BARRIER is not None
    BARRIER.wait()
    return HttpResponse("met")


def failing_view(request: HttpRequest) -> HttpResponse:
    SEEN.append(("view", threading.get_ident()))
    raise RuntimeError("answered by process_exception")


urlpatterns = [
    path("sync/<str:word>", sync_view, name="sync-view"),
    path("async", async_view),
    path("failing", failing_view),
    path("meeting", meeting_view),
]
