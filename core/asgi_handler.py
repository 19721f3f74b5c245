"""Django's ASGI handler, serving a sync view and the whole middleware chain in one thread hop.

Django's own ASGIHandler builds its middleware chain in async mode. Ours is sync-only at its
innermost (`core.sync_chain`), so Django runs the chain in the request's worker thread but
then hops back to the event loop for `_get_response_async`, which hops into that thread
again for each sync `process_view` hook, for the view and for any exception hook: a submit
made seven executor hops. Here the chain is built as under WSGI (every middleware in its sync
mode, the view hooks and the view called directly) and entered with one `sync_to_async`, in
the same per-request thread Django's thread-sensitive hops use, so connections and the ORM
stay in the view's thread. The middleware instances, their order and every hook are
Django's; only the thread switches between them go.

An async view (the SSE streams) is still served as before: at the bottom of the chain, after
URL resolution, it goes through Django's `_get_response_async` on the event loop, with the
view hooks adapted as Django adapts them in async mode."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync, iscoroutinefunction, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.http import HttpRequest, HttpResponseBase
from django.urls import ResolverMatch

# Where the bottom of the chain leaves its URL match for `resolve_request`, so a sync view's
# path is resolved once.
_MATCH_ATTRIBUTE = "_one_hop_resolver_match"


class OneHopASGIHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        # The chain in sync mode, as Django builds it for WSGI. Every middleware we list is
        # sync-capable, so none is adapted; one that is async-only would be wrapped in
        # async_to_sync by Django, which still works.
        super().load_middleware(is_async=False)
        # Async views: Django's async bottom, over the same middleware instances, with their
        # hooks adapted as load_middleware(is_async=True) adapts them.
        async_bottom = BaseHandler()
        async_bottom._view_middleware = [
            self.adapt_method_mode(True, method) for method in self._view_middleware
        ]
        async_bottom._template_response_middleware = [
            self.adapt_method_mode(True, method) for method in self._template_response_middleware
        ]
        # Django keeps the exception hooks sync in both modes.
        async_bottom._exception_middleware = self._exception_middleware
        self._async_bottom = async_bottom
        # Entered from the event loop: one hop into the request's thread (thread-sensitive,
        # so the per-request ThreadSensitiveContext of ASGIHandler.__call__ picks it).
        self._middleware_chain = sync_to_async(self._middleware_chain, thread_sensitive=True)

    def resolve_request(self, request: HttpRequest) -> ResolverMatch:
        match: ResolverMatch | None = request.__dict__.pop(_MATCH_ATTRIBUTE, None)
        if match is not None:
            return match
        return super().resolve_request(request)  # type: ignore[no-any-return]

    def _get_response(self, request: HttpRequest) -> HttpResponseBase:
        match = super().resolve_request(request)
        if iscoroutinefunction(match.func):
            # As Django's async chain would: resolved again there, on the event loop.
            response: HttpResponseBase = async_to_sync(self._async_bottom._get_response_async)(
                request
            )
            return response
        request.__dict__[_MATCH_ATTRIBUTE] = match
        try:
            return super()._get_response(request)  # type: ignore[no-any-return]
        finally:
            request.__dict__.pop(_MATCH_ATTRIBUTE, None)


def application() -> Any:
    """Django set up (as `get_asgi_application` does) and this handler."""
    import django

    django.setup(set_prefix=False)
    return OneHopASGIHandler()
