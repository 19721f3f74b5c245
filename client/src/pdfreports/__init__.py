"""Python client for the PDF report service: `Client(base_url, api_key).submit(...).wait()`."""

from pdfreports.aio import AsyncClient, AsyncJob
from pdfreports.client import Client, Job, Run
from pdfreports.errors import (
    ApiError,
    JobFailed,
    PdfReportsError,
    ServiceUnavailable,
    WaitTimeout,
)
from pdfreports.models import JobState, RunState, Template
from pdfreports.retry import RetryEvent, RetryPolicy

__all__ = [
    "ApiError",
    "AsyncClient",
    "AsyncJob",
    "Client",
    "Job",
    "JobFailed",
    "JobState",
    "PdfReportsError",
    "RetryEvent",
    "RetryPolicy",
    "Run",
    "RunState",
    "ServiceUnavailable",
    "Template",
    "WaitTimeout",
]
