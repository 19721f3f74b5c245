"""The test suite: real Redis and the configured database. The pytest plugin
tests/redis_plugin.py starts an embedded Redis (and sets VAR_DIR) before these are read."""

import os
from pathlib import Path

from config.env import env_bool, env_str
from config.settings.base import *

_var = Path(__file__).resolve().parents[2] / "var" / "test"

DEBUG = False
SECRET_KEY = "test-secret-key-not-for-production"  # noqa: S105
ALLOWED_HOSTS = ["*"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not :memory:, so that worker and web processes started by tests share it.
    DATABASES["default"]["TEST"] = {"NAME": str(_var / "test-db.sqlite3")}
# Fast retries in tests; the production defaults are in base.py.
PDF_RETRY_BACKOFF_SECONDS = 1
PDF_RETRY_BACKOFF_MAX_SECONDS = 2
SSE_HEARTBEAT_SECONDS = 2
# Rate and stream counters of this run only (processes the tests start inherit the id):
# database ids restart with every test database.
os.environ.setdefault("TEST_RUN_ID", os.urandom(4).hex())
LIMITS_KEY_PREFIX = f"limits-{os.environ['TEST_RUN_ID']}"
# Unit tests render previews in-process; the live stack (tests/livestack.py) does not.
PDF_PREVIEW_IN_PROCESS = env_bool("PDF_PREVIEW_IN_PROCESS", True)
# Processes the tests start keep their mail in memory unless a test points them at files
# (pytest-django gives the test process its own in-memory outbox).
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.locmem.EmailBackend") or ""
# Tests receive callbacks on a loopback HTTP server.
CALLBACK_ALLOW_PRIVATE_NETWORKS = True
CALLBACK_REQUIRE_HTTPS = env_bool("CALLBACK_REQUIRE_HTTPS", False)
# ...and sign steps' timestamps from a loopback timestamp authority over http.
PDF_TIMESTAMP_ALLOW_PRIVATE_NETWORKS = True
# Static files straight from the app and static/ directories; no collectstatic needed.
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# Chaos tests run workers whose report storage fails on purpose.
if os.environ.get("TEST_REPORT_STORAGE_BACKEND"):
    STORAGES["reports"]["BACKEND"] = os.environ["TEST_REPORT_STORAGE_BACKEND"]
# Test workers start by the dozen: only the health tests launch the extra Chromium.
WORKER_RENDERER_LAUNCH_CHECK = env_bool("WORKER_RENDERER_LAUNCH_CHECK", False)
