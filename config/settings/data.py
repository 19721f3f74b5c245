"""Where data lives: the database, Redis, static files, media and report storage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dj_database_url
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

_report_storage: dict[str, Any]
_s3_bucket = env_str("AWS_STORAGE_BUCKET_NAME", "")
if _s3_bucket:
    _report_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": _s3_bucket,
            "endpoint_url": env_str("AWS_S3_ENDPOINT_URL") or None,
            "region_name": env_str("AWS_S3_REGION_NAME") or None,
            "location": env_str("AWS_LOCATION", "reports"),
            "file_overwrite": True,  # a re-run of a job rewrites the same key
            "default_acl": None,
            "querystring_auth": True,
        },
    }
else:
    _report_storage = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        # allow_overwrite: rendering is idempotent, a re-run rewrites the same name
        "OPTIONS": {"location": MEDIA_ROOT / "reports", "allow_overwrite": True},
    }
STORAGES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "reports": _report_storage,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
