"""Interrupt pure-Python work (a Jinja render) that runs past its time limit."""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class DeadlineExceeded(BaseException):
    """Raised inside the guarded thread; a BaseException so template code cannot swallow it."""


def _set_async_exc(thread_id: int, exc: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else ctypes.c_void_p(0)
    )


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise DeadlineExceeded in this thread if the block runs longer than `seconds`.

    A template loop with no output never yields control to a check of ours, and a
    thread cannot be killed; CPython can raise an exception in another thread at its
    next bytecode, which is exactly what a runaway template loop executes."""
    target = threading.get_ident()
    lock = threading.Lock()
    state = {"active": True, "fired": False}

    def fire() -> None:
        with lock:
            if state["active"]:
                state["fired"] = True
                _set_async_exc(target, DeadlineExceeded)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            state["active"] = False
            timer.cancel()
            if state["fired"]:
                _set_async_exc(target, None)  # clear it if it has not been delivered yet
