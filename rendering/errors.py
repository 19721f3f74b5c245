"""The one error type: a problem a person can fix, with a code, a message and the HTTP
status the API answers it with. Rendering raises its subclasses; the apps raise it too,
and a single DRF exception handler turns any of them into a 4xx (it lives here, at the
bottom of the import graph, so every package can raise it)."""

from __future__ import annotations


class ApplicationError(Exception):
    """A request that cannot be done as asked; no retry fixes it."""

    code = "invalid"
    http_status = 400

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        http_status: int | None = None,
        line: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        if code:
            self.code = code
        if http_status:
            self.http_status = http_status

    def __str__(self) -> str:
        return self.message


class NotFound(ApplicationError):
    code = "not_found"
    http_status = 404


class Gone(ApplicationError):
    """It existed and was deleted on purpose (an expired PDF)."""

    code = "expired"
    http_status = 410


class Conflict(ApplicationError):
    code = "conflict"
    http_status = 409


class RenderError(ApplicationError):
    """A permanent problem with the template, the data or the options."""

    code = "render_error"


class TemplateSyntaxError(RenderError):
    code = "template_syntax"


class TemplateRuntimeError(RenderError):
    code = "template_error"


class LimitExceeded(RenderError):
    code = "limit_exceeded"


def page_count_check(count: int, limit: int) -> None:
    """A laid-out (or merged) document over the page limit is refused."""
    if count > limit:
        raise LimitExceeded(f"The report has {count} pages; the limit is {limit}.")


class LayoutFailed(RenderError):
    """The renderer could not place something on a page; retrying would fail the same way."""

    code = "layout_error"
