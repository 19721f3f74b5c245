"""Tenant JavaScript (Handlebars templates and their helpers) runs in a child process,
never in the process that asks for it, and each render in a fresh V8 isolate.

V8's heap limit does not cover ArrayBuffers and a time limit only stops the isolate, so
the render runs in `v8_child.py` under RLIMIT_DATA and a budget of CPU time (the child
ends itself once its render has spent it; a child that spends none is killed at ten times
it in wall time): a helper that allocates 390 MB or loops forever fails its own render,
and the worker (or thread) that asked carries on. A child serves up to MAX_RENDERS
renders, one at a time, each in an isolate of its own started before the request came (so
a render pays no start-up and finds nothing of the one before), and is replaced at once
when a render meets a limit or fails outside the template. One whose memory stays grown
after its answer ends itself before reading another request, which then goes to another.
Renders at the same time take children of their own (idle ones are kept, up to
MAX_IDLE), so no tenant's render waits behind another's. A process start (Python, V8,
handlebars.js: ~120 ms of CPU) was paid for every render before; a fresh isolate costs
~11 ms. The child gets an empty environment, so no secret reaches tenant code.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rendering.cpu_budget import EXIT_TIME_LIMIT, WALL_CAP_FACTOR
from rendering.errors import LimitExceeded, RenderError, template_too_slow

_CHILD = Path(__file__).with_name("v8_child.py")
# Beyond the template's own time limit: the child's start (when none was ready) and
# reading the answer. Past it the child is killed.
_GRACE_SECONDS = 5.0
_EXIT_OUT_OF_MEMORY = 71
# v8_child.EXIT_RETIRED: it ended between renders (its memory stayed grown after its last
# isolate closed) without reading another request.
_EXIT_RETIRED = 75
# v8_child's first argument, when set: the growth past which it retires (tests).
_CHILD_ARGS: tuple[str, ...] = ()
MAX_RENDERS = 100
MAX_IDLE = 2

_lock = threading.Lock()


@dataclass
class _Child:
    process: subprocess.Popen[bytes]
    owner: int = field(default_factory=os.getpid)
    renders: int = 0


# Children waiting for a render, newest last (only this process's: a fork inherits none).
_idle: list[_Child] = []


def _spawn() -> _Child:
    process = subprocess.Popen(  # noqa: S603 - our own script, no shell, fixed arguments
        [sys.executable, "-I", str(_CHILD), *_CHILD_ARGS],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={"LANG": "C.UTF-8"},
        close_fds=True,
        start_new_session=True,  # a terminal's Ctrl-C goes to the worker, which kills it
    )
    return _Child(process)


def _take() -> _Child:
    """An idle child of this process that is still running, else a new one."""
    with _lock:
        while _idle:
            child = _idle.pop()
            if child.owner == os.getpid() and child.process.poll() is None:
                return child
    return _spawn()


def _give_back(child: _Child) -> None:
    with _lock:
        if len(_idle) < MAX_IDLE and child.owner == os.getpid():
            _idle.append(child)
            return
    _kill(child)  # between renders: nothing of anyone's is lost


def _replace(child: _Child) -> None:
    """Kill a child that may not be trusted any more, and have a new one ready."""
    _kill(child)
    _give_back(_spawn())


def _kill(child: _Child) -> None:
    if child.process.poll() is None:
        child.process.kill()
    child.process.wait()


def _retired(child: _Child) -> bool:
    """Whether a child whose answer did not come ended itself between renders, so the
    request sent to it was never read (it closes its pipes as it exits: waited for, not
    killed, so its own code is what is seen)."""
    try:
        return child.process.wait(timeout=_GRACE_SECONDS) == _EXIT_RETIRED
    except subprocess.TimeoutExpired:
        return False


def _exchange(child: _Child, payload: bytes, seconds: float) -> bytes | None:
    """Send one request; its answer, or None if the child ended first. Raises
    TimeoutError past `seconds`."""
    stdin, stdout = child.process.stdin, child.process.stdout
    if stdin is None or stdout is None:
        return None
    deadline = time.monotonic() + seconds
    try:
        stdin.write(len(payload).to_bytes(4, "big") + payload)
        stdin.flush()
    except BrokenPipeError:
        return None
    out = stdout.fileno()
    received = bytearray()
    wanted = 4
    while len(received) < wanted:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([out], [], [], left)[0]:
            raise TimeoutError
        chunk = os.read(out, max(wanted - len(received), 65536))
        if not chunk:
            return None
        received += chunk
        if wanted == 4 and len(received) >= 4:
            wanted = 4 + int.from_bytes(received[:4], "big")
    return bytes(received[4:])


def v8_render(
    *,
    source: str,
    data: dict[str, Any],
    helpers: str,
    timeout_ms: int,
    memory_mb: int,
    dialect: str = "handlebars",
    partials: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The render's answer ({ok, html} or {ok: false, syntax, message, line}); raise
    LimitExceeded past the time or memory limit."""
    request = {
        "source": source,
        "data": data,
        "helpers": helpers,
        "dialect": dialect,
        "partials": dict(partials or {}),
        "timeout_ms": timeout_ms,
        "memory_bytes": memory_mb << 20,
    }
    payload = json.dumps(request).encode("utf-8")
    too_slow = template_too_slow(timeout_ms)
    too_big = LimitExceeded(f"The template used more than {memory_mb} MB of memory to render.")
    # An idle child may have retired after its last answer (each at most once, and a new
    # one renders first): then the request goes to the next.
    for _ in range(MAX_IDLE + 2):
        child = _take()
        try:
            # The child stops a render at its CPU budget; this guards a child past V8's own
            # wall-clock cap (one that spends no CPU).
            seconds = timeout_ms / 1000 * WALL_CAP_FACTOR + _GRACE_SECONDS
            answer = _exchange(child, payload, seconds)
        except TimeoutError:
            _replace(child)
            raise too_slow from None
        except BaseException:  # a Celery soft time limit, or any other interruption
            _replace(child)
            raise
        if answer is not None or not _retired(child):
            break
    child.renders += 1
    if answer is None:
        _kill(child)
        _give_back(_spawn())
        if child.process.returncode == EXIT_TIME_LIMIT:
            raise too_slow
        if child.process.returncode == _EXIT_OUT_OF_MEMORY or child.process.returncode in (
            -signal.SIGTRAP,  # V8's fatal out-of-memory
            -signal.SIGABRT,
            -signal.SIGSEGV,
            -signal.SIGKILL,  # the kernel's OOM killer
        ):
            raise too_big
        raise RenderError("The template render stopped unexpectedly.")
    if answer[:1] == b"R" or child.renders >= MAX_RENDERS:
        # It ends itself after a limit (or has served its share): a new one takes its place.
        _kill(child)
        _give_back(_spawn())
    else:
        _give_back(child)
    result: dict[str, Any] = json.loads(answer[1:])
    if result.get("limit") == "time":
        raise too_slow
    if result.get("limit") == "memory" or "allocation failed" in str(result.get("message")):
        raise too_big
    return result
