"""A large report laid out on several workers at once: a Celery chord of pure chunk renders,
whose callback lays out the contents, stamps the page numbers, merges and completes."""

from __future__ import annotations

import json
import logging
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.utils import timezone

from jobs import transitions
from jobs.models import JobStatus, PdfJob
from jobs.worker.dispatch import job_chunks_send
from rendering.chunked import plan_render
from rendering.chunking import ChunkPlan, document_plan
from rendering.errors import LimitExceeded
from rendering.merging import ChunkPdf
from rendering.options import parse_options
from rendering.renderers.base import RenderedPdf
from rendering.renderers.xhtml2pdf import chunk_render, html_to_pdf
from rendering.report import PreparedDocument, pdf_finish
from reports.limits import limits_from_settings

logger = logging.getLogger(__name__)


def chunk_key(job_id: UUID | str, name: str) -> str:
    # Per job and chunk: a re-run rewrites the same objects.
    return f"chunks/{job_id}/{name}"


def chunk_plan_for(document: str) -> ChunkPlan | None:
    """The plan to lay `document` out in PDF_CHUNKS chunks, or None to lay it out in one
    process (chunking off, a small document, or one that must be laid out whole)."""
    if settings.PDF_CHUNKS < 2 or document.count("<") < settings.PDF_CHUNK_MIN_TAGS:
        return None
    plan = document_plan(document)
    if plan is None or len(plan.body_runs(settings.PDF_CHUNKS)) < 2:
        return None
    return plan


def job_dispatch_chunks(*, job: PdfJob, plan: ChunkPlan, prepared: PreparedDocument) -> int:
    """Store the plan and send the chord: one chunk task per body run, then the merge.
    The job stays processing; returns the number of chunks."""
    storage = storages["reports"]
    manifest = {"plan": json.loads(plan.to_json()), "meta": prepared.meta}
    manifest["warnings"] = prepared.warnings
    storage.save(chunk_key(job.job_id, "plan.json"), ContentFile(json.dumps(manifest).encode()))
    count = len(plan.body_runs(settings.PDF_CHUNKS))
    job_chunks_send(job_id=job.job_id, count=count)
    transitions.job_progress(job_id=job.job_id, stage="laying_out", progress=41)
    return count


def _manifest(job_id: UUID | str) -> dict[str, Any]:
    with storages["reports"].open(chunk_key(job_id, "plan.json")) as handle:
        return json.loads(handle.read())


def _processing(job_id: UUID | str) -> PdfJob | None:
    return PdfJob.objects.filter(job_id=job_id, status=JobStatus.PROCESSING).first()


def chunk_execute(*, job_id: UUID | str, index: int) -> dict[str, Any] | None:
    """Lay out one chunk and store its PDF; what the merge needs to know comes back.
    None when the job is no longer processing (cancelled, failed by another chunk)."""
    if _processing(job_id) is None:
        return None
    manifest = _manifest(job_id)
    plan = ChunkPlan.from_json(json.dumps(manifest["plan"]))
    first, last = plan.body_runs(settings.PDF_CHUNKS)[index]
    part = chunk_render(
        plan.chunk_html(first, last), limits=limits_from_settings(), meta=manifest["meta"]
    )
    storage = storages["reports"]
    storage.save(chunk_key(job_id, f"{index}.pdf"), ContentFile(part.content))
    # The chunks keep the job's heartbeat fresh, so the reconciler leaves it alone while
    # they run, and re-sends it when they are all lost.
    PdfJob.objects.filter(job_id=job_id, status=JobStatus.PROCESSING).update(
        heartbeat_at=timezone.now()
    )
    count = len(plan.body_runs(settings.PDF_CHUNKS))
    done = sum(storage.exists(chunk_key(job_id, f"{i}.pdf")) for i in range(count))
    transitions.job_progress(
        job_id=job_id, stage="laying_out", progress=min(85, 41 + 44 * done // count)
    )
    return {
        "index": index,
        "page_count": part.page_count,
        "toc_entries": part.toc_entries,
        "warnings": part.warnings,
    }


def chunks_merge_execute(*, job_id: UUID | str, results: list[dict[str, Any] | None]) -> str:
    """Lay out the contents, stamp, merge and complete; the chunk objects are removed.
    Returns the stored key, or "" when the job had stopped being processed."""
    storage = storages["reports"]
    job = _processing(job_id)
    if job is None or any(result is None for result in results):
        chunks_delete(job_id=job_id, count=len(results))
        return ""
    manifest = _manifest(job_id)
    plan = ChunkPlan.from_json(json.dumps(manifest["plan"]))
    parts = []
    present = [result for result in results if result is not None]
    for result in sorted(present, key=lambda r: int(r["index"])):
        with storage.open(chunk_key(job_id, f"{result['index']}.pdf")) as handle:
            parts.append(
                ChunkPdf(
                    content=handle.read(),
                    page_count=result["page_count"],
                    toc_entries=[tuple(entry) for entry in result["toc_entries"]],
                    warnings=result["warnings"],
                )
            )
    meta = manifest["meta"]
    limits = limits_from_settings()
    transitions.job_progress(job_id=job_id, stage="finishing", progress=88)
    content, pages, warnings = plan_render(
        plan,
        chunks=settings.PDF_CHUNKS,
        render=lambda html, entries: chunk_render(html, entries, limits=limits, meta=meta),
        render_many=lambda documents: parts,
        stamp_render=lambda html: html_to_pdf(html, limits=limits, meta=meta).content,
    )
    if pages > limits.max_pages:
        raise LimitExceeded(f"The report has {pages} pages; the limit is {limits.max_pages}.")
    rendered = pdf_finish(
        RenderedPdf(content=content, page_count=pages, warnings=warnings),
        options=parse_options(job.options),
        warnings=manifest["warnings"],
    )
    from jobs.worker.execution import log_if_slow, storage_key

    key = storage.save(storage_key(job_id), ContentFile(rendered.content))
    done = transitions.job_complete(
        job_id=job_id,
        pdf_file=key,
        page_count=rendered.page_count,
        size_bytes=rendered.size,
        warnings=rendered.warnings,
    )
    if done is None and PdfJob.objects.filter(job_id=job_id, status=JobStatus.CANCELLED).exists():
        storage.delete(key)  # cancelled while merging: the result is discarded
    if done is not None:
        log_if_slow(done)
    chunks_delete(job_id=job_id, count=len(results))
    return key


def chunks_delete(*, job_id: UUID | str, count: int) -> None:
    storage = storages["reports"]
    for name in ["plan.json", *(f"{i}.pdf" for i in range(count))]:
        try:
            storage.delete(chunk_key(job_id, name))
        except OSError:
            logger.warning("job %s: could not delete chunk object %s", job_id, name)
