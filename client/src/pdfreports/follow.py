"""Following a job until it ends, shared by the sync and async clients: which transport,
how long to wait, and which updates are new (events are applied in `seq` order)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from pdfreports.errors import JobFailed, WaitTimeout
from pdfreports.models import JobState

Transport = Literal["auto", "sse", "poll"]
OnUpdate = Callable[[JobState], None]

# The service sends an SSE comment every SSE_HEARTBEAT_SECONDS (15 s by default). A stream
# silent for longer than this is held by a buffering proxy, so polling is the better bet.
SSE_IDLE_SECONDS = 40.0
# A stream that keeps breaking before it delivers anything is given up for polling.
SSE_MAX_FAILURES = 3


@dataclass
class Tracker:
    """The newest state seen, the caller's deadline, and the update callback."""

    state: JobState
    timeout: float | None
    on_update: OnUpdate | None = None
    started: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        if self.on_update:
            self.on_update(self.state)

    def accept(self, new: JobState) -> JobState:
        """Keep `new` if it is newer than what was seen (a resumed stream may repeat)."""
        if new.seq > self.state.seq or (new.finished and not self.state.finished):
            self.state = new
            if self.on_update:
                self.on_update(new)
        return self.state

    def remaining(self) -> float | None:
        if self.timeout is None:
            return None
        return self.timeout - (time.monotonic() - self.started)

    def check_deadline(self) -> None:
        left = self.remaining()
        if left is not None and left <= 0:
            raise WaitTimeout(self.state, self.timeout or 0)

    def sse_read_timeout(self) -> float:
        left = self.remaining()
        return SSE_IDLE_SECONDS if left is None else max(0.1, min(SSE_IDLE_SECONDS, left))

    def poll_delay(self, interval: float) -> float:
        left = self.remaining()
        return interval if left is None else max(0.0, min(interval, left))

    def result(self, *, raise_on_failure: bool) -> JobState:
        if raise_on_failure and self.state.finished and not self.state.succeeded:
            raise JobFailed(self.state)
        return self.state
