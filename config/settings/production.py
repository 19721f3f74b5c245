"""Production: every secret and address comes from the environment; nothing embedded."""

import os

from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_int, env_list, env_required, env_str
from config.production_checks import check_production
from config.safety import secret_key_problem
from config.settings.base import *

# Refuse to start rather than run exposed: production binds public addresses.
if env_bool("DJANGO_DEBUG", False):
    raise ImproperlyConfigured("DJANGO_DEBUG must be off in production.")
DEBUG = False
SECRET_KEY = env_required("DJANGO_SECRET_KEY")
if (_problem := secret_key_problem(SECRET_KEY)) is not None:
    raise ImproperlyConfigured(_problem)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", [])
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("DJANGO_ALLOWED_HOSTS must name the hosts this service answers.")
# Mail and callback links are absolute: a default would point every recipient elsewhere.
PUBLIC_BASE_URL = env_required("PUBLIC_BASE_URL").rstrip("/")
if not PUBLIC_BASE_URL.startswith(("https://", "http://")):
    raise ImproperlyConfigured(
        f"PUBLIC_BASE_URL={PUBLIC_BASE_URL!r} must be the service's address, as https://host."
    )
# Operational data (queue depth, failure ratios) is not public.
METRICS_TOKEN = env_required("METRICS_TOKEN")
REDIS_URL = env_required("REDIS_URL")
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "") or REDIS_URL
CHANNEL_LAYERS["default"]["CONFIG"]["hosts"] = channel_layer_hosts(REDIS_URL)
# One host may keep its database and PDFs on its own disk; several must share them.
SINGLE_HOST = env_bool("SINGLE_HOST", False)
check_production(
    single_host=SINGLE_HOST,
    database_engine=DATABASES["default"]["ENGINE"],
    report_storage=STORAGES["reports"],
    broker_url=CELERY_BROKER_URL,
    redis_url=REDIS_URL,
    environ=dict(os.environ),
)
# Load balancers and HEALTHCHECKs probe over plain HTTP inside the network.
SECURE_REDIRECT_EXEMPT = [r"^livez$", r"^readyz$"]


SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 365 * 24 * 3600, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_CONTENT_TYPE_NOSNIFF = True
