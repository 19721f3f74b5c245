"""PUBLIC_BASE_URL: `make run` derives it from HOST and PORT; production refuses to start
without it, in one line naming it (the mail links of a live `make run`:
tests/config/test_devstack_console.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from config.devstack import public_base_url
from tests.config.test_production_checks import GOOD
from tests.processes import BASE_DIR

# Everything else production needs (tests/config/test_production_checks.py), but no
# PUBLIC_BASE_URL.
pytestmark = pytest.mark.process


PRODUCTION = {k: v for k, v in GOOD.items() if k != "PUBLIC_BASE_URL"}


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        ("127.0.0.1", "8302", "http://127.0.0.1:8302"),
        ("localhost", "8000", "http://localhost:8000"),
        ("::1", "8302", "http://[::1]:8302"),
        ("[::1]", "8302", "http://[::1]:8302"),
    ],
)
def test_make_run_links_to_the_host_and_port_it_serves(host, port, url):
    assert public_base_url(host, port) == url


def test_a_wildcard_bind_links_to_the_machines_name():
    url = public_base_url("0.0.0.0", "8302")  # noqa: S104 - the wildcard being named
    assert url.startswith("http://")
    assert url.endswith(":8302")
    assert "0.0.0.0" not in url  # noqa: S104


def _start(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "METRICS_", "PUBLIC_BASE_URL"))
    }
    return subprocess.run(
        args,
        cwd=BASE_DIR,
        env={**clean, **PRODUCTION, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


COMMANDS = {
    "web": [sys.executable, "-m", "config.web"],
    "manage.py": [sys.executable, "manage.py", "migrate", "--check"],
    "celery": [sys.executable, "-m", "celery", "-A", "config", "worker"],
}


@pytest.mark.parametrize("process", sorted(COMMANDS))
def test_production_without_public_base_url_refuses_in_one_line(process):
    result = _start(COMMANDS[process])
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "configuration error: The environment variable PUBLIC_BASE_URL must be set."
    ]
    assert "Traceback" not in result.stdout + result.stderr


def test_production_refuses_a_public_base_url_that_is_not_an_address():
    result = _start(COMMANDS["manage.py"], PUBLIC_BASE_URL="reports.example.com")
    assert result.returncode == 1
    assert "PUBLIC_BASE_URL='reports.example.com' must be the service's address" in result.stderr
    assert "Traceback" not in result.stderr


def test_production_takes_a_public_base_url_without_its_trailing_slash():
    code = "from django.conf import settings as s; print(s.PUBLIC_BASE_URL)"
    result = _start([sys.executable, "-c", code], PUBLIC_BASE_URL="https://reports.example.com/")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "https://reports.example.com"
