"""Production refuses unsafe settings; the web process refuses them on a public address."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from config.safety import DEV_SECRET_KEY, deployment_problems
from tests.processes import BASE_DIR

pytestmark = pytest.mark.process


GOOD_KEY = "k" * 50


def _python(code_or_module: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "METRICS_"))}
    return subprocess.run(
        [sys.executable, *code_or_module],
        cwd=BASE_DIR,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _production(**env: str) -> subprocess.CompletedProcess[str]:
    settings = {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": GOOD_KEY,
        "DJANGO_ALLOWED_HOSTS": "reports.example.com",
        "METRICS_TOKEN": "m" * 20,
        # One host: SQLite or local disk are allowed (tests/config/test_production_checks.py
        # holds what several hosts need).
        "SINGLE_HOST": "true",
        "PUBLIC_BASE_URL": "https://reports.example.com",
        "PDF_CERTIFICATE_KEY": "mwhc6bSIZvsW-1LH4Ze5vSsgZChTZv0LuoZsLmEGuuQ=",
        **env,
    }
    code = (
        "from django.conf import settings as s; "
        "print(s.DEBUG, s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.METRICS_TOKEN)"
    )
    return _python(["-c", code], **settings)


def test_loopback_is_allowed_development_defaults():
    assert (
        deployment_problems(
            debug=True, secret_key=DEV_SECRET_KEY, allowed_hosts=[], bind_host="127.0.0.1"
        )
        == []
    )
    assert deployment_problems(debug=True, secret_key="", allowed_hosts=[], bind_host="[::1]") == []


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "::", "reports.example.com"])  # noqa: S104
def test_a_public_address_with_dev_settings_names_every_problem(host):
    problems = deployment_problems(
        debug=True, secret_key=DEV_SECRET_KEY, allowed_hosts=[], bind_host=host
    )
    assert len(problems) == 3
    assert "DEBUG" in problems[0]
    assert "development key" in problems[1]
    assert "ALLOWED_HOSTS" in problems[2]


def test_a_public_address_needs_a_metrics_token_and_https_callbacks_or_a_choice():
    base = {"debug": False, "secret_key": GOOD_KEY, "allowed_hosts": ["x"], "bind_host": "::"}
    problems = deployment_problems(**base, metrics_token_set=False, callbacks_http_unchosen=True)
    assert len(problems) == 2
    assert "METRICS_TOKEN" in problems[0]
    assert "CALLBACK_REQUIRE_HTTPS" in problems[1]
    assert deployment_problems(**base) == []


def test_the_web_process_with_development_settings_refuses_open_metrics_and_http_callbacks():
    result = _python(
        ["-m", "config.web"],
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=GOOD_KEY,
        HOST="0.0.0.0",  # noqa: S104 - the address being refused
        PORT="8998",
    )
    assert result.returncode != 0
    assert "METRICS_TOKEN is empty" in result.stderr
    assert "plain http" in result.stderr
    assert "Uvicorn running" not in result.stderr


def test_every_procfile_role_defaults_to_the_production_settings():
    procfile = (BASE_DIR / "Procfile").read_text().splitlines()
    roles = dict(line.split(": ", 1) for line in procfile if line)
    for name, command in roles.items():
        if name != "flower":  # a broker client only: it reads no setting of ours
            assert (
                "DJANGO_SETTINGS_MODULE=${DJANGO_SETTINGS_MODULE:-config.settings.production}"
                in command
            ), name


def test_production_settings_are_safe_by_default():
    result = _production()
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "31536000", "True", "m" * 20]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DJANGO_DEBUG": "true"}, "DJANGO_DEBUG must be off"),
        ({"DJANGO_SECRET_KEY": DEV_SECRET_KEY}, "development key"),
        ({"DJANGO_SECRET_KEY": "short"}, "shorter than 32"),
        ({"DJANGO_ALLOWED_HOSTS": ""}, "DJANGO_ALLOWED_HOSTS must name"),
        ({"METRICS_TOKEN": ""}, "METRICS_TOKEN must be set"),
    ],
)
def test_production_refuses_to_start_with_unsafe_settings(env, message):
    result = _production(**env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


def test_the_web_process_refuses_a_public_address_with_debug_on():
    started = time.monotonic()
    result = _python(
        ["-m", "config.web"],
        DJANGO_SETTINGS_MODULE="config.settings.local",
        HOST="0.0.0.0",  # noqa: S104 - the address being refused
        PORT="8999",
    )
    assert result.returncode != 0
    assert "Refusing to serve on 0.0.0.0" in result.stderr
    assert "DEBUG is on" in result.stderr
    assert "Uvicorn running" not in result.stderr
    assert time.monotonic() - started < 30
