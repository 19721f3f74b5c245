"""Interrupt pure-Python work (a Jinja render, a layout) that runs past its time limit or
whose job was cancelled.

CPython can raise an exception in another thread at that thread's next check of its eval
loop, which is exactly what a runaway loop executes; a thread cannot be killed. Such a
delivery can land anywhere, and one check follows every call of a C function: where code
takes a lock inside a Python function and enters the `try` that gives it back only after it
returns, a delivery there leaves the lock held for ever. Two places matter here:

- the thread being interrupted must not start, wait on or cancel a thread or an `Event`
  while a delivery can reach it (`Condition.__enter__` is such a function: a render thread
  stopped while its deadline's `threading.Timer` started waited for ever for the timer to
  start). One watchdog thread per process times every block instead; a block registers and
  leaves under a plain lock taken with `with`, which a delivery cannot strand;
- `logging` takes its locks that way (`_acquireLock()`, `Handler.acquire()`), and a layout
  logs: when an interrupted block ends, its thread releases whatever logging lock it still
  holds (`_logging_locks_released`).
"""

from __future__ import annotations

import ctypes
import logging
import math
import os
import threading
import time
import weakref
from collections.abc import Callable
from contextlib import AbstractContextManager
from types import TracebackType

# How often the watchdog looks for a delivery that is due: a deadline is met within this.
_TICK = 0.05
# A delivery is repeated this often until the block is left: library code (a layout
# engine's `except BaseException`, a finaliser) may swallow one.
_AGAIN = 0.5


class DeadlineExceeded(BaseException):
    """Raised inside the guarded thread; a BaseException so template code cannot swallow it."""


class Interrupted(BaseException):
    """Raised inside an interruptible block when another thread stops it (the job was
    cancelled); a BaseException so neither template code nor a library swallows it."""


def _set_async_exc(thread_id: int, exc: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else ctypes.c_void_p(0)
    )


def _logging_locks_released() -> None:
    """Release the logging locks this thread still holds once its deliveries are over.

    A delivery just after logging took a lock (a thread adding and removing a handler in a
    loop kept logging's module lock in about one delivery in three) leaves it held by this
    thread. The thread goes on (the locks are re-entrant), but every other thread that then
    logs or makes a logger waits on it for ever: a worker's heartbeat, or the next render on
    another thread adding its warnings handler. No render runs inside a logging call, so
    once the block is left the thread holds none of them legitimately."""
    module_lock = getattr(logging, "_lock", None)
    handlers = (ref() for ref in list(getattr(logging, "_handlerList", ())))
    locks = [module_lock, *(getattr(handler, "lock", None) for handler in handlers)]
    for lock in locks:
        while lock is not None and getattr(lock, "_is_owned", lambda: False)():
            lock.release()


class _Delivery:
    """One block's exception: the thread it is raised in, and when it is (next) due."""

    __slots__ = ("block", "due", "exc_type", "fired", "target", "thread")

    def __init__(
        self, block: _RaiseHere, target: int, exc_type: type[BaseException], due: float
    ) -> None:
        # The block, weakly: the `with` statement holds it while it runs, so a registration
        # whose `__exit__` never ran (below) ends with the block object.
        self.block = weakref.ref(block)
        self.target = target
        self.thread = threading.current_thread()
        self.exc_type = exc_type
        self.due = due
        self.fired = False


