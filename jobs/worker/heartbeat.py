"""A running attempt's heartbeat: stamps heartbeat_at while the render runs, and notices
within PDF_CANCEL_CHECK_SECONDS when the job was taken away (cancelled, or re-claimed
after this attempt was presumed dead), then stops the render (`on_lost`).

A cancelled job whose render has not stopped yet keeps its heartbeat fresh, so it counts
as in flight and busy (jobs.quotas) until this attempt lets go; letting go clears it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import TracebackType
from uuid import UUID

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from jobs.models import JobStatus, PdfJob


class Heartbeat:
    def __init__(
        self, *, job_id: UUID | str, worker: str, on_lost: Callable[[], None] | None = None
    ) -> None:
        self.job_id = job_id
        self.worker = worker
        self.on_lost = on_lost
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="job-heartbeat", daemon=True)

    def beat(self) -> bool:
        """Stamp the heartbeat; False (and `lost` set) once the job is no longer ours."""
        still_ours = (
            PdfJob.objects.filter(job_id=self.job_id, worker=self.worker)
            .filter(status=JobStatus.PROCESSING)
            .update(heartbeat_at=timezone.now())
        )
        if not still_ours and not self._still_processing():
            self._lose()
            return False
        return True

    def _still_processing(self) -> bool:
        """False once the row says the job is no longer this attempt's (cancelled, taken
        over); a row this connection cannot see (the claim not committed yet) is not that."""
        row = PdfJob.objects.filter(job_id=self.job_id).values_list("status", "worker").first()
        return row is None or row == (JobStatus.PROCESSING, self.worker)

    def _lose(self) -> None:
        if not self.lost.is_set():
            self.lost.set()
            if self.on_lost is not None:
                self.on_lost()

    def _hold(self) -> None:
        """Still rendering a job that was cancelled: keep counting it as busy."""
        PdfJob.objects.filter(
            job_id=self.job_id, worker=self.worker, status=JobStatus.CANCELLED
        ).update(heartbeat_at=timezone.now())

    def _run(self) -> None:
        check = min(settings.PDF_CANCEL_CHECK_SECONDS, settings.PDF_HEARTBEAT_SECONDS)
        last_beat = time.monotonic()
        try:
            while not self._stop.wait(check):
                close_old_connections()
                if self.lost.is_set():
                    self._hold()
                    continue
                if time.monotonic() - last_beat >= settings.PDF_HEARTBEAT_SECONDS:
                    last_beat = time.monotonic()
                    if not self.beat():
                        self._hold()
                elif not self._still_processing():
                    self._lose()
                    self._hold()
        finally:
            connection.close()  # this thread's own connection

    def release(self) -> None:
        """The render has stopped: a cancelled job stops counting as busy."""
        PdfJob.objects.filter(
            job_id=self.job_id, worker=self.worker, status=JobStatus.CANCELLED
        ).update(heartbeat_at=None)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        if self.lost.is_set():  # a cancel noticed later is let go of by the completion
            self.release()
