"""Django's 404 and 500 pages, answered as the API's JSON error for paths under /api/."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

from core.error_codes import ApiErrorCode

API_PREFIX = "/api/"


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        message = f"There is no API endpoint at {request.path}."
        return JsonResponse({"error": message, "code": ApiErrorCode.NOT_FOUND}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        message = "The server failed to answer; the error is logged. Try again later."
        return JsonResponse({"error": message, "code": ApiErrorCode.SERVER_ERROR}, status=500)
    return defaults.server_error(request)
