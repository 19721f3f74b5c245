"""Interrupt pure-Python work (a Jinja render, a layout) that runs past its time limit or
whose job was cancelled."""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class DeadlineExceeded(BaseException):
    """Raised inside the guarded thread; a BaseException so template code cannot swallow it."""


def _set_async_exc(thread_id: int, exc: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else ctypes.c_void_p(0)
    )


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
        with lock:
            state["active"] = False
            pending = state["timer"]
            if isinstance(pending, threading.Timer):
                pending.cancel()
            if state["fired"]:
                _set_async_exc(target, None)  # clear it if it has not been delivered yet


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
