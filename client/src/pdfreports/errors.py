"""The errors the client raises: one base class, so callers can catch everything at once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pdfreports.models import JobState


class PdfReportsError(Exception):
    """Anything that went wrong talking to the service."""


class ApiError(PdfReportsError):
    """The service answered with an error status; `message` is its explanation."""

    def __init__(self, status_code: int, message: str, code: str = "", body: Any = None) -> None:
        super().__init__(f"{status_code}: {message}" + (f" ({code})" if code else ""))
        self.status_code = status_code
        self.message = message
        self.code = code
        self.body = body


class ServiceUnavailable(PdfReportsError):
    """The service could not be reached, or kept failing after every retry."""


class JobFailed(PdfReportsError):
    """The job ended failed or cancelled; `state` holds its error and error code."""

    def __init__(self, state: JobState) -> None:
        reason = state.error or f"the job was {state.status}"
        code = f" ({state.error_code})" if state.error_code else ""
        super().__init__(f"job {state.job_id} {state.status}: {reason}{code}")
        self.state = state


class WaitTimeout(PdfReportsError, TimeoutError):
    """The job did not finish within the time the caller was willing to wait."""

    def __init__(self, state: JobState, timeout: float) -> None:
        super().__init__(
            f"job {state.job_id} is still {state.status} ({state.progress}%) after {timeout:g} s"
        )
        self.state = state
