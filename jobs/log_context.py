"""What every log line about a job carries (job_id, tenant, attempt, stage), bound as
context variables for the rest of the task or request (merged in by core/logs.py)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from structlog.contextvars import bind_contextvars, clear_contextvars

from jobs.models import PdfJob


def log_context_start(**fields: Any) -> None:
    """A new unit of work (a task, a request): forget the previous one's context."""
    clear_contextvars()
    bind_contextvars(**fields)


def log_context_end() -> None:
    clear_contextvars()


def job_log_bind(job: PdfJob) -> None:
    # tenant as core.logs.tenant_log_bind says it: the owner's id
    bind_contextvars(job_id=str(job.job_id), tenant=str(job.owner_id), attempt=job.attempts)


def job_id_log_bind(job_id: UUID | str) -> None:
    bind_contextvars(job_id=str(job_id))


def stage_log_bind(stage: str) -> None:
    bind_contextvars(stage=stage)
