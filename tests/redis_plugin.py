"""pytest plugin: before Django reads the test settings, start an embedded Redis when
REDIS_URL is unset, give the session a metrics directory (PROMETHEUS_MULTIPROC_DIR), and
point VAR_DIR at var/test/ (worker and web processes the tests start inherit all three).
Settings themselves never start anything.

Under pytest-xdist each test process (gw0, gw1, ...) gets a share of its own: a Redis
database of its own (broker queues, channel layer, limits), a RabbitMQ vhost of its own when
the broker is AMQP, and a VAR_DIR of its own; pytest-django gives it its own test database.
So the live stacks of two test processes never take each other's messages."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Generator
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import pytest

from config import embedded_redis
from core.metrics_dir import VARIABLE, metrics_dir_prepare

TEST_VAR = Path(__file__).resolve().parents[1] / "var" / "test"
REDIS_DATABASES = 16  # redis-server's default `databases`


def xdist_worker_number() -> int | None:
    """0 for gw0, 1 for gw1, ...; None outside pytest-xdist."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker.removeprefix("gw")) if worker.startswith("gw") else None


def redis_url_for_worker(url: str, number: int) -> str:
    """The same server, the database after the configured one for gw0, the next for gw1."""
    parts = urlsplit(url)
    base = int(parts.path.lstrip("/") or 0)
    database = base + 1 + number
    if database >= REDIS_DATABASES:
        raise pytest.UsageError(
            f"REDIS_URL {url} leaves no Redis database for test process gw{number}: "
            f"use a lower database number or fewer xdist workers"
        )
    return urlunsplit(parts._replace(path=f"/{database}"))


def amqp_url_with_vhost_suffix(url: str, suffix: str) -> str:
    """The AMQP URL of a vhost apart, `<vhost>_<suffix>`, made here when missing (as .ci/run
    makes the session's)."""
    parts = urlsplit(url)
    vhost = f"{unquote(parts.path.lstrip('/')) or 'default'}_{suffix}"
    if shutil.which("rabbitmqctl"):
        subprocess.run(["rabbitmqctl", "-q", "add_vhost", vhost], capture_output=True)
        subprocess.run(
            ["rabbitmqctl", "-q", "set_permissions", "-p", vhost, parts.username or "guest"]
            + [".*"] * 3,
            capture_output=True,
        )
    return urlunsplit(parts._replace(path=f"/{quote(vhost, safe='')}"))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: Any) -> Generator[None]:
    # A wrapper runs before pytest-django's own hook, which imports the settings.
    number = xdist_worker_number()
    test_var = TEST_VAR if number is None else TEST_VAR / f"gw{number}"
    os.environ.setdefault("VAR_DIR", str(test_var))
    if not os.environ.get("REDIS_URL"):
        embedded_redis.start(TEST_VAR / "redis")
    if number is not None:
        # The xdist controller started (or was given) the server; each test process takes a
        # database of it. VAR_DIR is set by the controller too, so it is replaced here.
        os.environ["VAR_DIR"] = str(test_var)
        os.environ["REDIS_URL"] = redis_url_for_worker(os.environ["REDIS_URL"], number)
        broker = os.environ.get("CELERY_BROKER_URL", "")
        if broker.startswith("redis"):
            os.environ["CELERY_BROKER_URL"] = redis_url_for_worker(broker, number)
        elif broker:
            os.environ["CELERY_BROKER_URL"] = amqp_url_with_vhost_suffix(broker, f"gw{number}")
        if os.environ.get(VARIABLE, "").startswith(str(TEST_VAR)):
            del os.environ[VARIABLE]  # the controller's: metrics of its own for each process
    # prometheus_client's multiprocess mode, before anything imports it: a directory of this
    # session's own (a second pytest or a type checker must not empty it under our feet).
    metrics_dir_prepare(default=test_var / f"prometheus-{os.getpid()}", wipe_default=True)
    return (yield)


def pytest_unconfigure(config: Any) -> None:
    if os.environ.get(VARIABLE, "").endswith(f"prometheus-{os.getpid()}"):
        shutil.rmtree(os.environ[VARIABLE], ignore_errors=True)
