"""A run's combined PDF: claimed once (compare-and-set on the run's row), built on a worker
spooled to disk and kept in report storage against the run; a download only serves it."""

from __future__ import annotations

import io
import logging
import tempfile
from dataclasses import dataclass
from datetime import timedelta
from uuid import UUID

from django.conf import settings
from django.core.files import File
from django.core.files.storage import storages
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from runs import dispatch
from runs.models import Run
from runs.output import run_rows

logger = logging.getLogger(__name__)

# The merged PDF stays in memory up to this size, then goes to a temporary file.
SPOOL_BYTES = 8 * 1024 * 1024
# Progress is written to the run's row once per this many merged PDFs.
PROGRESS_EVERY = 25


@dataclass(frozen=True)
class CombinedState:
    """The stored file's key once built ("" while being prepared) and how far the build is."""

    key: str
    done: int
    total: int

    @property
    def progress(self) -> int:
        return 100 if self.key or not self.total else min(99, self.done * 100 // self.total)


def run_combined_prepare(*, run: Run) -> CombinedState:
    """The combined PDF of a finished run if it is built; else claim its build (at most one
    claim per run at a time: a conditional UPDATE, so of many concurrent downloads one
    sends the build and the others only read its progress) and say how far it is."""
    if run.combined_file:
        return CombinedState(key=run.combined_file, done=run.completed, total=run.completed)
    now = timezone.now()
    dead = now - timedelta(seconds=settings.RUN_COMBINED_BUILD_SECONDS)
    claimed = (
        Run.objects.filter(pk=run.pk, combined_file="", finished_at=run.finished_at)
        .filter(Q(combined_started_at__isnull=True) | Q(combined_started_at__lt=dead))
        .update(combined_started_at=now, combined_done=0)
    )
    if claimed:
        run_id = run.run_id
        transaction.on_commit(lambda: dispatch.run_combine_enqueue(run_id=run_id))
        # Just claimed: nothing is built yet. Not read back, since outside a transaction the
        # build is sent at once, and a fast worker could finish before the read and this
        # answer would say nothing of the build it started.
        return CombinedState(key="", done=0, total=run.completed)
    key, done = Run.objects.filter(pk=run.pk).values_list("combined_file", "combined_done").get()
    return CombinedState(key=key, done=run.completed if key else done, total=run.completed)


def preparing_message(state: CombinedState) -> str:
    return (
        f"The combined PDF is being prepared ({state.done} of {state.total} PDFs merged); "
        "try the same link again in a few seconds."
    )


def _stored_name(run: Run) -> str:
    # One name per finished state of the run: a build for an older state never overwrites
    # a newer one's file.
    version = run.finished_at.strftime("%Y%m%dT%H%M%S%f") if run.finished_at else "x"
    return f"runs/{run.run_id}/combined-{version}.pdf"


def _combined_metadata(run: Run, records: int) -> dict[str, str]:
    """A title a PDF reader shows in its window and tab instead of the file's key."""
    name = run.template.name if run.template else "Run"
    plural = "record" if records == 1 else "records"
    return {
        "/Title": f"{name}: run {run.run_id.hex[:8]} ({records} {plural})",
        "/Producer": "pdfreports",
    }


def run_combined_build(*, run_id: UUID | str) -> str:
    """Merge each completed record's PDF in record order, one bookmark per record named like
    its file, into a spooled temporary file; store it and keep its key on the run unless
    the run changed meanwhile (a retry), in which case the file is dropped."""
    run = Run.objects.filter(run_id=run_id).first()
    if run is None or run.combined_file or not run.is_finished or not run.combined_started_at:
        return "nothing_to_build"
    current = Run.objects.filter(
        pk=run.pk, finished_at=run.finished_at, combined_started_at=run.combined_started_at
    )
    from pypdf import PdfWriter  # imported when used: the API's URL conf imports this module

    storage = storages["reports"]
    writer = PdfWriter()
    done = 0
    for row in run_rows(run):
        if not row.has_pdf:
            continue
        with storage.open(row.pdf_file, "rb") as handle:
            writer.append(io.BytesIO(handle.read()), outline_item=row.name[:-4])
        done += 1
        if done % PROGRESS_EVERY == 0:
            current.update(combined_done=done)
    writer.add_metadata(_combined_metadata(run, done))
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as out:
        writer.write(out)
        out.seek(0)
        key = storage.save(_stored_name(run), File(out))
    if not current.update(combined_file=key, combined_done=done):
        storage.delete(key)
        logger.info("run %s changed while its combined PDF was built; dropped", run_id)
        return "run_changed"
    _older_dropped(run, keep=key)
    return "built"


def _older_dropped(run: Run, *, keep: str) -> None:
    """The files of the run's earlier states (before a retry), which nothing points at."""
    storage = storages["reports"]
    folder = f"runs/{run.run_id}"
    try:
        _, names = storage.listdir(folder)
        for name in names:
            path = f"{folder}/{name}"
            if name.startswith("combined-") and path != keep:
                storage.delete(path)
    except (OSError, NotImplementedError):
        logger.warning("could not drop run %s's earlier combined PDFs", run.run_id)
