"""pytest plugin: before Django reads the test settings, start an embedded Redis when
REDIS_URL is unset, and point VAR_DIR at var/test/ (worker and web processes the tests
start inherit both). Settings themselves never start anything."""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from config import embedded_redis

TEST_VAR = Path(__file__).resolve().parents[1] / "var" / "test"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: Any) -> Generator[None]:
    # A wrapper runs before pytest-django's own hook, which imports the settings.
    os.environ.setdefault("VAR_DIR", str(TEST_VAR))
    if not os.environ.get("REDIS_URL"):
        embedded_redis.start(TEST_VAR / "redis")
    return (yield)
