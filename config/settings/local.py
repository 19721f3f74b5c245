"""Development on one machine: embedded Redis when REDIS_URL is unset, SQLite, local disk."""

import os
from pathlib import Path

from config import embedded_redis
from config.env import env_str
from config.metrics_dir import metrics_dir_prepare

_var = Path(env_str("VAR_DIR", "") or Path(__file__).resolve().parents[2] / "var")
if not os.environ.get("REDIS_URL"):
    embedded_redis.start(_var / "redis")
# `make run` empties it and its processes inherit it; a lone manage.py command adds to it.
metrics_dir_prepare(default=_var / "prometheus")

from config.settings.base import *  # noqa: E402

DEBUG = env_bool("DJANGO_DEBUG", True)
LOG_FORMAT = env_choice("LOG_FORMAT", "text", ("json", "text"))
LOGGING = logging_dict(fmt=LOG_FORMAT, level=LOG_LEVEL)
# Mail (alerts to ADMINS) is printed, not sent, unless configured.
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend") or ""
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
# Static files straight from the app and static/ directories; no collectstatic needed.
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
