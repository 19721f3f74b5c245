"""Tenant JavaScript (Handlebars templates and their helpers) runs in a child process,
one render per process, never in the process that asks for it.

V8's heap limit does not cover ArrayBuffers and a time limit only stops the isolate, so
the render runs in `v8_child.py` under RLIMIT_DATA and a deadline after which it is
killed: a helper that allocates 390 MB or loops forever fails its own render, and the
worker (or thread) that asked carries on. Each render has a process of its own, so no
tenant's render waits behind another's, and none can leave state for the next. One spare
child is kept started (V8 up, handlebars.js loaded, waiting on stdin), so a render pays
no start-up; the child gets an empty environment, so no secret reaches tenant code.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rendering.errors import LimitExceeded, RenderError

_CHILD = Path(__file__).with_name("v8_child.py")
# Beyond the template's own time limit: the child's start (when no spare was ready) and
# reading the answer. Past it the child is killed.
_GRACE_SECONDS = 5.0
_EXIT_OUT_OF_MEMORY = 71

_lock = threading.Lock()
_spare: tuple[int, subprocess.Popen[bytes]] | None = None


def _spawn() -> subprocess.Popen[bytes]:
    return subprocess.Popen(  # noqa: S603 - our own script, no shell, fixed arguments
        [sys.executable, "-I", str(_CHILD)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"LANG": "C.UTF-8"},
        close_fds=True,
        start_new_session=True,  # a terminal's Ctrl-C goes to the worker, which kills it
    )


def _take() -> subprocess.Popen[bytes]:
    """The spare child if it is ready and ours (not inherited through a fork), and a new
    spare started for the next render."""
    global _spare
    with _lock:
        spare, _spare = _spare, None
        child = None
        if spare is not None and spare[0] == os.getpid() and spare[1].poll() is None:
            child = spare[1]
        if child is None:
            child = _spawn()
        _spare = (os.getpid(), _spawn())
    return child


def _kill(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is None:
        child.kill()
    child.communicate()


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
    child = _take()
    too_slow = LimitExceeded(f"The template took longer than {timeout_ms} ms to render.")
    too_big = LimitExceeded(f"The template used more than {memory_mb} MB of memory to render.")
    try:
        out, _err = child.communicate(payload, timeout=timeout_ms / 1000 + _GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        _kill(child)
        raise too_slow from None
    except BaseException:  # a Celery soft time limit, or any other interruption
        _kill(child)
        raise
    if child.returncode == _EXIT_OUT_OF_MEMORY or child.returncode in (
        -signal.SIGTRAP,  # V8's fatal out-of-memory
        -signal.SIGABRT,
        -signal.SIGSEGV,
        -signal.SIGKILL,  # the kernel's OOM killer
    ):
        raise too_big
    if not out:
        raise RenderError("The template render stopped unexpectedly.")
    result: dict[str, Any] = json.loads(out)
    if result.get("limit") == "time":
        raise too_slow
    if result.get("limit") == "memory" or "allocation failed" in str(result.get("message")):
        raise too_big
    return result
