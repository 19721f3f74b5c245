"""Interrupt pure-Python work (a Jinja render, a layout) that runs past its time limit or
whose job was cancelled."""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class DeadlineExceeded(BaseException):
    """Raised inside the guarded thread; a BaseException so template code cannot swallow it."""


def _set_async_exc(thread_id: int, exc: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else ctypes.c_void_p(0)
    )


def _logging_locks_released() -> None:
    """Release the logging locks this thread still holds once its deliveries are over.

    CPython raises a delivered exception at the next check of its eval loop, and one such
    check follows every call of a C function: logging's `_acquireLock()` and
    `Handler.acquire()` call `lock.acquire()` inside a Python function and enter their
    `try` only after it returns, so a delivery that lands there leaves the lock held for
    ever (a thread adding and removing a handler in a loop kept logging's module lock in
    about one delivery in three). The thread that holds it goes on (the locks are
    re-entrant), but every other thread that then logs or makes a logger waits on it for
    ever: a worker's heartbeat, or the next render on another thread adding its warnings
    handler. Whatever a layout held, it holds none of them legitimately once the block is
    left: no render runs inside a logging call."""
    module_lock = getattr(logging, "_lock", None)
    handlers = (ref() for ref in list(getattr(logging, "_handlerList", ())))
    locks = [module_lock, *(getattr(handler, "lock", None) for handler in handlers)]
    for lock in locks:
        while lock is not None and getattr(lock, "_is_owned", lambda: False)():
            lock.release()


@contextmanager
def _raise_here(exc_type: type[BaseException]) -> Iterator[Callable[[], None]]:
    """Yield `fire()`: called from any thread, it raises `exc_type` in this thread at its
    next bytecode, and again every 0.5 s until the block is left (library code, a layout
    engine's `except BaseException` or a finaliser, may swallow one delivery). Once fired,
    whatever comes out of the block is `exc_type`: a library may turn the delivery into an
    error of its own (ReportLab's final formatting answers with a KeyError)."""
    target = threading.get_ident()
    lock = threading.Lock()
    state: dict[str, object] = {"active": True, "fired": False, "timer": None}

    def fire() -> None:
        with lock:
            if not state["active"]:
                return
            state["fired"] = True
            _set_async_exc(target, exc_type)
            again = threading.Timer(0.5, fire)
            again.daemon = True
            state["timer"] = again
            again.start()

    try:
        yield fire
    except Exception as exc:
        if state["fired"]:
            raise exc_type from exc
        raise
    finally:
        try:
            with lock:
                state["active"] = False  # first: no delivery is set after this one
                pending = state["timer"]
                if state["fired"]:
                    _set_async_exc(target, None)  # clear it if it has not been delivered yet
                if isinstance(pending, threading.Timer):
                    pending.cancel()
        finally:
            # The one delivery that can still land here was set before `active` fell, so
            # this runs whole, with no delivery after it.
            if state["fired"]:
                _logging_locks_released()


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise DeadlineExceeded in this thread if the block runs longer than `seconds`.
    A template loop with no output never yields control to a check of ours, and a
    thread cannot be killed; CPython can raise an exception in another thread at its
    next bytecode, which is exactly what a runaway template loop executes."""
    with _raise_here(DeadlineExceeded) as fire:
        timer = threading.Timer(seconds, fire)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()


class Interrupted(BaseException):
    """Raised inside an interruptible block when another thread stops it (the job was
    cancelled); a BaseException so neither template code nor a library swallows it."""


@contextmanager
def interruptible() -> Iterator[Callable[[], None]]:
    """Yield `stop()`: called from any thread, it raises Interrupted in this thread at its
    next bytecode, and again every 0.5 s until the block is left. What stops a pure-Python
    layout (xhtml2pdf, WeasyPrint) at once; a thread waiting on a browser waits in slices
    so that it is delivered too."""
    with _raise_here(Interrupted) as stop:
        yield stop
