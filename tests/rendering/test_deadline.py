"""Stopping a layout from another thread (a cancelled job): pure-Python layouts and a
Chromium print both stop within about a second, not at their end."""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from rendering.deadline import DeadlineExceeded, Interrupted, deadline, interruptible
from rendering.options import parse_options
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings

# Seconds of layout on every renderer (xhtml2pdf lays 400 parts out in ~1.5 s now,
# the moment the interrupt comes), so a stop at 1.5 s always lands mid-layout.
LONG = "".join(f"<h2>Part {n}</h2><p>{'words ' * 400}</p>" for n in range(2400))
SPIN = "<script>const t = Date.now(); while (Date.now() - t < 60000) {}</script><p>x</p>"


@contextmanager
def _swallowed_deliveries() -> Iterator[list[type[BaseException] | None]]:
    """What finalisers swallowed inside the block. The interrupt is delivered at the next
    bytecode and again every 0.5 s (rendering.deadline): one that lands in a weakref
    callback or a __del__ is "ignored" there by design and delivered again, and pytest's
    own hook would report it as an error of the test (or take the delivery itself)."""
    swallowed: list[type[BaseException] | None] = []
    previous = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: swallowed.append(unraisable.exc_type)
    try:
        yield swallowed
    finally:
        sys.unraisablehook = previous


@pytest.mark.parametrize(
    ("renderer", "html"),
    [("xhtml2pdf", LONG), ("weasyprint", LONG), ("chromium", SPIN)],
)
def test_a_layout_stops_within_a_second_of_being_interrupted(renderer, html, settings):
    settings.PDF_TEMPLATE_TIMEOUT_MS = 60_000  # the page's script would spin a minute
    settings.PDF_MAX_PAGES = 5000
    # Once in a whole run (2026-12-07, WeasyPrint) the layout's thread ran no bytecode
    # for 118 s, so neither the interrupt nor the 90 s deadline was delivered until
    # pytest-timeout's signal: should it happen again, every thread's stack says where.
    faulthandler.dump_traceback_later(10, file=sys.__stderr__)
    try:
        with _swallowed_deliveries() as swallowed, interruptible() as stop:
            timer = threading.Timer(1.5, stop)
            timer.start()
            started = time.monotonic()
            with pytest.raises(Interrupted):
                report_render(
                    source=TemplateSource(engine="raw", html=html, renderer=renderer),
                    data={},
                    options=parse_options({}),
                    limits=limits_from_settings(),
                )
            took = time.monotonic() - started
    finally:
        faulthandler.cancel_dump_traceback_later()
    assert 1.4 < took < 5.0, took  # the whole layout takes ~9 s on xhtml2pdf, 60 s on Chromium
    assert set(swallowed) <= {Interrupted}, swallowed  # only our own deliveries


def test_an_interrupt_after_the_block_is_left_does_nothing():
    with interruptible() as stop:
        pass
    stop()
    time.sleep(0.7)  # past a repeat, had one been scheduled
    assert sum(range(10)) == 45  # still running normally


def _free(lock) -> bool:
    """Whether another thread could take `lock` now (it is re-entrant for its owner)."""
    taken = lock.acquire(timeout=0.5)
    if taken:
        lock.release()
    return taken


def test_an_interrupted_thread_leaves_no_logging_lock_held():
    """A delivery that lands just after logging takes a lock (its `_acquireLock()` and
    `Handler.acquire()` return before the `try` that releases it) must not leave the lock
    held once the block is left: every other thread that logs would wait on it for ever
    (a whole-suite run once stalled 118 s in a WeasyPrint render adding its warnings
    handler). Without the release, about one delivery in three left logging's lock held."""
    logger = logging.getLogger("tests.deadline.locks")
    handler = _Discarding()
    record = logger.makeRecord(logger.name, logging.WARNING, __file__, 0, "x", (), None)
    stranded = []

    def busy_logging() -> None:
        with contextlib.suppress(Interrupted), interruptible() as stop:
            threading.Timer(0.005, stop).start()
            while True:  # only logging's lock-taking calls, so the delivery lands in one
                logger.addHandler(handler)
                handler.handle(record)
                logger.removeHandler(handler)

    try:
        for _ in range(40):
            thread = threading.Thread(target=busy_logging)
            thread.start()
            thread.join(10)
            assert not thread.is_alive()
            stranded += [name for name, lock in _logging_locks(handler) if not _free(lock)]
            if stranded:
                break
    finally:
        for _, lock in _logging_locks(handler):
            if not _free(lock):  # so that a failure here does not stall every later test
                lock._at_fork_reinit()
    assert stranded == []


class _Discarding(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        pass


def _logging_locks(handler: logging.Handler) -> list[tuple[str, object]]:
    return [("logging's module lock", logging._lock), ("the handler's lock", handler.lock)]


def test_a_thread_stopped_while_it_enters_and_leaves_deadlines_is_never_left_waiting():
    """A render's deadline used to start a `threading.Timer`, and Thread.start waits on an
    Event whose Python-level locking a delivery can strand: a thread stopped there waited
    for ever (one of the first 100 such threads, every time). The watchdog that times
    every block now starts no thread per block."""

    def entering_deadlines() -> None:
        with contextlib.suppress(Interrupted), interruptible() as stop:
            threading.Timer(0.003, stop).start()
            while True:
                with deadline(30):
                    pass

    for _ in range(100):
        thread = threading.Thread(target=entering_deadlines, daemon=True)
        thread.start()
        thread.join(5)
        assert not thread.is_alive()


def test_a_deadline_in_a_child_forked_inside_a_block_is_met():
    """A template child is forked while the worker's thread is inside its interruptible
    block: the child has no watchdog thread, and the parent's blocks are not its own."""
    with interruptible():
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 1
            try:
                with deadline(0.2):
                    while True:
                        pass
            except DeadlineExceeded:
                code = 0
            finally:
                os._exit(code)
        deadline_at = time.monotonic() + 10
        while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline_at:
            time.sleep(0.01)
    if done[0] == 0:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    assert done[0] == pid  # it ended
    assert os.waitstatus_to_exitcode(done[1]) == 0  # by the deadline, not the kill


def test_no_deadline_outlives_its_block_when_a_stop_lands_as_it_is_entered():
    """A stop that lands just after a deadline registered with the watchdog must not leave
    the registration behind: it would raise DeadlineExceeded into this thread later, in
    whatever it runs then (a worker's next job), or into a later thread given the same id
    (a busy thread of a later test met one)."""
    hit: list[type[BaseException]] = []

    def stopped_as_it_enters_deadlines() -> None:
        for _ in range(50):
            with contextlib.suppress(Interrupted), interruptible() as stop:
                threading.Timer(0.002, stop).start()
                while True:
                    with deadline(0.3):
                        pass
        try:  # every block above was left: nothing may be raised here now
            ends = time.monotonic() + 1.0
            while time.monotonic() < ends:
                pass
        except DeadlineExceeded as exc:
            hit.append(type(exc))

    thread = threading.Thread(target=stopped_as_it_enters_deadlines, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive()
    assert hit == []
