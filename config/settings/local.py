"""Development on one machine: SQLite and local disk unless configured. `make run`
(config.devstack) starts an embedded Redis and sets REDIS_URL when it is unset."""

from config.env import env_bool, env_choice, env_int, env_list, env_str
from config.settings.base import *
from core.logs import logging_dict

DEBUG = env_bool("DJANGO_DEBUG", True)
LOG_FORMAT = env_choice("LOG_FORMAT", "text", ("json", "text"))
LOGGING = logging_dict(fmt=LOG_FORMAT, level=LOG_LEVEL)
# Mail (job mails, alerts to ADMINS) is saved under EMAIL_FILE_PATH (var/mail/) with one
# log line naming the file, not sent, unless configured.
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "core.mail_files.SavedMailBackend") or ""
# Ctrl-C on `make run` stops at once: no soft shutdown (which waits its whole timeout even
# when idle, CELERY_WORKER_ENABLE_SOFT_SHUTDOWN_ON_IDLE), so a running render is stopped
# and its late-acked message goes back to the broker for the next start.
CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT = float(env_int("WORKER_SOFT_SHUTDOWN_SECONDS", 0, minimum=0))
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
# Development receivers are plain http on this machine.
CALLBACK_REQUIRE_HTTPS = env_bool("CALLBACK_REQUIRE_HTTPS", False)
# Static files straight from the app and static/ directories; no collectstatic needed.
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
