"""Reads of runs: a workspace's own (another's is a 404 like a missing one)."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import QuerySet

from core.error_registry import permanent_codes
from core.errors import NotFound
from core.uuids import uuid_or_none
from jobs.models import JobStatus, PdfJob
from runs.models import Run


def run_get(*, workspace: Any, run_id: str | uuid.UUID) -> Run:
    parsed = uuid_or_none(run_id)
    run = (
        Run.objects.filter(workspace=workspace, run_id=parsed).select_related("template").first()
        if parsed
        else None
    )
    if run is None:
        raise NotFound(f"No run {run_id} was found.")
    return run


def run_get_finished(*, run_id: str | uuid.UUID) -> Run:
    """A finished run with at least one PDF, for its signed download (the link is the
    credential, so no workspace)."""
    parsed = uuid_or_none(run_id)
    run = Run.objects.filter(run_id=parsed).select_related("template").first() if parsed else None
    if run is None or not run.is_finished or not run.completed:
        raise NotFound(f"Run {run_id} has nothing to download yet.")
    return run


def run_list(
    *,
    workspace: Any,
    status: str | None = None,
    template: str | None = None,
    output: str | None = None,
) -> QuerySet[Run]:
    """A workspace's runs, newest first; each filter applies when given."""
    runs = Run.objects.filter(workspace=workspace).select_related("template")
    if status:
        runs = runs.filter(status=status)
    if template:
        runs = runs.filter(template__slug=template)
    if output:
        runs = runs.filter(output=output)
    return runs.order_by("-created_at", "-pk")


def run_has_retryable(*, run: Run) -> bool:
    """Has the run a failed record that retry-failed would send again (jobs.retry_rule's
    rule, as one query: an unknown code is given the benefit of the doubt)?"""
    failed = PdfJob.objects.filter(batch_id=run.run_id, status=JobStatus.FAILED)
    return failed.exclude(error_code__in=permanent_codes()).exists()
