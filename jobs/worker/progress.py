"""Coalesced progress: a running job's stage reaches the database and its followers only
once the job has run for PDF_PROGRESS_FIRST_MS, then at most once per
PDF_PROGRESS_INTERVAL_MS, both counted from the claim. A job shorter than the first delay
(a one-page report) costs its claim and its completion and nothing between: its followers
see `processing` and then `completed`, as they would have a moment later anyway."""

from __future__ import annotations

import time

from django.conf import settings


class ProgressThrottle:
    def __init__(self, *, interval_ms: int | None = None, first_ms: int | None = None) -> None:
        interval = settings.PDF_PROGRESS_INTERVAL_MS if interval_ms is None else interval_ms
        first = settings.PDF_PROGRESS_FIRST_MS if first_ms is None else first_ms
        self.interval = interval / 1000
        # An interval of 0 turns coalescing off: every stage is written, the first too.
        self.first = max(first, interval) / 1000 if interval else 0.0
        self.claimed = self.last = time.monotonic()  # the claim was the last write

    def due(self) -> bool:
        """True (and the clock restarted) when a progress write may go out now; the
        stages in between are skipped, the completion carries the final state."""
        now = time.monotonic()
        if now - self.claimed < self.first or now - self.last < self.interval:
            return False
        self.last = now
        return True
