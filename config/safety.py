"""Refuse to serve an unsafe configuration on a reachable address.

A process bound to a non-loopback address with DEBUG on (tracebacks and settings shown to
anyone), the development secret key (anyone can forge sessions and signed PDF links), no
ALLOWED_HOSTS, no METRICS_TOKEN (operational data open to anyone) or plain-http callbacks
that nobody chose (signed bodies in clear) must not start, whichever settings module is
chosen; on loopback, development defaults are fine.
"""

from __future__ import annotations

import ipaddress

from django.core.exceptions import ImproperlyConfigured

DEV_SECRET_KEY = "insecure-dev-key-change-me"  # noqa: S105 - the value we refuse
MIN_SECRET_KEY_LENGTH = 32


def is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


def secret_key_problem(secret_key: str) -> str | None:
    if not secret_key or secret_key == DEV_SECRET_KEY or secret_key.startswith("insecure"):
        return "DJANGO_SECRET_KEY is the development key; set a random secret of your own."
    if len(secret_key) < MIN_SECRET_KEY_LENGTH:
        return f"DJANGO_SECRET_KEY is shorter than {MIN_SECRET_KEY_LENGTH} characters."
    return None


def deployment_problems(
    *,
    debug: bool,
    secret_key: str,
    allowed_hosts: list[str],
    bind_host: str,
    metrics_token_set: bool = True,
    callbacks_http_unchosen: bool = False,
) -> list[str]:
    """`callbacks_http_unchosen`: callbacks may use plain http only because the settings
    module's default says so (nobody set CALLBACK_REQUIRE_HTTPS=false)."""
    if is_loopback(bind_host):
        return []
    problems = []
    if debug:
        problems.append("DEBUG is on (DJANGO_DEBUG); it shows settings and tracebacks.")
    if (problem := secret_key_problem(secret_key)) is not None:
        problems.append(problem)
    if not allowed_hosts:
        problems.append("DJANGO_ALLOWED_HOSTS is empty; name the hosts this service answers.")
    if not metrics_token_set:
        problems.append("METRICS_TOKEN is empty; /metrics would answer anyone.")
    if callbacks_http_unchosen:
        problems.append(
            "Callbacks may go to plain http URLs; set CALLBACK_REQUIRE_HTTPS=true (or =false "
            "to allow http on purpose)."
        )
    return problems


def check_deployment(*, bind_host: str) -> None:
    """Raise ImproperlyConfigured naming every problem of serving on `bind_host`."""
    import os

    from django.conf import settings

    problems = deployment_problems(
        debug=settings.DEBUG,
        secret_key=settings.SECRET_KEY,
        allowed_hosts=list(settings.ALLOWED_HOSTS),
        bind_host=bind_host,
        metrics_token_set=bool(settings.METRICS_TOKEN),
        callbacks_http_unchosen=(
            not settings.CALLBACK_REQUIRE_HTTPS and "CALLBACK_REQUIRE_HTTPS" not in os.environ
        ),
    )
    if problems:
        raise ImproperlyConfigured(f"Refusing to serve on {bind_host}: " + " ".join(problems))
