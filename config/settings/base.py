"""Settings shared by every environment; anything deployment-specific comes from the environment."""

from __future__ import annotations

from pathlib import Path

import dj_database_url

from config.env import env_bool, env_int, env_list, env_str

# ---------------------------------------------------------------- paths
BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")) or BASE_DIR / "var")

# ---------------------------------------------------------------- core
SECRET_KEY = env_str("DJANGO_SECRET_KEY", "insecure-dev-key-change-me") or ""
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_results",
    "channels",
    "reports",
    "jobs",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# ---------------------------------------------------------------- database
_default_db = f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", _default_db) or _default_db,
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0, minimum=0),
    )
}
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
# Set by config.settings.local/test (embedded server) when the environment has none.
REDIS_URL = env_str("REDIS_URL", "") or ""

# ---------------------------------------------------------------- static and media
STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")) or VAR_DIR / "media")
MEDIA_URL = "/media/"

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
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "reports": _report_storage,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# ---------------------------------------------------------------- REST API
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "jobs.authentication.ApiKeyAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "jobs.exception_handler.api_exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "PDF report service API",
    "DESCRIPTION": "Submit HTML templates plus JSON data; receive PDFs asynchronously.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "APPEND_COMPONENTS": {
        "securitySchemes": {"ApiKeyAuth": {"type": "apiKey", "in": "header", "name": "X-API-Key"}}
    },
    "SECURITY": [{"ApiKeyAuth": []}],
    # Request bodies get their own components, so a required text field is `minLength: 1`
    # there (blank is refused) while the same field may be blank in an answer.
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "jobs.api_schema.error_responses_postprocess",
    ],
}

# ---------------------------------------------------------------- PDF jobs
PDF_MAX_RETRIES = env_int("PDF_MAX_RETRIES", 3, minimum=0)
# Attempts of any kind (a killed worker counts) before a job is failed as poison.
PDF_MAX_ATTEMPTS = env_int("PDF_MAX_ATTEMPTS", 5, minimum=1)
PDF_RETRY_BACKOFF_SECONDS = env_int("PDF_RETRY_BACKOFF_SECONDS", 2, minimum=1)
PDF_RETRY_BACKOFF_MAX_SECONDS = env_int("PDF_RETRY_BACKOFF_MAX_SECONDS", 300, minimum=1)
PDF_SOFT_TIME_LIMIT = env_int("PDF_SOFT_TIME_LIMIT", 120, minimum=1)
PDF_HARD_TIME_LIMIT = env_int("PDF_HARD_TIME_LIMIT", 150, minimum=2)
# A running attempt stamps heartbeat_at this often; one silent for STALE seconds is dead.
PDF_HEARTBEAT_SECONDS = env_int("PDF_HEARTBEAT_SECONDS", 5, minimum=1)
PDF_HEARTBEAT_STALE_SECONDS = env_int("PDF_HEARTBEAT_STALE_SECONDS", 30, minimum=2)
# The reconciler re-sends queued jobs older than this that have no message in the broker.
RECONCILE_QUEUED_AFTER_SECONDS = env_int("RECONCILE_QUEUED_AFTER_SECONDS", 60, minimum=1)
# ...and takes back processing jobs whose heartbeat is older than the hard limit plus this.
RECONCILE_PROCESSING_MARGIN_SECONDS = env_int("RECONCILE_PROCESSING_MARGIN_SECONDS", 30, minimum=0)
RECONCILE_INTERVAL_SECONDS = env_int("RECONCILE_INTERVAL_SECONDS", 60, minimum=1)
DLQ_MAX_AGE_SECONDS = env_int("DLQ_MAX_AGE", 24 * 3600, minimum=60)
DLQ_MAX_RETRIES = env_int("DLQ_MAX_RETRIES", 3, minimum=0)
DLQ_REDRIVE_INTERVAL_SECONDS = env_int("DLQ_REDRIVE_INTERVAL", 3600, minimum=1)
# Completion callbacks (POST to the job's callback_url).
CALLBACK_MAX_ATTEMPTS = env_int("CALLBACK_MAX_ATTEMPTS", 6, minimum=1)
CALLBACK_TIMEOUT_SECONDS = env_int("CALLBACK_TIMEOUT_SECONDS", 10, minimum=1)
# Callbacks to loopback/private addresses are refused unless allowed (SSRF from a tenant).
CALLBACK_ALLOW_PRIVATE_NETWORKS = env_bool("CALLBACK_ALLOW_PRIVATE_NETWORKS", False)
# Absolute links (pdf_url in callbacks) need the public address of the web service.
PUBLIC_BASE_URL = (env_str("PUBLIC_BASE_URL", "http://127.0.0.1:8000") or "").rstrip("/")
# Bearer token required by /metrics; empty leaves it open (keep it on a private network).
METRICS_TOKEN = env_str("METRICS_TOKEN", "") or ""
# Completed jobs slower than this (submit to completion) are logged as a warning.
PDF_SLOW_JOB_SECONDS = env_int("PDF_SLOW_JOB_SECONDS", 30, minimum=1)
# Test-only fault points (sleep, kill the child) read from a job's data; never in production.
PDF_FAULT_INJECTION = env_bool("PDF_FAULT_INJECTION", False)
PDF_URL_TTL_SECONDS = env_int("PDF_URL_TTL_SECONDS", 3600, minimum=60)
PDF_MAX_TEMPLATE_BYTES = env_int("PDF_MAX_TEMPLATE_BYTES", 512 * 1024, minimum=1024)
PDF_MAX_DATA_BYTES = env_int("PDF_MAX_DATA_BYTES", 5 * 1024 * 1024, minimum=1024)
PDF_MAX_HTML_BYTES = env_int("PDF_MAX_HTML_BYTES", 20 * 1024 * 1024, minimum=1024)
PDF_MAX_PAGES = env_int("PDF_MAX_PAGES", 500, minimum=1)
# Deepest nesting of data (at submit) and of rendered HTML elements (at layout).
PDF_MAX_NESTING_DEPTH = env_int("PDF_MAX_NESTING_DEPTH", 100, minimum=10)
# Wall-clock budget of the layout of one report; below the Celery soft limit so the job
# fails with a clear message instead of being interrupted.
PDF_MAX_RENDER_SECONDS = env_int("PDF_MAX_RENDER_SECONDS", 90, minimum=1)
# Remote images, CSS and fonts are off unless this names the hosts they may come from.
PDF_REMOTE_ALLOWED_HOSTS = env_list("PDF_REMOTE_ALLOWED_HOSTS", [])
PDF_MAX_CHARTS = env_int("PDF_MAX_CHARTS", 100, minimum=1)
PDF_CHART_CACHE_SIZE = env_int("PDF_CHART_CACHE_SIZE", 256, minimum=0)
PDF_PREVIEW_MAX_SECONDS = env_int("PDF_PREVIEW_MAX_SECONDS", 10, minimum=1)
PDF_TEMPLATE_TIMEOUT_MS = env_int("PDF_TEMPLATE_TIMEOUT_MS", 5000, minimum=10)
PDF_TEMPLATE_MAX_MEMORY_MB = env_int("PDF_TEMPLATE_MAX_MEMORY_MB", 256, minimum=16)
SSE_HEARTBEAT_SECONDS = env_int("SSE_HEARTBEAT_SECONDS", 15, minimum=1)
# Request bodies carry the template and data; allow the configured maxima plus headroom.
DATA_UPLOAD_MAX_MEMORY_SIZE = PDF_MAX_TEMPLATE_BYTES + PDF_MAX_DATA_BYTES + 64 * 1024

