"""The one DRF exception handler: every API error answers JSON `{"error": message,
"code": ...}` with a 4xx status (an ApplicationError's own `http_status`)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

from core.disclosure import public_text
from core.error_codes import ApiErrorCode
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError


def flatten_errors(detail: Any, path: str = "") -> list[str]:
    if isinstance(detail, dict):
        return [
            msg for key, value in detail.items() for msg in flatten_errors(value, f"{path}{key}.")
        ]
    if isinstance(detail, list):
        return [msg for item in detail for msg in flatten_errors(item, path)]
    prefix = path.rstrip(".")
    return [f"{prefix}: {detail}" if prefix and prefix != "non_field_errors" else str(detail)]


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ApplicationError):
        # Server paths never reach a tenant (core.disclosure).
        body: dict[str, Any] = {"error": public_text(exc.message), "code": exc.code}
        if exc.line is not None:
            body["line"] = exc.line
        body.update(getattr(exc, "details", {}))  # e.g. which quota was hit
        retry_after = getattr(exc, "retry_after", None)
        headers = {"Retry-After": str(retry_after)} if retry_after else None
        return Response(body, status=exc.http_status, headers=headers)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        messages = flatten_errors(exc.detail)
        response.data = {"error": "; ".join(messages), "code": ErrorCode.INVALID_DATA}
        if isinstance(exc.detail, dict):  # per-field messages; a bare list says no more
            response.data["fields"] = exc.detail
    elif isinstance(exc, exceptions.Throttled):
        response.data = {
            "error": str(exc.detail),
            "code": ApiErrorCode.THROTTLED,
            "limit": getattr(context.get("request"), "throttled_setting", ""),
        }
    elif isinstance(exc, exceptions.APIException):
        response.data = {"error": str(exc.detail), "code": drf_error_code(exc)}
    return response


def drf_error_code(exc: exceptions.APIException) -> StrEnum:
    """DRF's own exceptions in the registry's terms: a body that is not JSON is invalid data
    like any other, the rest keep DRF's code (each one is in the registry)."""
    if isinstance(exc, exceptions.ParseError):
        return ErrorCode.INVALID_DATA
    try:
        # A lookup by value (EnumMeta.__call__); mypy reads the call as CodeEnum.__new__.
        return ApiErrorCode(exc.default_code)  # type: ignore[call-arg]
    except ValueError:
        return ApiErrorCode.SERVER_ERROR
