"""A background beat of a long-running process: a daemon thread that does one step at
once and then every so many seconds until stopped (a worker's health checks, its renderer
watch, its presence stamp)."""

from __future__ import annotations

import threading
from collections.abc import Callable


class DaemonLoop:
    """Calls `step` at once, then again every `seconds()` (read each time, as settings
    are) until `stop()`. `step` deals with its own errors: one it lets out ends the thread."""

    def __init__(self, name: str, step: Callable[[], None], seconds: Callable[[], float]) -> None:
        self._step = step
        self._seconds = seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while True:
            self._step()
            if self._stop.wait(self._seconds()):
                return

    def stop(self) -> None:
        self._stop.set()
