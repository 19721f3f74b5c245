"""Fault points for chaos tests: off unless PDF_FAULT_INJECTION is set (never in production).

A job opts in through its data, e.g. `{"__fault__": {"sleep": 5}}`, so a test can hold a
render open long enough to kill its worker, or make a job that kills its own worker.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings


def fault_before_render(data: dict[str, Any], tick: Callable[[], None]) -> None:
    if not settings.PDF_FAULT_INJECTION or not isinstance(data.get("__fault__"), dict):
        return
    spec = data["__fault__"]
    if spec.get("kill_child"):
        os.kill(os.getpid(), signal.SIGKILL)
    deadline = time.monotonic() + float(spec.get("sleep", 0))
    while time.monotonic() < deadline:
        try:
            time.sleep(0.1)
            tick()
        except SoftTimeLimitExceeded:
            # Stands in for C code that never returns to the interpreter: only the hard
            # time limit can stop it.
            if not spec.get("ignore_soft_limit"):
                raise