class _Watchdog:
    """The process's one thread that raises due exceptions in their threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.blocks: dict[int, _Delivery] = {}
        self.pid = 0

    def deliver(self, delivery: _Delivery) -> None:
        """Raise the block's exception in its thread now and again in _AGAIN seconds; the
        caller holds self.lock, which a block leaving takes too, so nothing is raised in a
        thread after its block is left."""
        delivery.fired = True
        delivery.due = time.monotonic() + _AGAIN
        _set_async_exc(delivery.target, delivery.exc_type)

    def watch(self) -> None:
        while True:
            time.sleep(_TICK)
            now = time.monotonic()
            with self.lock:
                for key, delivery in list(self.blocks.items()):
                    if delivery.block() is None or not delivery.thread.is_alive():
                        del self.blocks[key]  # left; never raised in another's thread id
                    elif delivery.due <= now:
                        self.deliver(delivery)

    def started(self) -> _Watchdog:
        """This watchdog with its thread running in this process (a forked child has none).
        Called as the block registers: the thread is started by the process's first block,
        before any delivery can reach the thread starting it."""
        if self.pid != os.getpid():
            with _start_lock:
                if self.pid != os.getpid():
                    threading.Thread(
                        target=self.watch, name="deadline-watchdog", daemon=True
                    ).start()
                    self.pid = os.getpid()
        return self

    def forked(self) -> None:
        """In a forked child: the parent's blocks are not this process's, and its lock may
        have been held by the parent's watchdog at the fork."""
        self.lock = threading.Lock()
        self.blocks = {}
        self.pid = 0


_start_lock = threading.Lock()
_watchdog = _Watchdog()
os.register_at_fork(after_in_child=_watchdog.forked)


class _RaiseHere:
    """A block in which `fire()`, called from any thread, raises `exc_type` in the block's
    thread at its next bytecode, and again every 0.5 s until the block is left; the
    watchdog fires it `after` seconds into the block. Once fired, whatever comes out of the
    block is `exc_type`: a library may turn the delivery into an error of its own
    (ReportLab's final formatting answers with a KeyError).

    A delivery from an outer block can land at any call, `__exit__`'s own start included,
    and a registration that outlived its block would fire later into the thread, outside
    any block, or into a later thread given its id (a busy thread of a later test met a
    DeadlineExceeded). So `__enter__` undoes its registration if anything lands after it,
    `__exit__` undoes it, and where `__exit__` was cut short the watchdog drops it once the
    block object is gone (the `with` statement held the only reference) or its thread
    ended."""

    def __init__(self, exc_type: type[BaseException], after: float) -> None:
        self.exc_type = exc_type
        self.after = after

    def __enter__(self) -> Callable[[], None]:
        watchdog = _watchdog.started()
        due = time.monotonic() + self.after
        delivery = _Delivery(self, threading.get_ident(), self.exc_type, due)
        self.watchdog, self.delivery, self.key = watchdog, delivery, id(delivery)
        try:
            with watchdog.lock:
                watchdog.blocks[self.key] = delivery
        except BaseException:
            self._leave()
            raise
        return self.fire

    def fire(self) -> None:
        with self.watchdog.lock:
            if self.watchdog.blocks.get(self.key) is self.delivery:
                self.watchdog.deliver(self.delivery)

    def _leave(self) -> None:
        delivery = self.delivery
        try:
            with self.watchdog.lock:
                self.watchdog.blocks.pop(self.key, None)  # first: nothing is set after this
                if delivery.fired:
                    _set_async_exc(delivery.target, None)  # if not delivered yet
        finally:
            # The one delivery of this block that can still land here was set before the
            # block left the watchdog, so this runs whole.
            if delivery.fired and threading.get_ident() == delivery.target:
                _logging_locks_released()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._leave()
        if isinstance(exc, Exception) and self.delivery.fired:
            raise self.exc_type from exc


def deadline(seconds: float) -> AbstractContextManager[object]:
    """Raise DeadlineExceeded in this thread if the block runs longer than `seconds`
    (within the watchdog's tick). A template loop with no output never yields control to
    a check of ours; the exception is raised at its next bytecode."""
    return _RaiseHere(DeadlineExceeded, after=seconds)


def interruptible() -> AbstractContextManager[Callable[[], None]]:
    """A block whose `stop()` (what it gives `as`), called from any thread, raises
    Interrupted in this thread at its next bytecode, and again every 0.5 s until the block
    is left. What stops a pure-Python layout (xhtml2pdf, WeasyPrint) at once; a thread
    waiting on a browser waits in slices so that it is delivered too."""
    return _RaiseHere(Interrupted, after=math.inf)
