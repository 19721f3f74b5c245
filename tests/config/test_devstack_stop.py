"""`make run` stopped as a person stops it: Ctrl-C stops web, workers, beat and the embedded
Redis in under 5 s. A module of its own, so its stack is its own: stopping the one that
test_devstack_console.py's tests share would fail whichever of them ran after it."""

from __future__ import annotations

import os
import re
import signal
import time

import psutil
import pytest

from tests.config.test_devstack_console import devstack  # noqa: F401 - a stack of this module's
from tests.markers import HARNESS_GROUP

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300), pytest.mark.xdist_group(HARNESS_GROUP)]


def test_ctrl_c_stops_everything_in_under_5_seconds(devstack):  # noqa: F811 - the fixture
    # After the start's work, as a person's Ctrl-C comes: the gallery's thumbnails warmed
    # (as test_devstack_console waits for them), then idle.
    thumbnails = devstack.var_dir / "log" / "thumbnails.log"
    deadline = time.monotonic() + 180
    while thumbnails.read_text().count("Thumbnail of ") < 5:
        assert time.monotonic() < deadline, thumbnails.read_text()
        time.sleep(1)
    # Idle first: no process has logged anything for 3 s (a preview that outlived its
    # caller's time limit may still be rendering).
    logs = sorted((devstack.var_dir / "log").glob("*.log"))
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if time.time() - max(log.stat().st_mtime for log in logs) > 3:
            break
        time.sleep(0.5)
    children = psutil.Process(devstack.process.pid).children(recursive=True)
    assert len(children) >= 5  # web, three workers (and their pool children), beat, Redis
    started = time.monotonic()
    os.killpg(devstack.process.pid, signal.SIGINT)  # what the terminal sends on Ctrl-C
    devstack.process.wait(timeout=30)
    took = time.monotonic() - started
    assert devstack.process.returncode == 0
    assert took < 5, devstack.output()[-500:]
    assert re.search(r"devstack: stopped in \d+\.\d s$", devstack.output().rstrip())
    assert "killed" not in devstack.output().splitlines()[-1]
    alive = [child for child in children if child.is_running() and child.status() != "zombie"]
    assert alive == []
