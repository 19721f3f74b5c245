"""The ASGI handler we serve (core/asgi_handler.py): a sync view and every middleware hook run
in one worker thread entered with one hop; an async view still runs on the event loop; the
request threads are reused, one request at a time."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from asgiref import sync as asgiref_sync
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.deprecation import MiddlewareMixin

from core.asgi_handler import OneHopASGIHandler, RequestThreads
from tests.core import asgi_handler_urls
from tests.core.asgi_handler_urls import SEEN

pytestmark = pytest.mark.urls("tests.core.asgi_handler_urls")


class RecordingMiddleware(MiddlewareMixin):
    def process_request(self, request: HttpRequest) -> None:
        SEEN.append(("process_request", threading.get_ident()))

    def process_view(self, request: HttpRequest, view: Any, args: Any, kwargs: Any) -> None:
        SEEN.append(("process_view", threading.get_ident()))

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse:
        SEEN.append(("process_exception", threading.get_ident()))
        return HttpResponse(f"caught {exception}", status=418)

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        SEEN.append(("process_response", threading.get_ident()))
        return response


@pytest.fixture
def handler(settings: Any) -> OneHopASGIHandler:
    settings.MIDDLEWARE = [f"{__name__}.RecordingMiddleware"]
    SEEN.clear()
    return OneHopASGIHandler()


def _get(handler: OneHopASGIHandler, path: str) -> tuple[int, bytes, int, int]:
    """Status, body, the event loop's thread and the sync_to_async calls the request made."""
    sent: list[dict] = []
    messages = [{"type": "http.request", "body": b"", "more_body": False}]
    loop_thread: list[int] = []
    hops = [0]
    real_call = asgiref_sync.SyncToAsync.__call__

    async def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        hops[0] += 1
        return await real_call(self, *args, **kwargs)

    async def receive() -> dict:
        if messages:
            return messages.pop(0)
        await asyncio.sleep(3600)  # no disconnect while the request is served
        raise AssertionError

    async def send(message: dict) -> None:
        sent.append(message)

    async def run() -> None:
        loop_thread.append(threading.get_ident())
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"testserver")],
            "client": ("127.0.0.1", 1234),
            "server": ("testserver", 80),
        }
        await handler(scope, receive, send)

    asgiref_sync.SyncToAsync.__call__ = counted  # type: ignore[method-assign]
    try:
        asyncio.run(run())
    finally:
        asgiref_sync.SyncToAsync.__call__ = real_call  # type: ignore[method-assign]
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], body, loop_thread[0], hops[0]


def test_a_sync_view_and_every_hook_run_in_one_thread_entered_once(handler):
    status, body, loop_thread, hops = _get(handler, "/sync/hello")
    assert (status, body) == (200, b"sync hello sync-view")
    assert [what for what, _ in SEEN] == [
        "process_request",
        "process_view",
        "view",
        "process_response",
    ]
    threads = {thread for _, thread in SEEN}
    assert len(threads) == 1
    assert loop_thread not in threads
    # request_started's receivers with the middleware chain and the view, the response's close.
    assert hops == 2


def test_request_started_receivers_run_in_the_chains_thread_before_the_middleware(handler):
    from django.core.signals import request_started

    def started(*, scope: dict, **_: Any) -> None:
        SEEN.append(("request_started " + scope["path"], threading.get_ident()))

    request_started.connect(started)
    try:
        _, _, loop_thread, hops = _get(handler, "/sync/hello")
    finally:
        request_started.disconnect(started)
    assert [what for what, _ in SEEN][:2] == ["request_started /sync/hello", "process_request"]
    assert len({thread for _, thread in SEEN}) == 1
    assert loop_thread not in {thread for _, thread in SEEN}
    assert hops == 2


def test_an_async_request_started_receiver_gets_the_signal_as_django_sends_it(handler):
    from django.core.signals import request_started

    async def started(*, scope: dict, **_: Any) -> None:
        SEEN.append(("async request_started", threading.get_ident()))

    def started_sync(**_: Any) -> None:
        SEEN.append(("request_started", threading.get_ident()))

    request_started.connect(started)
    request_started.connect(started_sync)
    try:
        status, _, loop_thread, hops = _get(handler, "/sync/hello")
    finally:
        request_started.disconnect(started)
        request_started.disconnect(started_sync)
    assert status == 200
    seen = [what for what, _ in SEEN]
    assert seen.index("request_started") < seen.index("process_request")
    assert seen.index("async request_started") < seen.index("process_request")
    assert dict(SEEN)["async request_started"] == loop_thread
    assert hops == 3  # Django's asend, the chain, the close


