"""Errors of rendering that no retry can fix; each carries a message meant for a person."""

from __future__ import annotations


class RenderError(Exception):
    """A permanent problem with the template, the data or the options."""

    code = "render_error"

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line

    def __str__(self) -> str:
        return self.message


class TemplateSyntaxError(RenderError):
    code = "template_syntax"


class TemplateRuntimeError(RenderError):
    code = "template_error"


class LimitExceeded(RenderError):
    code = "limit_exceeded"


class LayoutFailed(RenderError):
    """The renderer could not place something on a page; retrying would fail the same way."""

    code = "layout_error"
