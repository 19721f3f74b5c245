"""The one error type: a problem a person can fix, with a code, a message and the HTTP
status the API answers it with. Rendering raises its subclasses; the apps raise it too, with
their own codes (core.errors holds the API's: NotFound, Gone, Conflict, LimitReached), and
a single DRF exception handler (core.exception_handler) turns any of them into a 4xx. It
lives here, at the bottom of the import graph, so every package can raise it."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from rendering.error_codes import ErrorCode
from rendering.limits import size_text


class ApplicationError(Exception):
    """A request that cannot be done as asked; no retry fixes it."""

    # Rendering's ErrorCode, the API's (core.error_codes) or an app's own (jobs.error_codes...).
    code: StrEnum = ErrorCode.INVALID_DATA
    http_status = 400

    def __init__(
        self,
        message: str,
        *,
        code: StrEnum | None = None,
        http_status: int | None = None,
        line: int | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        # More of the answer's body, beside code and message (which field, which limit).
        self.details: dict[str, Any] = dict(details or {})
        if code:
            self.code = code
        if http_status:
            self.http_status = http_status

    def __str__(self) -> str:
        return self.message


class RenderError(ApplicationError):
    """A permanent problem with the template, the data or the options."""

    code: StrEnum = ErrorCode.RENDER_ERROR  # an app's subclass may carry its own code


class InvalidInput(RenderError):
    """A request field, an option or a piece of data is not as the API describes it
    (permanent like any RenderError, so a worker that meets one fails the job at once)."""

    code = ErrorCode.INVALID_DATA


class TemplateSyntaxError(RenderError):
    code = ErrorCode.TEMPLATE_SYNTAX


class TemplateRuntimeError(RenderError):
    code = ErrorCode.TEMPLATE_ERROR


class LimitExceeded(RenderError):
    code = ErrorCode.LIMIT_EXCEEDED


def page_count_check(count: int, limit: int) -> None:
    """A laid-out (or merged) document over the page limit is refused."""
    if count > limit:
        raise LimitExceeded(f"The report has {count} pages; the limit is {limit}.")


def html_too_large(limit: int) -> LimitExceeded:
    """The one refusal of rendered HTML over its limit, wherever it is counted: as an
    engine writes it, through the isolated child's pipe, or whole before a layout."""
    return LimitExceeded(f"The rendered HTML is larger than the {size_text(limit)} allowed.")


def template_too_slow(timeout_ms: int) -> LimitExceeded:
    """The one refusal of a template render past its CPU budget, whichever child ran it
    (rendering.isolated's fork, the V8 child)."""
    return LimitExceeded(f"The template took longer than {timeout_ms} ms to render (CPU time).")


def html_size_check(html: str, limit: int) -> None:
    """A document over the limit in UTF-8 bytes is refused before a renderer lays it out."""
    if len(html.encode("utf-8")) > limit:
        raise html_too_large(limit)


class LayoutFailed(RenderError):
    """The renderer could not place something on a page; retrying would fail the same way."""

    code = ErrorCode.LAYOUT_ERROR
