"""Result cache: a submit that asks for it (`cache: true`, or its template's
`cache_results`) and renders exactly what a completed, unexpired job of the same tenant
rendered gets a new job, completed at once, pointing at that job's stored PDF.

"Exactly what" is a content hash of the tenant, the template version (or the inline
source, engine and helpers), the versions of the templates it includes (so publishing a
partial changes the key of every template that includes it), the data, the parsed options
and the renderer. Every job
stores its hash, so a cached submit can reuse any earlier job, cached or not.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from uuid import UUID

from django.utils import timezone

from jobs.models import JobStatus, PdfJob


def result_cache_key(
    *,
    owner_id: int,
    version_id: int | None,
    html: str,
    engine: str,
    helpers: str,
    renderer: str,
    data: Any,
    options: dict[str, Any],
    partials: dict[str, int] | None = None,
) -> str:
    content: dict[str, Any] = {
        "owner": owner_id,
        # A stored template's version fixes its source; inline jobs carry theirs.
        "version": version_id,
        "html": "" if version_id else html,
        "engine": engine,
        "helpers": "" if version_id else helpers,
        "renderer": renderer,
        "data": data,
        "options": options,
    }
    if partials:  # only then: the keys of jobs that include nothing stay as they were
        content["partials"] = partials
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def result_cache_source(*, owner: Any, cache_key: str) -> PdfJob | None:
    """Inside the transaction that makes the new job: the newest completed, unexpired job
    with this key, locked so retention cannot expire it (and delete its object) before the
    new job that points at the object has committed (jobs.retention)."""
    return (
        PdfJob.objects.select_for_update(of=("self",))
        .filter(
            owner=owner,
            cache_key=cache_key,
            status=JobStatus.COMPLETED,
            expired_at__isnull=True,
        )
        .exclude(pdf_file="")
        .order_by("-completed_at")
        .first()
    )


def cached_job_fields(source: PdfJob) -> dict[str, Any]:
    """The fields of a new job completed from `source`: its stored PDF, no render."""
    now = timezone.now()
    origin: UUID = source.cached_from or source.job_id  # the job that rendered it
    return {
        "status": JobStatus.COMPLETED,
        "progress": 100,
        "stage": "cached",
        "pdf_file": source.pdf_file,
        "page_count": source.page_count,
        "size_bytes": source.size_bytes,
        "warnings": source.warnings,
        "compliance": source.compliance,
        "started_at": now,
        "completed_at": now,
        "cached_from": origin,
    }
