"""A run's one download: a ZIP of its PDFs, streamed as it is written (a chunk of a PDF at
a time: the web process's memory stays flat however large the run), or one combined PDF
with a bookmark per record, built once on a worker (runs.combined) and kept in report
storage."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import IO
from uuid import UUID

from asgiref.sync import sync_to_async
from django.core.files.storage import storages
from django.utils import timezone

from core.spreadsheet import spreadsheet_cell
from jobs.models import JobStatus
from runs.models import Run

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


@dataclass(frozen=True)
class _Row:
    index: int
    error: str
    job_id: UUID | None
    status: str  # the job's, or "invalid": refused at submit
    job_error: str
    pdf_file: str
    name: str
    completed_at: datetime | None = None

    @property
    def has_pdf(self) -> bool:
        return self.status == JobStatus.COMPLETED and bool(self.pdf_file)


def run_rows(run: Run) -> Iterator[_Row]:
    """The run's records in order, only the columns a download needs, read in chunks:
    1,000 records never sit in memory as model instances at once."""
    columns = ("index", "error", "job__job_id", "job__status", "job__error", "job__pdf_file")
    rows = run.records.order_by("index").values_list(*columns, "job__options", "job__completed_at")
    for index, error, job_id, status, job_error, pdf_file, options, done in rows.iterator(500):
        name = (options or {}).get("filename") or f"record-{index + 1}.pdf"
        yield _Row(
            index, error, job_id, status or "invalid", job_error or "", pdf_file or "", name, done
        )


def _zip_entry(name: str, when: datetime | None) -> zipfile.ZipInfo:
    """An entry dated when its PDF was made (ZIP keeps a local wall-clock time with no zone:
    the deployment's TIME_ZONE), not zipfile's default of 1 January 1980."""
    local = timezone.localtime(when or timezone.now())
    entry = zipfile.ZipInfo(name, date_time=local.timetuple()[:6])
    entry.compress_type = zipfile.ZIP_STORED
    return entry


def _failures_csv(rows: list[_Row]) -> bytes:
    """One line per record without a PDF: what a browser user needs to fix and resend.
    Errors echo tenant data, so each cell is escaped like the audit export's."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["index", "job_id", "status", "error"])
    for row in rows:
        cells = (row.index, row.job_id or "", row.status, row.error or row.job_error)
        writer.writerow([spreadsheet_cell(cell) for cell in cells])
    return out.getvalue().encode("utf-8")


def run_zip_stream(run: Run) -> Iterator[bytes]:
    """The ZIP's bytes, in chunks: each completed record's PDF under its name, then
    failures.csv when some record has no PDF. PDFs are compressed already: stored."""
    storage = storages["reports"]
    sink = _Sink()
    failures: list[_Row] = []
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for row in run_rows(run):
            if not row.has_pdf:
                failures.append(row)
                continue
            handle: IO[bytes]
            with (
                storage.open(row.pdf_file, "rb") as handle,
                archive.open(_zip_entry(row.name, row.completed_at), "w") as entry,
            ):
                while chunk := handle.read(CHUNK_BYTES):
                    entry.write(chunk)
                    yield sink.take()
        if failures:
            archive.writestr(_zip_entry(FAILURES_NAME, None), _failures_csv(failures))
    yield sink.take()


_DONE = object()


async def run_zip_stream_async(run: Run) -> AsyncIterator[bytes]:
    """run_zip_stream for an ASGI server, a chunk at a time: Django would otherwise read a
    sync iterator whole into memory before sending its first byte. Each step runs on the
    one thread that serves sync code (thread_sensitive), where the database cursor is."""
    chunks = run_zip_stream(run)
    step = sync_to_async(lambda: next(chunks, _DONE))
    while (chunk := await step()) is not _DONE:
        yield chunk  # type: ignore[misc]


def run_zip_name(run: Run) -> str:
    slug = run.template.slug if run.template else "run"
    return f"{slug}-{run.run_id.hex[:8]}.zip"


def run_combined_name(run: Run) -> str:
    slug = run.template.slug if run.template else "run"
    return f"{slug}-{run.run_id.hex[:8]}.pdf"
