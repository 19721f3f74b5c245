"""Log context for a request: every line it causes carries request_id, method and path,
and the tenant and job_id once they are known (API-key callers are bound by
accounts.authentication, since DRF authenticates inside the view)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from structlog.contextvars import bind_contextvars, clear_contextvars

from core.logs import tenant_log_bind

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._\-]{1,64}$")


class RequestLogContextMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # A proxy's X-Request-ID ties our lines to its own; anything odd gets a new one.
        given = request.headers.get("X-Request-ID", "")
        request_id = given if _REQUEST_ID.match(given) else uuid.uuid4().hex[:16]
        clear_contextvars()
        bind_contextvars(request_id=request_id, method=request.method, path=request.path)
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        return response

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: tuple[Any, ...],
        view_kwargs: dict[str, Any],
    ) -> None:
        if "job_id" in view_kwargs:
            bind_contextvars(job_id=str(view_kwargs["job_id"]))
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            tenant_log_bind(user)
