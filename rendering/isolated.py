"""Run one template render in a forked child with a memory ceiling and a hard deadline.

A single C call such as `"x".ljust(2 ** 31)` allocates gigabytes at once and no time
check can interrupt it. In a child process the address-space limit (RLIMIT_AS) turns it
into a MemoryError, and the deadline into SIGKILL, while the Celery worker (or web
process) that forked it keeps running. The child inherits the compiled template and the
data, so nothing is serialised on the way in; only the result comes back, through a pipe.
"""

from __future__ import annotations

import os
import pickle
import resource
import select
import signal
import time
from collections.abc import Callable
from typing import Any, TypeVar

from rendering.errors import LimitExceeded, RenderError, html_too_large
from rendering.limits import Limits
from rendering.rlimits import rlimit_cap

_CHUNK = 1 << 20
_EXIT_OUT_OF_MEMORY = 71
# What the work returns: HTML for the engines, a filled .docx for Word templates.
_Result = TypeVar("_Result")


def _address_space_now() -> int:
    # /proc/self/statm: total program size in pages (what RLIMIT_AS counts).
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _child(work: Callable[[], object], write_fd: int, memory_bytes: int) -> None:
    code = 0
    try:
        rlimit_cap(resource.RLIMIT_AS, used=_address_space_now(), budget=memory_bytes)
        try:
            payload: tuple[Any, ...] = ("ok", work())
        except MemoryError:
            payload = ("memory",)
        except RenderError as exc:
            payload = ("error", type(exc), exc.message, exc.line, exc.code, exc.http_status)
        with os.fdopen(write_fd, "wb") as out:
            out.write(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
    except MemoryError:
        code = _EXIT_OUT_OF_MEMORY
    except BaseException:  # anything else is reported as a crash by the parent
        code = 70
    finally:
        os._exit(code)  # never run the parent's atexit handlers or close its connections


def _read_all(fd: int, pid: int, *, seconds: float, max_bytes: int) -> bytes | None:
    """Everything the child writes, or None if it ran past `seconds` (it is then killed)."""
    chunks: list[bytes] = []
    size = 0
    ends = time.monotonic() + seconds
    while True:
        remaining = ends - time.monotonic()
        if remaining <= 0:
            os.kill(pid, signal.SIGKILL)
            return None
        readable, _, _ = select.select([fd], [], [], remaining)
        if not readable:
            continue
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes:  # the child caps its output; this only guards the parent
            os.kill(pid, signal.SIGKILL)
            raise html_too_large(max_bytes)
        chunks.append(chunk)


def run_isolated(work: Callable[[], _Result], limits: Limits) -> _Result:
    """Return `work()` computed in a forked child under the template limits (time, memory,
    output size); raise LimitExceeded past one of them, and re-raise its RenderError."""
    seconds = limits.template_timeout_ms / 1000
    memory_bytes = limits.template_max_memory_mb << 20
    max_bytes = limits.max_html_bytes
    timeout_message = f"The template took longer than {limits.template_timeout_ms} ms to render."
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns
        os.close(read_fd)
        _child(work, write_fd, memory_bytes)
    os.close(write_fd)
    reaped = False
    try:
        raw = _read_all(read_fd, pid, seconds=seconds, max_bytes=max_bytes * 4 + _CHUNK)
        _, status = os.waitpid(pid, 0)
        reaped = True
    finally:
        os.close(read_fd)
        if not reaped:  # a Celery soft time limit (or any exception) interrupted the wait
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    out_of_memory = LimitExceeded(
        f"The template used more than the {memory_bytes >> 20} MB of memory allowed."
    )
    if raw is None:
        raise LimitExceeded(timeout_message)
    if not raw:
        if os.waitstatus_to_exitcode(status) == _EXIT_OUT_OF_MEMORY or os.WIFSIGNALED(status):
            raise out_of_memory
        raise RenderError("The template render stopped unexpectedly.")
    payload = pickle.loads(raw)  # noqa: S301 - written by our own forked child
    if payload[0] == "ok":
        result: _Result = payload[1]
        return result
    if payload[0] == "memory":
        raise out_of_memory
    _, error_type, message, line, code, http_status = payload
    raise error_type(message, line=line, code=code, http_status=http_status)
