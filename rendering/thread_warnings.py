"""What a library logs while this thread renders, for the render's warnings: the renderers
run side by side on threads of one worker, so each keeps only its own thread's records."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

MAX_WARNINGS = 50  # a broken document can log thousands; the first ones say enough
MAX_WARNING_CHARS = 300


class ThreadWarnings(logging.Handler):
    """The WARNING (and worse) records logged on the thread that made this handler, at most
    MAX_WARNINGS, each cut to MAX_WARNING_CHARS. A subclass's `kept` rewrites a message
    or passes it over (None)."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.thread = threading.get_ident()
        self.messages: list[str] = []

    def kept(self, message: str) -> str | None:
        return message

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread != self.thread or len(self.messages) >= MAX_WARNINGS:
            return
        message = self.kept(record.getMessage())
        if message is not None:
            self.messages.append(message[:MAX_WARNING_CHARS])


@contextmanager
def thread_warnings(
    logger_name: str, collector: ThreadWarnings | None = None
) -> Iterator[list[str]]:
    """The messages `collector` (by default a plain ThreadWarnings) keeps of what the
    logger `logger_name` records inside the block."""
    collector = collector or ThreadWarnings()
    logger = logging.getLogger(logger_name)
    logger.addHandler(collector)
    try:
        yield collector.messages
    finally:
        logger.removeHandler(collector)
