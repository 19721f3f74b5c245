"""Core Django settings: paths, apps, middleware, templates, locale, sign-in."""

from __future__ import annotations

from pathlib import Path

from config.env import env_bool, env_list, env_str

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
    "axes",
    "workspaces",
    "accounts",
    "reports",
    "jobs",
    "runs",
    "schedules",
    "dropins",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Outside everything that can answer an error, so /api/ errors all leave as JSON.
    "core.api_json.ApiJsonErrorsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "core.api_paths.ApiTrailingSlashMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "core.request_logging.RequestLogContextMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.csp.CSPMiddleware",
    # Last, as django-axes asks: it answers locked-out sign-ins.
    "axes.middleware.AxesMiddleware",
    "core.sync_chain.SyncChainMiddleware",
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
                "accounts.context_processors.job_notices",
                "workspaces.context_processors.workspace_nav",
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
