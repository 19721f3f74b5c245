"""A large report laid out on several workers at once: a Celery chord of pure chunk renders,
whose callback lays out the contents, stamps the page numbers, merges and completes."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.utils import timezone

from jobs import transitions
from jobs.dispatch import job_chunks_send
from jobs.models import JobStatus, PdfJob
from jobs.worker.completion import job_result_complete, result_save
from rendering.merging import ChunkPdf
from rendering.options import PdfOptions, parse_options
from rendering.renderers import get_chunker
from rendering.renderers.base import Chunker
from rendering.report import PreparedDocument, pdf_finish
from reports.limits import limits_from_settings

logger = logging.getLogger(__name__)


def chunk_key(job_id: UUID | str, name: str) -> str:
    # Per job and chunk: a re-run rewrites the same objects.
    return f"chunks/{job_id}/{name}"


@dataclass(frozen=True)
class JobChunks:
    """How a job is laid out in chunks: the renderer's chunked layout and its plan."""

    renderer: str
    plan: str

    @property
    def chunker(self) -> Chunker:
        chunker = get_chunker(self.renderer)
        if chunker is None:
            raise ValueError(f"renderer {self.renderer!r} lays documents out whole")
        return chunker


def chunk_plan_for(
    *, renderer: str, prepared: PreparedDocument, options: PdfOptions
) -> JobChunks | None:
    """The plan to lay the document out in PDF_CHUNKS chunks, or None to lay it out in
    one process (chunking off, a small document, a renderer that lays out whole, or a
    document that needs one whole layout)."""
    if settings.PDF_CHUNKS < 2 or prepared.body_html.count("<") < settings.PDF_CHUNK_MIN_TAGS:
        return None
    chunker = get_chunker(renderer)
    if chunker is None:
        return None
    plan = chunker.plan(
        body_html=prepared.body_html, css=prepared.css, options=options, chunks=settings.PDF_CHUNKS
    )
    return None if plan is None else JobChunks(renderer=renderer, plan=plan)


def job_dispatch_chunks(*, job: PdfJob, chunks: JobChunks, prepared: PreparedDocument) -> int:
    """Store the plan and send the chord: one chunk task per body chunk, then the merge.
    The job stays processing; returns the number of chunks."""
    count = chunks_store(job_id=job.job_id, chunks=chunks, warnings=prepared.warnings)
    job_chunks_send(job_id=job.job_id, count=count)
    transitions.job_progress(job_id=job.job_id, stage="laying_out", progress=41)
    return count


def chunks_store(*, job_id: UUID | str, chunks: JobChunks, warnings: list[str]) -> int:
    """Store the plan where every chunk task and the merge read it; the chunk count."""
    count = chunks.chunker.count(chunks.plan)
    # The count is stored with the plan: reading it back from the plan would parse the
    # plan (megabytes of chart images) once more in every chunk.
    manifest = {
        "renderer": chunks.renderer,
        "plan": chunks.plan,
        "warnings": warnings,
        "count": count,
    }
    storages["reports"].save(
        chunk_key(job_id, "plan.json"), ContentFile(json.dumps(manifest).encode())
    )
    return count


@dataclass(frozen=True)
class _Manifest:
    chunks: JobChunks
    warnings: list[str]
    count: int


def _manifest(job_id: UUID | str) -> _Manifest:
    with storages["reports"].open(chunk_key(job_id, "plan.json")) as handle:
        manifest = json.loads(handle.read())
    chunks = JobChunks(renderer=manifest["renderer"], plan=manifest["plan"])
    count = manifest.get("count")  # absent from plans stored before it was kept
    return _Manifest(
        chunks=chunks,
        warnings=manifest["warnings"],
        count=int(count) if count is not None else chunks.chunker.count(chunks.plan),
    )


def _processing(job_id: UUID | str) -> PdfJob | None:
    return PdfJob.objects.filter(job_id=job_id, status=JobStatus.PROCESSING).first()


def chunk_execute(*, job_id: UUID | str, index: int) -> dict[str, Any] | None:
    """Lay out one chunk and store its PDF; what the merge needs to know comes back.
    None when the job is no longer processing (cancelled, failed by another chunk)."""
    if _processing(job_id) is None:
        return None
    manifest = _manifest(job_id)
    chunker = manifest.chunks.chunker
    part = chunker.render_chunk(manifest.chunks.plan, index, limits=limits_from_settings())
    storage = storages["reports"]
    storage.save(chunk_key(job_id, f"{index}.pdf"), ContentFile(part.content))
    # The chunks keep the job's heartbeat fresh, so the reconciler leaves it alone while
    # they run, and re-sends it when they are all lost.
    PdfJob.objects.filter(job_id=job_id, status=JobStatus.PROCESSING).update(
        heartbeat_at=timezone.now()
    )
    count = manifest.count
    done = sum(storage.exists(chunk_key(job_id, f"{i}.pdf")) for i in range(count))
    transitions.job_progress(
        job_id=job_id, stage="laying_out", progress=min(85, 41 + 44 * done // count)
    )
    return {"index": index, **part.summary()}


def chunks_merge_execute(*, job_id: UUID | str, results: list[dict[str, Any] | None]) -> str:
    """Lay out what needs every chunk (the contents), number, merge and complete; the
    chunk objects are removed. Returns the stored key, or "" when the job had stopped
    being processed."""
    storage = storages["reports"]
    job = _processing(job_id)
    if job is None or any(result is None for result in results):
        chunks_delete(job_id=job_id, count=len(results))
        return ""
    manifest = _manifest(job_id)
    parts = []
    present = [result for result in results if result is not None]
    for result in sorted(present, key=lambda r: int(r["index"])):
        with storage.open(chunk_key(job_id, f"{result['index']}.pdf")) as handle:
            parts.append(ChunkPdf.from_summary(handle.read(), result))
    transitions.job_progress(job_id=job_id, stage="finishing", progress=88)
    merged = manifest.chunks.chunker.merge(
        manifest.chunks.plan, parts, limits=limits_from_settings()
    )
    rendered = pdf_finish(merged, options=parse_options(job.options), warnings=manifest.warnings)
    key = result_save(job_id=job_id, rendered=rendered)
    job_result_complete(job_id=job_id, key=key, rendered=rendered)
    chunks_delete(job_id=job_id, count=len(results))
    return key


def chunks_delete(*, job_id: UUID | str, count: int) -> None:
    storage = storages["reports"]
    for name in ["plan.json", *(f"{i}.pdf" for i in range(count))]:
        try:
            storage.delete(chunk_key(job_id, name))
        except OSError:
            logger.warning("job %s: could not delete chunk object %s", job_id, name)
