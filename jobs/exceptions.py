"""The one application error type; the API exception handler turns it into a 4xx."""

from __future__ import annotations


class ApplicationError(Exception):
    status_code = 400
    code = "invalid"

    def __init__(self, message: str, *, code: str | None = None, status: int | None = None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        if status:
            self.status_code = status


class NotFound(ApplicationError):
    status_code = 404
    code = "not_found"


class Conflict(ApplicationError):
    status_code = 409
    code = "conflict"
