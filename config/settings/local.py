"""Development on one machine: embedded Redis when REDIS_URL is unset, SQLite, local disk."""

import os

from config import embedded_redis
from config.env import env_str

if not os.environ.get("REDIS_URL"):
    from pathlib import Path

    _var = Path(env_str("VAR_DIR", "") or Path(__file__).resolve().parents[2] / "var")
    embedded_redis.start(_var / "redis")

from config.settings.base import *

DEBUG = env_bool("DJANGO_DEBUG", True)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
# Static files straight from the app and static/ directories; no collectstatic needed.
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
