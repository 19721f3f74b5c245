"""`manage.py health --role ROLE [--live]`: a role's liveness or readiness, printed as JSON,
exit status 0 when ready (or, with --live, alive) and 1 when not. The image's HEALTHCHECK
(`config.entrypoint health`) reads the same answers without starting Django."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.health_report import host_header, web_health, worker_health
from jobs.readiness import results_json, run_checks
from jobs.worker.health import main_file

WORKER_ROLES = {"worker", "callbacks", "mail", "previews"}
# Beat and release serve nothing; they are ready when what they write to answers.
OTHER_CHECKS = ["database", "broker", "redis"]


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
            ok, body = web_health(
                port=os.environ.get("PORT", "8000"),
                host=host_header(list(settings.ALLOWED_HOSTS)),
                live=live,
                timeout=settings.HEALTH_CHECK_TIMEOUT_SECONDS + 2,
            )
        elif role in WORKER_ROLES:
            alive, ready, body = worker_health(Path(main_file(role)))
            ok = alive if live else ready
        elif live:
            ok, body = True, {"status": "ok"}  # this command runs: so does the container
        else:
            body = results_json(run_checks(OTHER_CHECKS))
            ok = body["status"] == "ok"
        self.stdout.write(json.dumps(body))
        if not ok:
            raise CommandError(f"{role} is not {'alive' if live else 'ready'}", returncode=1)
