"""Coalesced progress: a running job's stage reaches the database and its followers at
most once per PDF_PROGRESS_INTERVAL_MS, counted from the claim."""

from __future__ import annotations

import time

from django.conf import settings


class ProgressThrottle:
    def __init__(self, *, interval_ms: int | None = None) -> None:
        interval = settings.PDF_PROGRESS_INTERVAL_MS if interval_ms is None else interval_ms
        self.interval = interval / 1000
        self.last = time.monotonic()  # the claim was the last write

    def due(self) -> bool:
        """True (and the clock restarted) when a progress write may go out now; the
        stages in between are skipped, the completion carries the final state."""
        now = time.monotonic()
        if now - self.last < self.interval:
            return False
        self.last = now
        return True
