"""Run one template render in a forked child with a memory ceiling and a hard deadline.

A single C call such as `"x".ljust(2 ** 31)` allocates gigabytes at once and no time
check can interrupt it. In a child process the address-space limit (RLIMIT_AS) turns it
into a MemoryError, and the deadline into SIGKILL, while the Celery worker (or web
process) that forked it keeps running. The child inherits the compiled template and the
data, so nothing is serialised on the way in; only the result comes back, through a pipe.
A child that has sent its result is reaped later (reap_exited), not waited for.
"""

from __future__ import annotations

import os
import pickle
import resource
import select
import signal
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from rendering.cpu_budget import WALL_CAP_FACTOR, CpuBudget, process_cpu_seconds
from rendering.errors import LimitExceeded, RenderError, html_too_large, template_too_slow
from rendering.limits import Limits
from rendering.rlimits import rlimit_cap

_CHUNK = 1 << 20
_EXIT_OUT_OF_MEMORY = 71
# What the work returns: HTML for the engines, a filled .docx for Word templates.
_Result = TypeVar("_Result")
# Children that sent a whole result and were still exiting when the parent had it. A
# worker-sized process (150-200 MB) takes 5-8 ms to exit (its address space torn down),
# time the job would wait for nothing: after its result the child runs no more of the
# template (it closes the pipe and calls os._exit), and its limits stay on it until it is
# gone. They are reaped by the next render and by reap_exited (rendering.report calls it
# once LibreOffice has converted a Word template's fill). Threads of one process share it.
_exiting: set[int] = set()
_exiting_lock = threading.Lock()


def reap_exited() -> None:
    """Reap the children that sent their result and have exited since; leave the others."""
    with _exiting_lock:
        pids = list(_exiting)
    for pid in pids:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # reaped already (another thread, a SIGCHLD handler)
            done = pid
        if done:
            with _exiting_lock:
                _exiting.discard(pid)


def exiting_count() -> int:
    """How many children that sent their result are not reaped yet (tests, metrics)."""
    with _exiting_lock:
        return len(_exiting)


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
    """Everything the child writes, or None once it has spent `seconds` of its own CPU time
    or WALL_CAP_FACTOR times that of wall time (it is then killed)."""
    chunks: list[bytes] = []
    size = 0
    budget = CpuBudget(
        seconds, lambda: process_cpu_seconds(pid), wall_cap=seconds * WALL_CAP_FACTOR
    )
    while True:
        remaining = budget.left()
        if not remaining:
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


def _reap_later(pid: int) -> None:
    """Reap the child if it has exited already, else keep it for reap_exited."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # reaped already (a SIGCHLD handler): its result is whole
        return
    if not done:
        with _exiting_lock:
            _exiting.add(pid)


def run_isolated(work: Callable[[], _Result], limits: Limits) -> _Result:
    """Return `work()` computed in a forked child under the template limits (time, memory,
    output size); raise LimitExceeded past one of them, and re-raise its RenderError."""
    seconds = limits.template_timeout_ms / 1000
    memory_bytes = limits.template_max_memory_mb << 20
    max_bytes = limits.max_html_bytes
    reap_exited()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns
        os.close(read_fd)
        _child(work, write_fd, memory_bytes)
    os.close(write_fd)
    reaped = False
    status = 0
    try:
        raw = _read_all(read_fd, pid, seconds=seconds, max_bytes=max_bytes * 4 + _CHUNK)
        if raw:  # its result (written at once, then os._exit): its exit is not waited for
            _reap_later(pid)
        else:  # killed past the deadline, or no result: its exit status says why
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
        raise template_too_slow(limits.template_timeout_ms)
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
