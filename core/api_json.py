"""Every error under /api/ answers the API's JSON `{"error", "code"}`, DEBUG on or off.

DRF's exception handler covers its own views, and `core.http_errors` covers 404 and 500
with DEBUG off; what is left is Django's debug pages (technical 404 and 500, shown only
with DEBUG on), the bare 405 of `require_GET` views (the SSE streams) and the CSRF page.
They are rewritten here, after the fact, so that Django still logs the 500 as usual.
"""

from __future__ import annotations

from http import HTTPStatus

from django.http import HttpRequest, HttpResponseBase, JsonResponse
from django.utils.deprecation import MiddlewareMixin

from core.error_codes import ApiErrorCode

API_PREFIX = "/api/"
SERVER_ERROR = "The server failed to answer; the error is logged. Try again later."


def _is_json(response: HttpResponseBase) -> bool:
    content_type = response.get("Content-Type", "").split(";")[0].strip().lower()
    return content_type == "application/json" or content_type.endswith("+json")


def api_error_body(request: HttpRequest, response: HttpResponseBase) -> dict[str, str]:
    """The message and code a client gets for a non-JSON error `response` to `request`."""
    status = response.status_code
    if status == HTTPStatus.NOT_FOUND:
        return {
            "error": f"There is no API endpoint at {request.path}.",
            "code": ApiErrorCode.NOT_FOUND,
        }
    if status == HTTPStatus.METHOD_NOT_ALLOWED:
        allowed = response.get("Allow", "")
        hint = f"; use {allowed}" if allowed else ""
        message = f"{request.method} is not allowed on {request.path}{hint}."
        return {"error": message, "code": ApiErrorCode.METHOD_NOT_ALLOWED}
    if status == HTTPStatus.FORBIDDEN:
        message = "Forbidden. API calls authenticate with the X-API-Key header."
        return {"error": message, "code": ApiErrorCode.PERMISSION_DENIED}
    if status >= HTTPStatus.INTERNAL_SERVER_ERROR:
        return {"error": SERVER_ERROR, "code": ApiErrorCode.SERVER_ERROR}
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    return {"error": f"{phrase}.", "code": phrase.lower().replace(" ", "_").replace("-", "_")}


class ApiJsonErrorsMiddleware(MiddlewareMixin):
    """Rewrites a non-JSON 4xx/5xx answer to a path under /api/ as the API's JSON error."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if (
            response.status_code < HTTPStatus.BAD_REQUEST
            or not request.path.startswith(API_PREFIX)
            or _is_json(response)
        ):
            return response
        answer = JsonResponse(
            api_error_body(request, response),
            status=response.status_code,
            json_dumps_params={"ensure_ascii": False},
        )
        for header in ("Allow", "Retry-After", "WWW-Authenticate"):
            if header in response:
                answer[header] = response[header]
        return answer