# ---------------------------------------------------------------- Celery
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "") or REDIS_URL
CELERY_RESULT_BACKEND = "django-db"
CELERY_RESULT_EXTENDED = True
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_DEFAULT_QUEUE = "pdf"
# Periodic repair gets a queue of its own so it never waits behind long renders.
CELERY_TASK_ROUTES = {
    "jobs.deliver_callback": {"queue": "maintenance"},
    "jobs.reconcile": {"queue": "maintenance"},
    "jobs.redrive_dead_letters": {"queue": "maintenance"},
}
# A job is only acknowledged once rendered, so a crashed worker's job is redelivered.
CELERY_TASK_ACKS_LATE = True
# ...including when the pool child is killed mid-render (OOM, SIGKILL).
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Renders are long and uneven: one at a time per child keeps queued work on idle workers.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Soft limit raises in the task so it can fail cleanly; the hard limit kills a stuck child.
CELERY_TASK_SOFT_TIME_LIMIT = PDF_SOFT_TIME_LIMIT
CELERY_TASK_TIME_LIMIT = PDF_HARD_TIME_LIMIT
# Warm shutdown (SIGTERM) waits this long for running renders, then stops them; their
# late-acked messages go back to the broker and another worker takes the job over.
CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT = float(env_int("WORKER_SOFT_SHUTDOWN_SECONDS", 20, minimum=0))
CELERY_WORKER_ENABLE_SOFT_SHUTDOWN_ON_IDLE = True
# Unacked messages return to the queue after this; it must outlast the longest render.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": PDF_HARD_TIME_LIMIT + PDF_RETRY_BACKOFF_MAX_SECONDS + 600,
}
# Recycle children so a leak in a rendering library cannot grow a worker forever.
CELERY_WORKER_MAX_TASKS_PER_CHILD = env_int("CELERY_WORKER_MAX_TASKS_PER_CHILD", 200, minimum=1)
# On a lost broker connection, stop late-ack tasks rather than finish work nobody can ack.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A submit must answer fast even with the broker down: fail the publish quickly, keep the
# row queued, and let the reconciler send it when the broker is back.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_TASK_TRACK_STARTED = True
CELERY_WORKER_SEND_TASK_EVENTS = True
CELERY_BEAT_SCHEDULE = {
    "reconcile-jobs": {"task": "jobs.reconcile", "schedule": RECONCILE_INTERVAL_SECONDS},
    "redrive-dead-letters": {
        "task": "jobs.redrive_dead_letters",
        "schedule": DLQ_REDRIVE_INTERVAL_SECONDS,
    },
}

# ---------------------------------------------------------------- Channels
# redis-py's pool holds 100 connections and then raises instead of waiting; a web process
# with 1,000 live followers needs more (measured by `make bench-push`, see the README).
CHANNEL_LAYER_MAX_CONNECTIONS = env_int("CHANNEL_LAYER_MAX_CONNECTIONS", 2000, minimum=10)


def channel_layer_hosts(url: str) -> list[dict[str, object]]:
    return [{"address": url, "max_connections": CHANNEL_LAYER_MAX_CONNECTIONS}]


CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": channel_layer_hosts(REDIS_URL), "capacity": 500, "expiry": 60},
    }
}

# ---------------------------------------------------------------- logging
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"xhtml2pdf": {"level": "WARNING"}, "fontTools": {"level": "WARNING"}},
}
