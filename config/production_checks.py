"""What production refuses at start-up, each as one sentence naming the setting: a broker,
Redis or storage address that cannot be right, no certificate key of its own, and state
on this host's disk (SQLite, local report storage) unless SINGLE_HOST says there is only
one host."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

BROKER_SCHEMES = {"redis", "rediss", "amqp", "amqps", "pyamqp", "sentinel"}
REDIS_SCHEMES = {"redis", "rediss", "unix"}


def _scheme(url: str) -> str:
    try:
        return urlsplit(url).scheme.lower()
    except ValueError:
        return ""


def url_problem(name: str, url: str, schemes: set[str], example: str) -> str | None:
    """Names the setting and its scheme only: the URL itself may hold a password."""
    scheme = _scheme(url)
    if scheme not in schemes:
        shown = f"a {scheme}:// URL" if scheme else "not a URL"
        return f"{name} is {shown}; expected {example}."
    if scheme != "unix" and not urlsplit(url).hostname:
        return f"{name} names no host; expected {example}."
    return None


def certificate_key_problem(environ: dict[str, str]) -> str | None:
    """Production seals signing certificates and stored secrets with a key of their own:
    one derived from DJANGO_SECRET_KEY would fall with it (a leak unseals them, a rotation
    orphans them). Its form is checked where it is read (config.env.env_fernet_key)."""
    key = environ.get("PDF_CERTIFICATE_KEY", "").strip()
    if not key:
        return (
            "PDF_CERTIFICATE_KEY is not set; production seals signing certificates with a "
            "Fernet key of its own, not one derived from DJANGO_SECRET_KEY (make one with "
            "`openssl rand -base64 32 | tr '+/' '-_'`; upgrading: see the security guide)."
        )
    if key == environ.get("DJANGO_SECRET_KEY", "").strip():
        return "PDF_CERTIFICATE_KEY is DJANGO_SECRET_KEY; set a key of its own."
    return None


def production_problems(
    *,
    single_host: bool,
    database_engine: str,
    report_storage: dict[str, Any],
    broker_url: str,
    redis_url: str,
    environ: dict[str, str],
) -> list[str]:
    problems = []
    if (p := url_problem("REDIS_URL", redis_url, REDIS_SCHEMES, "redis://host:6379/0")) is not None:
        problems.append(p)
    if (
        p := url_problem("CELERY_BROKER_URL", broker_url, BROKER_SCHEMES, "redis:// or amqp://")
    ) is not None:
        problems.append(p)
    endpoint = environ.get("AWS_S3_ENDPOINT_URL", "")
    if endpoint and (
        p := url_problem(
            "AWS_S3_ENDPOINT_URL", endpoint, {"http", "https"}, "https://s3.example.com"
        )
    ):
        problems.append(p)
    if p := certificate_key_problem(environ):
        problems.append(p)
    if bool(environ.get("AWS_ACCESS_KEY_ID")) != bool(environ.get("AWS_SECRET_ACCESS_KEY")):
        problems.append("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together.")
    if not single_host:
        # Another host cannot read this one's disk: its downloads would be 500s and chunk
        # merges would retry until they landed here.
        if database_engine.endswith("sqlite3"):
            problems.append(
                "DATABASE_URL is not set, so production would use SQLite on this host's disk;"
                " set DATABASE_URL=postgres://… (or SINGLE_HOST=true for one host)."
            )
        if report_storage["BACKEND"].endswith("FileSystemStorage"):
            problems.append(
                "AWS_STORAGE_BUCKET_NAME is not set, so production would keep PDFs on this"
                " host's disk; set the AWS_* storage settings (or SINGLE_HOST=true for one host)."
            )
    return problems


def check_production(**kwargs: Any) -> None:
    problems = production_problems(**kwargs)
    if problems:
        raise ImproperlyConfigured(" ".join(problems))
