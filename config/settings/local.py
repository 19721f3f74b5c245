"""Development on one machine: SQLite and local disk unless configured. `make run`
(config.devstack) starts an embedded Redis and sets REDIS_URL when it is unset."""

from config.settings.base import *

DEBUG = env_bool("DJANGO_DEBUG", True)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
# Static files straight from the app and static/ directories; no collectstatic needed.
STATIC_ROOT = None
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
