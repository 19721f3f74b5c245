"""Where data lives: the database, Redis, static files, media and report storage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dj_database_url
from botocore.config import Config
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_int, env_str
from config.settings.core import BASE_DIR, VAR_DIR

# ---------------------------------------------------------------- database
_default_db = f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
try:
    DATABASES = {
        "default": dj_database_url.parse(
            env_str("DATABASE_URL", _default_db) or _default_db,
            conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0, minimum=0),
        )
    }
except ValueError:
    # Named by its scheme only: the value may hold a password.
    _scheme = (env_str("DATABASE_URL", _default_db) or "").partition("://")[0]
    raise ImproperlyConfigured(
        f"DATABASE_URL is not a database URL (scheme {_scheme[:20]!r});"
        " expected postgres://user:password@host:5432/name."
    ) from None
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and not (
    DATABASES["default"].get("NAME")
):
    raise ImproperlyConfigured("DATABASE_URL names no database; expected postgres://…/name.")
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool(
    "DATABASE_POOL", True
):
    # A per-process pool (Django 5.1+) instead of a new connection per request: under ASGI
    # persistent connections do not carry across requests, a pool does.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": env_int("DATABASE_POOL_MAX_SIZE", 10, minimum=1),
        "timeout": 10,
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Web, worker and beat share one file: WAL lets readers run beside the writer,
    # IMMEDIATE transactions queue writers instead of failing with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 30, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}
    )

# ---------------------------------------------------------------- redis
# `make run` (config.devstack) and the test suite (tests/redis_plugin.py) start an embedded
# server and set REDIS_URL when the environment has none; settings never start anything.
REDIS_URL = env_str("REDIS_URL", "") or ""

# ---------------------------------------------------------------- static and media
STATIC_URL = "/static/"
STATIC_ROOT: Path | None = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")) or VAR_DIR / "media")
MEDIA_URL = "/media/"


def s3_report_storage(
    *, bucket: str, endpoint_url: str | None, region_name: str | None, location: str = "reports"
) -> dict[str, Any]:
    """STORAGES["reports"] on S3. Credentials come from AWS_ACCESS_KEY_ID /
    AWS_SECRET_ACCESS_KEY (or boto3's other sources: an instance role, ~/.aws)."""
    return {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": bucket,
            "endpoint_url": endpoint_url,
            "region_name": region_name,
            "location": location,
            "client_config": Config(
                # S3-compatible servers (MinIO, moto, Ceph) on a host name or IP want paths.
                s3={"addressing_style": env_str("AWS_S3_ADDRESSING_STYLE", "path") or "path"},
                signature_version="s3v4",
                # Fail fast while the store is down: the job's own outage retries
                # (PDF_STORAGE_OUTAGE_SECONDS, spaced out) wait it out, not one call's
                # retries inside a render's time limit.
                connect_timeout=5,
                read_timeout=20,
                retries={"max_attempts": 2, "mode": "standard"},
            ),
            "file_overwrite": True,  # a re-run of a job rewrites the same key
            "default_acl": None,
            "querystring_auth": True,
        },
    }


_report_storage: dict[str, Any]
_s3_bucket = env_str("AWS_STORAGE_BUCKET_NAME", "")
if _s3_bucket:
    _report_storage = s3_report_storage(
        bucket=_s3_bucket,
        endpoint_url=env_str("AWS_S3_ENDPOINT_URL") or None,
        region_name=env_str("AWS_S3_REGION_NAME") or None,
        location=env_str("AWS_LOCATION", "reports") or "reports",
    )
else:
    _report_storage = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        # allow_overwrite: rendering is idempotent, a re-run rewrites the same name
        "OPTIONS": {"location": MEDIA_ROOT / "reports", "allow_overwrite": True},
    }
# On a store that signs URLs (S3), a download link answers 302 to a presigned URL valid
# this long, so PDFs do not pass through the web process; false proxies them instead
# (for a store that clients cannot reach).
PDF_DOWNLOAD_REDIRECT = env_bool("PDF_DOWNLOAD_REDIRECT", True)
PDF_PRESIGNED_URL_SECONDS = env_int("PDF_PRESIGNED_URL_SECONDS", 300, minimum=10)
STORAGES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "reports": _report_storage,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
