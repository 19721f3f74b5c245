"""Reads of jobs and templates, always scoped to the caller."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Q, QuerySet

from jobs.exceptions import NotFound
from jobs.models import ApiKey, PdfJob
from reports.models import ReportTemplate


def _parse_uuid(value: str | uuid.UUID) -> uuid.UUID | None:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        return None


def job_list(*, owner: Any) -> QuerySet[PdfJob]:
    return PdfJob.objects.filter(owner=owner).select_related("template")


def job_get(*, owner: Any, job_id: str | uuid.UUID) -> PdfJob:
    """The caller's job; another caller's job is indistinguishable from a missing one."""
    parsed = _parse_uuid(job_id)
    job = job_list(owner=owner).filter(job_id=parsed).first() if parsed else None
    if job is None:
        raise NotFound(f"No job {job_id} was found.")
    return job


def template_get_visible(*, owner: Any, slug: str) -> ReportTemplate | None:
    """The caller's own template with this slug, else the built-in one, else None."""
    found = list(ReportTemplate.objects.filter(Q(owner=owner) | Q(owner__isnull=True), slug=slug))
    found.sort(key=lambda template: template.owner_id is None)
    return found[0] if found else None


def template_list_visible(*, owner: Any) -> QuerySet[ReportTemplate]:
    return ReportTemplate.objects.filter(Q(owner=owner) | Q(owner__isnull=True))


def template_list_for_gallery(*, owner: Any) -> list[ReportTemplate]:
    """What the caller can submit by slug: their own templates shadow built-ins of the
    same slug, exactly as template_get_visible resolves them."""
    chosen: dict[str, ReportTemplate] = {}
    for template in template_list_visible(owner=owner).order_by("name"):
        if template.slug not in chosen or template.owner_id is not None:
            chosen[template.slug] = template
    return sorted(chosen.values(), key=lambda template: template.name.lower())


def api_key_list(*, user: Any) -> QuerySet[ApiKey]:
    return ApiKey.objects.filter(user=user)
