"""The chunk and merge steps of a chunked job, run in this process against the database and
storage: progress counts chunks, the merge completes, a cancelled or failed job only
cleans up, a chunk error fails the job or retries that chunk alone."""

from __future__ import annotations

import io
import json

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from pypdf import PdfReader

from jobs.models import JobStatus, PdfJob
from jobs.worker import chunked, tasks
from jobs.worker.liveness import attempt_identity
from rendering.errors import RenderError
from rendering.options import parse_options
from rendering.report import PreparedDocument
from tests.factories import PdfJobFactory

pytestmark = pytest.mark.django_db

# "Page X of Y" in each renderer's own way: an xhtml2pdf frame, a WeasyPrint margin box.
NUMBERED = {
    "xhtml2pdf": (
        '<div id="footer">Page <pdf:pagenumber /> of <pdf:pagecount /></div>',
        """@page { @frame footer { -pdf-frame-content: footer; bottom: 1cm;
          margin-left: 2cm; margin-right: 2cm; height: 1cm; } }""",
    ),
    "weasyprint": (
        "",
        '@page { @bottom-center { content: "Page " counter(page) " of " counter(pages); } }',
    ),
}
RENDERERS = pytest.mark.parametrize("renderer", list(NUMBERED))


def _processing_job(
    user, settings, renderer: str = "xhtml2pdf", sections: int = 5
) -> tuple[PdfJob, int]:
    """A processing job whose plan is stored, as job_dispatch_chunks leaves it."""
    settings.PDF_CHUNK_MIN_TAGS = 1
    footer, css = NUMBERED[renderer]
    body = footer + "<pdf:nextpage />".join(
        f"<h1>Part {n}</h1><p>Text {n}</p>" for n in range(sections)
    )
    prepared = PreparedDocument(body_html=body, css=css, warnings=[])
    chunks = chunked.chunk_plan_for(
        renderer=renderer, prepared=prepared, options=parse_options({"title": "T"})
    )
    assert chunks is not None
    job = PdfJobFactory(
        owner=user, status=JobStatus.PROCESSING, worker=attempt_identity(), renderer=renderer
    )
    count = chunked.chunks_store(job_id=job.job_id, chunks=chunks, warnings=[])
    return job, count


@RENDERERS
def test_chunks_then_merge_complete_the_job_with_numbered_pages(user, settings, renderer):
    settings.PDF_CHUNKS = 2
    settings.PDF_PROGRESS_INTERVAL_MS = 0
    job, count = _processing_job(user, settings, renderer)
    assert count == 2
    results = [chunked.chunk_execute(job_id=job.job_id, index=0)]
    job.refresh_from_db()
    assert job.progress == 41 + 44 // 2  # one chunk of two done
    results.append(chunked.chunk_execute(job_id=job.job_id, index=1))
    job.refresh_from_db()
    assert job.progress == 85  # every chunk counted
    key = chunked.chunks_merge_execute(job_id=job.job_id, results=results)
    job.refresh_from_db()
    assert job.status == JobStatus.COMPLETED
    reader = PdfReader(io.BytesIO(storages["reports"].open(key).read()))
    assert job.page_count == len(reader.pages) == 5
    for number, page in enumerate(reader.pages, start=1):
        assert f"Page {number} of 5" in page.extract_text()
    assert not storages["reports"].exists(chunked.chunk_key(job.job_id, "plan.json"))
    assert not storages["reports"].exists(chunked.chunk_key(job.job_id, "0.pdf"))


@RENDERERS
def test_chunk_of_a_cancelled_job_lays_nothing_out(user, settings, renderer):
    settings.PDF_CHUNKS = 2
    job, _ = _processing_job(user, settings, renderer)
    PdfJob.objects.filter(pk=job.pk).update(status=JobStatus.CANCELLED)
    assert chunked.chunk_execute(job_id=job.job_id, index=0) is None
    assert not storages["reports"].exists(chunked.chunk_key(job.job_id, "0.pdf"))
    assert chunked.chunks_merge_execute(job_id=job.job_id, results=[None, None]) == ""
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED
    assert not storages["reports"].exists(chunked.chunk_key(job.job_id, "plan.json"))


def test_a_permanent_chunk_error_fails_the_job(user, settings, monkeypatch):
    settings.PDF_CHUNKS = 2
    job, _ = _processing_job(user, settings)

    def broken(**kwargs):
        raise RenderError("The chunk could not be laid out.")

    monkeypatch.setattr(chunked, "chunk_execute", broken)
    assert tasks.render_chunk.apply(args=(str(job.job_id), 0)).get() is None
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error == "The chunk could not be laid out."


@RENDERERS
def test_a_transient_chunk_error_retries_that_chunk(user, settings, monkeypatch, renderer):
    settings.PDF_CHUNKS = 2
    job, _ = _processing_job(user, settings, renderer)
    calls = []
    real = chunked.chunk_execute

    def flaky(**kwargs):
        calls.append(kwargs["index"])
        if len(calls) == 1:
            raise OSError("storage hiccup")  # the first attempt only
        return real(**kwargs)

    monkeypatch.setattr(chunked, "chunk_execute", flaky)
    monkeypatch.setattr(tasks.execution, "retry_countdown", lambda attempt: 0)
    result = tasks.render_chunk.apply(args=(str(job.job_id), 1)).get()
    assert result["index"] == 1
    assert result["page_count"] >= 2
    assert calls == [1, 1]  # the same chunk again, nothing else
    storage = storages["reports"]
    assert storage.exists(chunked.chunk_key(job.job_id, "1.pdf"))
    assert not storage.exists(chunked.chunk_key(job.job_id, "0.pdf"))
    job.refresh_from_db()
    assert job.status == JobStatus.PROCESSING


def test_a_plan_stored_without_its_chunk_count_still_counts_progress(user, settings):
    settings.PDF_CHUNKS = 2
    settings.PDF_PROGRESS_INTERVAL_MS = 0
    job, count = _processing_job(user, settings)
    storage = storages["reports"]
    key = chunked.chunk_key(job.job_id, "plan.json")
    with storage.open(key) as handle:
        manifest = json.loads(handle.read())
    assert manifest["count"] == count == 2
    del manifest["count"]  # as plans were stored before the count was kept
    storage.delete(key)
    storage.save(key, ContentFile(json.dumps(manifest).encode()))
    assert chunked.chunk_execute(job_id=job.job_id, index=1)["index"] == 1
    job.refresh_from_db()
    assert job.progress == 41 + 44 // 2
