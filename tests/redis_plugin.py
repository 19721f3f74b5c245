"""pytest plugin: before Django reads the test settings, start an embedded Redis when
REDIS_URL is unset, give the session a metrics directory (PROMETHEUS_MULTIPROC_DIR), and
point VAR_DIR at var/test/ (worker and web processes the tests start inherit all three).
Settings themselves never start anything."""

from __future__ import annotations

import os
import shutil
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from config import embedded_redis
from core.metrics_dir import VARIABLE, metrics_dir_prepare

TEST_VAR = Path(__file__).resolve().parents[1] / "var" / "test"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: Any) -> Generator[None]:
    # A wrapper runs before pytest-django's own hook, which imports the settings.
    os.environ.setdefault("VAR_DIR", str(TEST_VAR))
    if not os.environ.get("REDIS_URL"):
        embedded_redis.start(TEST_VAR / "redis")
    # prometheus_client's multiprocess mode, before anything imports it: a directory of this
    # session's own (a second pytest or a type checker must not empty it under our feet).
    metrics_dir_prepare(default=TEST_VAR / f"prometheus-{os.getpid()}", wipe_default=True)
    return (yield)


def pytest_unconfigure(config: Any) -> None:
    if os.environ.get(VARIABLE, "").endswith(f"prometheus-{os.getpid()}"):
        shutil.rmtree(os.environ[VARIABLE], ignore_errors=True)
