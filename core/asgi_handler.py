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
view hooks adapted as Django adapts them in async mode.

Each request's thread-sensitive work still runs in a thread of its own, one request at a
time, but the threads are reused: Django's handler gives every request a new single-thread
executor, which asgiref shuts down at the end by joining it from yet another new thread (two
thread starts a request). Here a request takes an idle executor (asgiref's
`ThreadSensitiveContext(executor=...)`, which leaves it running on exit), and gives it back
once everything queued on it has run, so a request that left work behind (a client that went
away mid-view) does not hold up the next. Threads are reused across requests as under WSGI,
which Django is written for; per-request state is in contextvars or closed by the
request_finished signal either way."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, cast

from asgiref.sync import ThreadSensitiveContext, async_to_sync, iscoroutinefunction, sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.http import HttpRequest, HttpResponseBase
from django.urls import ResolverMatch, set_script_prefix

from core import url_matches

# Where the bottom of the chain leaves its URL match for `resolve_request`, so a sync view's
# path is resolved once.
_MATCH_ATTRIBUTE = "_one_hop_resolver_match"
# Where `handle` leaves the scope for the chain's hop to send request_started with.
_START_ATTRIBUTE = "_one_hop_request_started"
# An ASGI connection's two callables, as Django's handler takes them.
_Receive = Callable[[], Awaitable[Mapping[str, Any]]]
_Send = Callable[[Mapping[str, Any]], Awaitable[None]]


# Idle request threads kept for the next requests; past this many (after a burst of
# concurrent requests or streams) a returned one is let go.
IDLE_THREADS_KEPT = 16


class RequestThread(ThreadPoolExecutor):
    """One worker thread that knows how much work it has been given and not yet finished."""

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="request")
        self._count_lock = threading.Lock()
        self._pending = 0
        self._when_idle: Callable[[RequestThread], None] | None = None

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        with self._count_lock:
            self._pending += 1
        try:
            future = super().submit(fn, *args, **kwargs)
        except BaseException:
            self._finished(None)
            raise
        future.add_done_callback(self._finished)
        return future

    def _finished(self, _: Future[Any] | None) -> None:
        with self._count_lock:
            self._pending -= 1
            callback = self._when_idle if self._pending == 0 else None
            if callback is not None:
                self._when_idle = None
        if callback is not None:
            callback(self)

    def call_when_idle(self, callback: Callable[[RequestThread], None]) -> None:
        """`callback(self)` now if nothing is queued or running, else once that has run."""
        with self._count_lock:
            if self._pending:
                self._when_idle = callback
                return
        callback(self)


class RequestThreads:
    """Request threads, reused when idle."""

    def __init__(self, kept: int = IDLE_THREADS_KEPT) -> None:
        self.kept = kept
        self._idle: list[RequestThread] = []
        self._lock = threading.Lock()

    def take(self) -> RequestThread:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return RequestThread()

    def give_back(self, executor: RequestThread) -> None:
        # Offered again only once whatever the request queued on it has run.
        executor.call_when_idle(self._idle_again)

    def _idle_again(self, executor: RequestThread) -> None:
        with self._lock:
            if len(self._idle) < self.kept:
                self._idle.append(executor)
                return
        executor.shutdown(wait=False)  # its thread ends once idle, nobody waits for it

    def idle_count(self) -> int:
        with self._lock:
            return len(self._idle)


class OneHopASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        self.request_threads = RequestThreads()

    async def __call__(self, scope: dict[str, Any], receive: _Receive, send: _Send) -> None:
        # As Django's ASGIHandler.__call__, with a reused request thread.
        if scope["type"] != "http":
            raise ValueError(
                "Django can only handle ASGI/HTTP connections, not {}.".format(scope["type"])
            )
        executor = self.request_threads.take()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            self.request_threads.give_back(executor)

    def load_middleware(self, is_async: bool = False) -> None:
        # The chain in sync mode, as Django builds it for WSGI. Every middleware we list is
        # sync-capable, so none is adapted; one that is async-only would be wrapped in
        # async_to_sync by Django, which still works.
        super().load_middleware(is_async=False)
        # Django's private lists and bottoms are not in its type stubs.
        this: Any = self
        # Async views: Django's async bottom, over the same middleware instances, with their
        # hooks adapted as load_middleware(is_async=True) adapts them.
        async_bottom: Any = BaseHandler()
        async_bottom._view_middleware = [
            self.adapt_method_mode(True, method) for method in this._view_middleware
        ]
        async_bottom._template_response_middleware = [
            self.adapt_method_mode(True, method) for method in this._template_response_middleware
        ]
        # Django keeps the exception hooks sync in both modes.
        async_bottom._exception_middleware = this._exception_middleware
        self._async_bottom = async_bottom
        # Entered from the event loop: one hop into the request's thread (thread-sensitive,
        # so the request's ThreadSensitiveContext picks it), where request_started's
        # receivers run first when `handle` left them to it.
        chain = this._middleware_chain
        handler_class = self.__class__

        def started_then_chain(request: HttpRequest) -> HttpResponseBase:
            scope = request.__dict__.pop(_START_ATTRIBUTE, None)
            if scope is not None:
                signals.request_started.send(sender=handler_class, scope=scope)
            response: HttpResponseBase = chain(request)
            return response

        this._middleware_chain = sync_to_async(started_then_chain, thread_sensitive=True)

    async def handle(self, scope: dict[str, Any], receive: _Receive, send: _Send) -> None:
        """Django's ASGIHandler.handle, but request_started's receivers, when all are sync,
        run in the chain's own hop into the request thread, just before the middleware
        (Django's `asend` runs them there too, in a hop of their own). They then run after
        the request object is built rather than before: building it reads only the scope
        and the body. With an async receiver connected, or a request Django refuses to
        build (a 400 or 413), the signal goes as Django sends it."""
        this: Any = self
        try:
            body_file = await this.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        # Django's own split of the receivers (what asend runs behind sync_to_async).
        _, async_receivers = signals.request_started._live_receivers(self.__class__)
        in_chain = not async_receivers
        if not in_chain:
            await signals.request_started.asend(sender=self.__class__, scope=scope)
        request, error_response = self.create_request(scope, body_file)
        if request is None:
            # Django's create_request gives a request or the response refusing it.
            error_response = cast(HttpResponseBase, error_response)
            if in_chain:
                await signals.request_started.asend(sender=self.__class__, scope=scope)
            body_file.close()
            await self.send_response(error_response, send)
            await sync_to_async(error_response.close)()
            return
        if in_chain:
            request.__dict__[_START_ATTRIBUTE] = scope

        async def process_request(request: HttpRequest, send: Any) -> HttpResponseBase:
            response: HttpResponseBase = await self.run_get_response(request)
            try:
                await self.send_response(response, send)
            except asyncio.CancelledError:
                pass  # the client left while the answer was sent
            return response

        # The rest is Django's: catch a disconnect while the response is made.
        tasks = [
            asyncio.create_task(this.listen_for_disconnect(receive)),
            asyncio.create_task(process_request(request, send)),
        ]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            if task.done():
                try:
                    task.result()
                except RequestAborted:
                    pass
                except AssertionError:
                    body_file.close()
                    raise
            else:
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass
        try:
            response = tasks[1].result()
        except asyncio.CancelledError:
            await signals.request_finished.asend(sender=self.__class__)
        else:
            await sync_to_async(response.close)()
        body_file.close()

    def resolve_request(self, request: HttpRequest) -> ResolverMatch:
        match: ResolverMatch | None = request.__dict__.pop(_MATCH_ATTRIBUTE, None)
        if match is not None:
            return match
        return url_matches.resolve_request(request)

    def _get_response(self, request: HttpRequest) -> HttpResponseBase:
        match = url_matches.resolve_request(request)
        if iscoroutinefunction(match.func):
            # As Django's async chain would: resolved again there, on the event loop.
            response: HttpResponseBase = async_to_sync(self._async_bottom._get_response_async)(
                request
            )
            return response
        request.__dict__[_MATCH_ATTRIBUTE] = match
        try:
            sync_bottom: Any = BaseHandler._get_response  # type: ignore[attr-defined]
            response = sync_bottom(self, request)
            return response
        finally:
            request.__dict__.pop(_MATCH_ATTRIBUTE, None)


def application() -> OneHopASGIHandler:
    """Django set up (as `get_asgi_application` does) and this handler."""
    import django

    django.setup(set_prefix=False)
    return OneHopASGIHandler()
