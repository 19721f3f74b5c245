"""The image's entrypoint: `IMAGE ROLE` runs that Procfile role (web, worker, callbacks,
mail, previews, beat, release), `IMAGE manage ARGS...` runs manage.py, `IMAGE health` is the
HEALTHCHECK of whichever role the container runs.

Before a role starts, the settings are imported once: a missing or wrong setting stops the
container with one line naming it, not a traceback from deep inside Celery or uvicorn."""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from core.health_report import host_header, web_health, worker_health

ROOT = Path(__file__).resolve().parent.parent
ROLES = ("web", "worker", "callbacks", "mail", "previews", "beat", "release")
WORKER_ROLES = {"worker", "callbacks", "mail", "previews"}
EX_USAGE, EX_CONFIG = 64, 78  # sysexits.h


def procfile_roles(path: Path = ROOT / "Procfile") -> dict[str, str]:
    roles = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, sep, command = line.partition(":")
        if sep and name.strip() and not name.startswith("#"):
            roles[name.strip()] = command.strip()
    return roles


def role_file() -> Path:
    return Path(os.environ.get("VAR_DIR", str(ROOT / "var"))) / "role"


def settings_problem() -> str | None:
    """The settings module's own refusal (ImproperlyConfigured), as one line."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
    try:
        importlib.import_module(os.environ["DJANGO_SETTINGS_MODULE"])
    except ImproperlyConfigured as exc:
        return str(exc)
    return None


def health(args: list[str]) -> int:
    """The HEALTHCHECK: the role this container started (`var/role`), answered without
    Django (a worker's health file, the web's own /readyz), so each probe is cheap."""
    try:
        role = role_file().read_text(encoding="utf-8").strip() or "web"
    except OSError:
        role = "web"
    live = "--live" in args
    if role == "web":
        hosts = os.environ.get("DJANGO_ALLOWED_HOSTS", "").split(",")
        timeout = float(os.environ.get("HEALTH_CHECK_TIMEOUT_SECONDS", "3")) + 2
        port = os.environ.get("PORT", "8000")
        ok, body = web_health(port=port, host=host_header(hosts), live=live, timeout=timeout)
    elif role in WORKER_ROLES:
        var = Path(os.environ.get("VAR_DIR", str(ROOT / "var")))
        directory = Path(os.environ.get("WORKER_HEALTH_DIR", str(var / "health")))
        alive, ready, body = worker_health(directory / f"{role}.json")
        ok = alive if live else ready
    else:
        # Beat and release: their own process is the container's; what they need is in
        # `manage.py health --role beat`, too slow for every probe.
        ok, body = True, {"status": "ok", "role": role}
    print(json.dumps(body))
    return 0 if ok else 1


def main(argv: list[str]) -> int:
    if not argv or argv[0] in {"-h", "--help"}:
        print(f"usage: IMAGE {{{'|'.join(ROLES)}}} | manage ARGS... | health", file=sys.stderr)
        return EX_USAGE
    command, args = argv[0], argv[1:]
    if command == "health":
        return health(args)
    if (problem := settings_problem()) is not None:
        print(f"configuration error: {problem}", file=sys.stderr)
        return EX_CONFIG
    if command == "manage":
        os.execv(sys.executable, [sys.executable, str(ROOT / "manage.py"), *args])  # noqa: S606
    roles = procfile_roles()
    if command not in ROLES or command not in roles:
        print(
            f"unknown role {command!r}; one of: {', '.join(ROLES)}, manage, health", file=sys.stderr
        )
        return EX_USAGE
    path = role_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(command, encoding="utf-8")
    os.chdir(ROOT)
    # The Procfile's shell syntax (${VAR:-default}, &&) needs a shell; dash runs the last
    # command in its place, so signals from tini reach the role itself.
    os.execv("/bin/sh", ["sh", "-c", roles[command]])  # noqa: S606 - the Procfile's line
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
