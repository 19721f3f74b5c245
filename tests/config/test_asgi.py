"""The web process's start (config/asgi.py): the URLconf built and what it loaded frozen out
of the garbage collector, whatever server imports the application."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.process  # a Python of its own: this one's collector state is the suite's
def test_a_web_process_freezes_what_it_loaded_and_builds_the_urlconf_first():
    code = (
        "import gc, json, sys; import config.asgi; "
        "print(json.dumps([gc.get_freeze_count(), len(gc.get_objects()), "
        "'jobs.api.views' in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[2],
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    frozen, tracked, views_imported = json.loads(done.stdout.strip().splitlines()[-1])
    # A full collection walked all of these with every request in the process waiting.
    assert frozen > 50_000
    assert tracked < frozen // 10
    assert views_imported  # the URLconf was built before the freeze, not by a first request
