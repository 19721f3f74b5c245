"""`make run` starts the render workers behind the web process (WORKER_NICE)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from config import devstack

pytestmark = pytest.mark.process


def test_render_workers_start_at_worker_nice_and_the_web_does_not(monkeypatch):
    monkeypatch.setenv("WORKER_NICE", "7")
    niceness = [sys.executable, "-c", "import os; print(os.nice(0))"]
    started = os.nice(0)
    reniced = subprocess.run(niceness, preexec_fn=devstack._renice, capture_output=True, text=True)
    assert int(reniced.stdout) == min(19, started + 7)
    assert set(devstack.RENDERERS) == {"worker", "previews"}
    assert "web" not in devstack.RENDERERS
