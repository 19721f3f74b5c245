"""Production: every secret and address comes from the environment; nothing embedded."""

from config.env import env_bool, env_int, env_required
from config.settings.base import *

SECRET_KEY = env_required("DJANGO_SECRET_KEY")
DEBUG = False
REDIS_URL = env_required("REDIS_URL")
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "") or REDIS_URL
CHANNEL_LAYERS["default"]["CONFIG"]["hosts"] = channel_layer_hosts(REDIS_URL)

CALLBACK_REQUIRE_HTTPS = env_bool("CALLBACK_REQUIRE_HTTPS", True)

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 60, minimum=0)
SECURE_CONTENT_TYPE_NOSNIFF = True