def test_a_request_django_refuses_to_build_still_sends_request_started(handler, monkeypatch):
    from django.core.signals import request_started
    from django.http import HttpResponseBadRequest

    def started(**_: Any) -> None:
        SEEN.append(("request_started", threading.get_ident()))

    monkeypatch.setattr(
        handler, "create_request", lambda scope, body: (None, HttpResponseBadRequest())
    )
    request_started.connect(started)
    try:
        status, _, _, _ = _get(handler, "/sync/hello")
    finally:
        request_started.disconnect(started)
    assert status == 400
    assert [what for what, _ in SEEN] == ["request_started"]


def test_a_sync_views_exception_goes_to_process_exception_in_the_same_thread(handler):
    status, body, _, _ = _get(handler, "/failing")
    assert (status, body) == (418, b"caught answered by process_exception")
    assert [what for what, _ in SEEN] == [
        "process_request",
        "process_view",
        "view",
        "process_exception",
        "process_response",
    ]
    assert len({thread for _, thread in SEEN}) == 1


def test_an_async_view_runs_on_the_event_loop_after_the_hooks(handler):
    status, body, loop_thread, _ = _get(handler, "/async")
    assert (status, body) == (200, b"async")
    assert [what for what, _ in SEEN] == [
        "process_request",
        "process_view",
        "async view",
        "process_response",
    ]
    threads = dict(SEEN)
    assert threads["async view"] == loop_thread
    assert threads["process_request"] == threads["process_view"] == threads["process_response"]
    assert threads["process_request"] != loop_thread


def test_an_unknown_path_is_django_404(handler):
    status, _, _, _ = _get(handler, "/nowhere")
    assert status == 404
    assert [what for what, _ in SEEN] == ["process_request", "process_response"]


def test_the_served_application_is_this_handler():
    from config.asgi import django_asgi_app

    assert isinstance(django_asgi_app, OneHopASGIHandler)
    assert asgi_handler_urls.urlpatterns  # the module the tests route to


def test_requests_one_after_the_other_reuse_a_thread(handler):
    _get(handler, "/sync/one")
    _get(handler, "/sync/two")
    views = [thread for what, thread in SEEN if what == "view"]
    assert len(views) == 2
    assert views[0] == views[1]


def test_concurrent_requests_run_in_threads_of_their_own(handler):
    # Each view waits until both are in: with a shared thread the first would wait forever.
    asgi_handler_urls.BARRIER = threading.Barrier(2, timeout=10)
    try:

        async def both() -> list[tuple[int, bytes, int, int]]:
            return list(
                await asyncio.gather(
                    asyncio.to_thread(_get, handler, "/meeting"),
                    asyncio.to_thread(_get, handler, "/meeting"),
                )
            )

        answers = asyncio.run(both())
    finally:
        asgi_handler_urls.BARRIER = None
    assert [status for status, *_ in answers] == [200, 200]
    views = [thread for what, thread in SEEN if what == "view"]
    assert len(set(views)) == 2


def test_a_thread_is_offered_again_only_once_its_work_has_run():
    threads = RequestThreads(kept=1)
    executor = threads.take()
    release = threading.Event()
    left_behind = executor.submit(release.wait, 10)  # a view still running past its request
    threads.give_back(executor)
    assert threads.idle_count() == 0
    assert threads.take() is not executor
    release.set()
    left_behind.result(timeout=10)
    assert _eventually(threads.idle_count)
    assert threads.take() is executor


def _eventually(check: Any) -> bool:
    for _ in range(200):
        if check():
            return True
        threading.Event().wait(0.01)
    return False


def test_idle_threads_past_the_kept_number_are_let_go():
    threads = RequestThreads(kept=1)
    first, second = threads.take(), threads.take()
    threads.give_back(first)
    assert _eventually(lambda: threads.idle_count() == 1)
    threads.give_back(second)
    assert _eventually(lambda: second._shutdown)  # let go, not kept
    assert threads.idle_count() == 1
    assert threads.take() is first


# Django 5.2.19's ASGIHandler.handle, which OneHopASGIHandler.handle restates.
_DJANGO_HANDLE_SHA256 = "98faeb5bef800331e6a8002fbc96b30e4122a23438ae45a047190a531ea11323"


def test_djangos_handle_is_the_one_ours_restates():
    """OneHopASGIHandler.handle is Django's with request_started moved into the chain's
    hop: a Django upgrade that changes Django's method fails here, so that ours is
    compared with it and brought up to date (then record the new digest)."""
    import hashlib
    import inspect

    from django.core.handlers.asgi import ASGIHandler

    source = inspect.getsource(ASGIHandler.handle).encode()
    assert hashlib.sha256(source).hexdigest() == _DJANGO_HANDLE_SHA256
