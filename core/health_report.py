"""Reading a role's health without starting Django, so the image's HEALTHCHECK costs a
few milliseconds: a worker's health file (written by jobs.worker.health), or the web
process's own /livez and /readyz over loopback."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def worker_health(path: Path) -> tuple[bool, bool, dict[str, Any]]:
    """(live, ready, body). Live while the worker's main process keeps writing its file
    (within the `stale_after` it wrote); ready when it also found every check passing."""
    report = read_json(path)
    if report is None:
        return False, False, {"status": "unavailable", "detail": f"no {path} yet"}
    age = time.time() - float(report.get("at", 0))
    live = age <= float(report.get("stale_after", 30))
    checks = report.get("checks") or {}
    ready = live and bool(checks) and all(check.get("ok") for check in checks.values())
    body: dict[str, Any] = {
        "status": "ok" if ready else "unavailable",
        "role": report.get("role"),
        "age_seconds": round(age, 1),
        "checks": checks,
    }
    if not live:
        body["detail"] = f"the worker has not reported for {age:.0f} s"
    return live, ready, body


def web_health(*, port: str, host: str, live: bool, timeout: float) -> tuple[bool, dict[str, Any]]:
    """Ask the web process on loopback, as a TLS-terminating proxy would (X-Forwarded-Proto:
    no redirect to https) and by a name it accepts (ALLOWED_HOSTS: no 400)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/{'livez' if live else 'readyz'}",
        headers={"Host": host, "X-Forwarded-Proto": "https"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - loopback
            return response.status == 200, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            body = json.loads(exc.read())
        except ValueError:
            body = {"status": "unavailable", "detail": f"HTTP {exc.code}"}
        return False, body
    except OSError as exc:
        return False, {"status": "unavailable", "detail": f"web does not answer: {exc}"}


def host_header(allowed_hosts: list[str]) -> str:
    for host in allowed_hosts:
        if host and host != "*":
            return host.lstrip(".") or "localhost"
    return "localhost"
