"""A run's one download: a ZIP of its PDFs, streamed as it is written (a chunk of a PDF at
a time: the web process's memory stays flat however large the run), or one combined PDF
with a bookmark per record, built once and kept in report storage."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterator
from typing import IO

from django.core.files.base import ContentFile
from django.core.files.storage import storages
from pypdf import PdfWriter

from jobs.models import JobStatus, Run, RunRecord

CHUNK_BYTES = 256 * 1024
FAILURES_NAME = "failures.csv"


class _Sink(io.RawIOBase):
    """Where zipfile writes: kept until the generator hands it on (not seekable, so
    zipfile writes each entry's sizes after its data)."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.offset = 0

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.buffer += data
        self.offset += len(data)
        return len(data)

    def tell(self) -> int:
        return self.offset

    def take(self) -> bytes:
        taken = bytes(self.buffer)
        self.buffer.clear()
        return taken


def _records(run: Run) -> list[RunRecord]:
    return list(run.records.select_related("job").order_by("index"))


def _record_name(record: RunRecord) -> str:
    return record.job.filename if record.job else f"record-{record.index + 1}.pdf"


def _failures_csv(records: list[RunRecord]) -> bytes:
    """One line per record without a PDF: what a browser user needs to fix and resend."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["index", "job_id", "status", "error"])
    for record in records:
        job = record.job
        if job is not None and job.status == JobStatus.COMPLETED:
            continue
        writer.writerow(
            [
                record.index,
                job.job_id if job else "",
                job.status if job else "invalid",
                record.error or (job.error if job else ""),
            ]
        )
    return out.getvalue().encode("utf-8")


def run_zip_stream(run: Run) -> Iterator[bytes]:
    """The ZIP's bytes, in chunks: each completed record's PDF under its name, then
    failures.csv when some record has no PDF. PDFs are compressed already: stored."""
    records = _records(run)
    storage = storages["reports"]
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for record in records:
            job = record.job
            if job is None or job.status != JobStatus.COMPLETED or not job.pdf_file:
                continue
            handle: IO[bytes]
            with (
                storage.open(job.pdf_file, "rb") as handle,
                archive.open(
                    _record_name(record), "w", force_zip64=(job.size_bytes or 0) > 1 << 31
                ) as entry,
            ):
                while chunk := handle.read(CHUNK_BYTES):
                    entry.write(chunk)
                    yield sink.take()
        if any(r.job is None or r.job.status != JobStatus.COMPLETED for r in records):
            archive.writestr(FAILURES_NAME, _failures_csv(records))
    yield sink.take()


def run_zip_name(run: Run) -> str:
    slug = run.template.slug if run.template else "run"
    return f"{slug}-{run.run_id.hex[:8]}.zip"


def run_combined_file(run: Run) -> str:
    """The storage key of the run's combined PDF: each completed record's PDF in record
    order, one bookmark (outline item) per record named like its file. Built on the first
    download of a finished run and kept (a retry of the run clears it)."""
    if run.combined_file:
        return run.combined_file
    storage = storages["reports"]
    writer = PdfWriter()
    for record in _records(run):
        job = record.job
        if job is None or job.status != JobStatus.COMPLETED or not job.pdf_file:
            continue
        with storage.open(job.pdf_file, "rb") as handle:
            writer.append(io.BytesIO(handle.read()), outline_item=_record_name(record)[:-4])
    out = io.BytesIO()
    writer.write(out)
    key = storage.save(f"runs/{run.run_id}/combined.pdf", ContentFile(out.getvalue()))
    # Only a still-finished run keeps it: a retry that began meanwhile changes the PDFs.
    Run.objects.filter(pk=run.pk, finished_at=run.finished_at).update(combined_file=key)
    return key


def run_combined_name(run: Run) -> str:
    slug = run.template.slug if run.template else "run"
    return f"{slug}-{run.run_id.hex[:8]}.pdf"
