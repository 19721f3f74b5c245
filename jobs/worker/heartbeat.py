"""A running attempt's heartbeat: stamps heartbeat_at while the render runs, and notices
when the job was taken away (cancelled, or re-claimed after this attempt was presumed dead)."""

from __future__ import annotations

import threading
from types import TracebackType
from uuid import UUID

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from jobs.models import JobStatus, PdfJob


class Heartbeat:
    def __init__(self, *, job_id: UUID | str, worker: str) -> None:
        self.job_id = job_id
        self.worker = worker
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="job-heartbeat", daemon=True)

    def beat(self) -> bool:
        """Stamp the heartbeat; False (and `lost` set) once the job is no longer ours."""
        still_ours = PdfJob.objects.filter(
            job_id=self.job_id, status=JobStatus.PROCESSING, worker=self.worker
        ).update(heartbeat_at=timezone.now())
        if not still_ours:
            self.lost.set()
        return bool(still_ours)

    def _run(self) -> None:
        try:
            while not self._stop.wait(settings.PDF_HEARTBEAT_SECONDS):
                close_old_connections()
                if not self.beat():
                    return
        finally:
            connection.close()  # this thread's own connection

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
