"""One path style for the API: no trailing slash. A slashed path gets the same answer."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.deprecation import MiddlewareMixin

API_PREFIX = "/api/v1/"


class ApiTrailingSlashMiddleware(MiddlewareMixin):
    """`/api/v1/jobs/` is answered as `/api/v1/jobs`. Rewritten rather than redirected: a
    redirect would turn a client's POST into a GET (or need a 307/308 many clients do not
    follow with a body), and would cost every such call a round trip."""

    def process_request(self, request: HttpRequest) -> None:
        path = request.path_info
        if path.startswith(API_PREFIX) and path.endswith("/") and len(path) > len(API_PREFIX):
            request.path_info = path.rstrip("/")
