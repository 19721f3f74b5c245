"""`manage.py health --role ROLE [--live]`: the HEALTHCHECK of a role, printed as JSON,
exit status 0 when ready (or, with --live, alive) and 1 when not."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from jobs.readiness import results_json, run_checks
from jobs.worker.health import worker_health

WORKER_ROLES = {"worker", "callbacks", "previews"}
# Beat and release serve nothing; they are ready when what they write to answers.
OTHER_CHECKS = ["database", "broker", "redis"]


def _host_header() -> str:
    """A name the web process accepts (ALLOWED_HOSTS), so the probe is not a 400."""
    for host in settings.ALLOWED_HOSTS:
        if host != "*":
            return host.lstrip(".") or "localhost"
    return "localhost"


def web_health(*, live: bool) -> tuple[bool, dict[str, Any]]:
    port = os.environ.get("PORT", "8000")
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/{'livez' if live else 'readyz'}",
        # As a TLS-terminating proxy would: no redirect to https on the way in.
        headers={"Host": _host_header(), "X-Forwarded-Proto": "https"},
    )
    try:
        with urllib.request.urlopen(  # noqa: S310
            request, timeout=settings.HEALTH_CHECK_TIMEOUT_SECONDS + 2
        ) as response:
            return response.status == 200, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            body = json.loads(exc.read())
        except ValueError:
            body = {"status": "unavailable", "detail": f"HTTP {exc.code}"}
        return False, body
    except OSError as exc:
        return False, {"status": "unavailable", "detail": f"web does not answer: {exc}"}


class Command(BaseCommand):
    help = "Report a role's liveness or readiness (the image's HEALTHCHECK)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--role",
            default="web",
            choices=["web", *sorted(WORKER_ROLES), "beat", "release"],
        )
        parser.add_argument("--live", action="store_true", help="liveness only (cheap)")

    def handle(self, *args: Any, role: str, live: bool, **options: Any) -> None:
        if role == "web":
            ok, body = web_health(live=live)
        elif role in WORKER_ROLES:
            alive, ready, body = worker_health(role)
            ok = alive if live else ready
        elif live:
            ok, body = True, {"status": "ok"}  # this command runs: so does the container
        else:
            body = results_json(run_checks(OTHER_CHECKS))
            ok = body["status"] == "ok"
        self.stdout.write(json.dumps(body))
        if not ok:
            raise CommandError(f"{role} is not {'alive' if live else 'ready'}", returncode=1)
