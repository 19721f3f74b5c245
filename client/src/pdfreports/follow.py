"""Following a job until it ends, shared by the sync and async clients: which transport,
how long to wait, and which updates are new (events are applied in `seq` order)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
from httpx_sse import EventSource, ServerSentEvent, SSEError

# httpx-sse's own parser of the stream's lines (what its iter_sse runs), fed one line at a
# time so that the deadline is checked between lines (see Tracker.stream_line).
from httpx_sse._decoders import SSEDecoder

from pdfreports import protocol
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
    # Whether the stream attempt under way has delivered an event (see stream_attempts).
    delivered: bool = False
    # The parser of the stream attempt under way (see stream_opened).
    decoder: SSEDecoder = field(default_factory=SSEDecoder)

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

    def stream_attempts(self, job_id: str) -> Iterator[dict[str, Any]]:
        """The event stream's requests to open (`connect_sse`'s url, headers, timeout),
        one per attempt, each resuming after the last event seen: until the job ends, or
        SSE_MAX_FAILURES attempts in a row delivered nothing."""
        failures = 0
        while failures < SSE_MAX_FAILURES and not self.state.finished:
            self.check_deadline()
            self.delivered = False
            yield {
                "url": protocol.job_path(job_id, "/events"),
                "headers": {"Last-Event-ID": str(self.state.seq)},
                "timeout": httpx.Timeout(10.0, read=self.sse_read_timeout()),
            }
            failures = 0 if self.delivered else failures + 1

    def stream_opened(self, source: EventSource) -> None:
        """Start reading `source`'s lines as events; SSEError if it is not an event stream
        (something in between rewrote the answer): the check httpx-sse's iter_sse makes."""
        source._check_content_type()
        self.decoder = SSEDecoder()

    def stream_line(self, line: str) -> bool:
        """Apply one line of the event stream; True once the job has ended. The stream is
        read line by line, not event by event, so that the deadline is checked on every
        line: the service's heartbeat is a comment, which makes no event, so a wait that
        looked at the deadline only between events never saw `timeout` pass while the
        stream stayed open (a job that never started kept `wait(timeout=90)` for ever)."""
        self.check_deadline()
        event = self.decoder.decode(line)
        return event is not None and self.stream_event(event)

    def stream_event(self, event: ServerSentEvent) -> bool:
        """Apply one event (comments carry no data); True once the job has ended."""
        if event.data:
            self.accept(JobState.from_json(event.json()))
            self.delivered = True
        return self.state.finished

    def stream_broke(self, exc: httpx.TransportError) -> bool:
        """After the stream raised `exc`: True to give it up for polling, False to resume
        it after the last event seen (it only broke)."""
        if isinstance(exc, SSEError):
            return True  # not an event stream: something in between rewrote the answer
        if isinstance(exc, httpx.ReadTimeout):
            self.check_deadline()
            return True  # silent past the heartbeat: a buffering proxy; poll instead
        return False

    def result(self, *, raise_on_failure: bool) -> JobState:
        if raise_on_failure and self.state.finished and not self.state.succeeded:
            raise JobFailed(self.state)
        return self.state
