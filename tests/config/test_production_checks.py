"""Production refuses wrong or missing settings at start-up: one line naming the setting,
no traceback, from manage.py, the web process and the image's entrypoint alike."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process


ROOT = Path(__file__).resolve().parents[2]
GOOD = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "DJANGO_SECRET_KEY": "a-production-secret-key-of-more-than-32-characters",
    "DJANGO_ALLOWED_HOSTS": "reports.example.com",
    "METRICS_TOKEN": "metrics-token",
    "PUBLIC_BASE_URL": "https://reports.example.com",
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/pdfreports_unused",
    "REDIS_URL": "redis://127.0.0.1:6379/15",
    "AWS_STORAGE_BUCKET_NAME": "reports",
    "AWS_S3_ENDPOINT_URL": "http://127.0.0.1:9000",
    "PDF_CERTIFICATE_KEY": "mwhc6bSIZvsW-1LH4Ze5vSsgZChTZv0LuoZsLmEGuuQ=",
}
# Variables of the test process that would change what production reads.
SCRUB = ("CELERY_BROKER_URL", "SINGLE_HOST", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")


def run(args: list[str], **changes: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in SCRUB}
    env.update(GOOD)
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


def test_good_production_settings_start():
    result = run(["manage.py", "check"])
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"DATABASE_URL": None}, "DATABASE_URL is not set"),
        # Issue 42, Low: certificates sealed with a key derived from the secret key.
        ({"PDF_CERTIFICATE_KEY": None}, "PDF_CERTIFICATE_KEY is not set"),
        (
            {
                "PDF_CERTIFICATE_KEY": "mwhc6bSIZvsW-1LH4Ze5vSsgZChTZv0LuoZsLmEGuuQ=",
                "DJANGO_SECRET_KEY": "mwhc6bSIZvsW-1LH4Ze5vSsgZChTZv0LuoZsLmEGuuQ=",
            },
            "PDF_CERTIFICATE_KEY is DJANGO_SECRET_KEY",
        ),
        ({"DATABASE_URL": "mysqlx://db/reports"}, "DATABASE_URL is not a database URL"),
        ({"DATABASE_URL": "postgres://db:5432"}, "DATABASE_URL names no database"),
        ({"AWS_STORAGE_BUCKET_NAME": None}, "AWS_STORAGE_BUCKET_NAME is not set"),
        ({"AWS_S3_ENDPOINT_URL": "minio:9000"}, "AWS_S3_ENDPOINT_URL is"),
        ({"AWS_ACCESS_KEY_ID": "AKIA123"}, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"),
        ({"CELERY_BROKER_URL": "kafka://broker:9092"}, "CELERY_BROKER_URL is a kafka:// URL"),
        ({"CELERY_BROKER_URL": "amqp://"}, "CELERY_BROKER_URL names no host"),
        ({"REDIS_URL": None}, "REDIS_URL must be set"),
        ({"REDIS_URL": "127.0.0.1:6379"}, "REDIS_URL is"),
    ],
)
def test_a_wrong_or_missing_setting_stops_start_up_with_one_line_naming_it(changes, named):
    result = run(["manage.py", "check"], **changes)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("configuration error: ")
    assert named in lines[0]
    assert "Traceback" not in result.stderr


def test_a_password_in_a_wrong_url_is_not_printed():
    result = run(["manage.py", "check"], CELERY_BROKER_URL="kafka://user:hunter2@broker:9092")
    assert result.returncode != 0
    assert "hunter2" not in result.stderr


def test_single_host_allows_sqlite_and_local_disk(tmp_path):
    result = run(
        ["manage.py", "check"],
        DATABASE_URL=None,
        AWS_STORAGE_BUCKET_NAME=None,
        SINGLE_HOST="true",
        VAR_DIR=str(tmp_path),
    )
    assert result.returncode == 0, result.stderr


def test_the_web_process_refuses_the_same_way():
    result = run(["-m", "config.web"], AWS_STORAGE_BUCKET_NAME=None)
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        line for line in result.stderr.strip().splitlines() if "AWS_STORAGE_BUCKET_NAME" in line
    ]
    assert "Traceback" not in result.stderr


def test_the_image_entrypoint_refuses_before_starting_a_role():
    # The worker role would start Celery; the entrypoint stops first, exit status EX_CONFIG.
    result = run(["-m", "config.entrypoint", "worker"], CELERY_BROKER_URL="redis//nohost")
    assert result.returncode == 78
    assert result.stderr.strip().splitlines() == [
        "configuration error: CELERY_BROKER_URL is not a URL; expected redis:// or amqp://."
    ]
