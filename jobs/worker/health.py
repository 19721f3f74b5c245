"""A worker's health, kept where its HEALTHCHECK reads it: the main process runs the
readiness checks every WORKER_HEALTH_SECONDS and writes them to `<role>.json` in
WORKER_HEALTH_DIR; each pool child asks its warm Chromium to answer and writes
`<role>.child-<pid>.json`. A wedged browser is killed by its child (the next job starts a
new one); a child that stops writing is killed by the main process (Celery starts another).
Either way the worker reports not-ready until the replacement is in place."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import asdict
from pathlib import Path
from typing import Any

from django.conf import settings

from core.daemon_loop import DaemonLoop
from core.health_report import read_json
from jobs.readiness import CheckResult, run_checks
from rendering.renderers.chromium_browser import running_chromium_service

logger = logging.getLogger(__name__)

WORKER_CHECKS = ["database", "broker", "redis", "storage", "renderer"]


def role_of(nodename: str) -> str:
    """The Procfile names its Celery nodes `callbacks@host`, `mail@host` and `previews@host`;
    the render workers keep Celery's default `celery@host`."""
    prefix = nodename.partition("@")[0]
    return prefix if prefix in {"callbacks", "mail", "previews"} else "worker"


def health_dir() -> Path:
    return Path(settings.WORKER_HEALTH_DIR)


def main_file(role: str) -> Path:
    return health_dir() / f"{role}.json"


def child_file(role: str, pid: int) -> Path:
    return health_dir() / f"{role}.child-{pid}.json"


def write_json(path: Path, payload: dict[str, Any]) -> None:
    """Whole or not at all: the reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(json.dumps(payload), encoding="utf-8")
    partial.replace(path)


def renderer_probe(*, replace: bool = False) -> CheckResult:
    """This child's warm Chromium answers a CDP call, or is killed for not answering. With
    `replace` (the last probe killed one), a new browser is started and must answer."""
    service = running_chromium_service()
    if service is None:
        return CheckResult(True, "no browser started in this process yet")
    begun = time.monotonic()
    try:
        if replace:
            service.start_browser(timeout=60)
        alive = service.ping(timeout=settings.WORKER_RENDERER_PING_SECONDS)
    except Exception as exc:  # BrowserUnavailable, or a replacement that did not start
        logger.warning("renderer wedged: %s", exc)
        return CheckResult(False, str(exc), _ms(begun))
    if replace:
        detail = "replaced: a new Chromium answered"
    else:
        detail = "warm Chromium answered" if alive else "no warm Chromium (the next job starts one)"
    return CheckResult(True, detail, _ms(begun))


def chromium_launch_check() -> CheckResult:
    """Start a Chromium the way a job would, in a process of its own (the main process
    forks pool children and must not hold a browser or the driver's threads)."""
    begun = time.monotonic()
    try:
        done = subprocess.run(  # noqa: S603 - this interpreter, a module of ours
            [sys.executable, "-m", "rendering.renderers.chromium_check", settings.CHROMIUM_PATH],
            capture_output=True,
            text=True,
            timeout=90,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return CheckResult(False, "Chromium did not start within 90 s", _ms(begun))
    if done.returncode == 0:
        return CheckResult(True, done.stdout.strip(), _ms(begun))
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    return CheckResult(False, " / ".join(lines)[:400] or "Chromium did not start", _ms(begun))


def _ms(since: float) -> float:
    return round((time.monotonic() - since) * 1000, 1)


class _Loop(DaemonLoop):
    """Calls `step` every WORKER_HEALTH_SECONDS until stopped; a step that fails is logged
    and the next one runs."""

    def __init__(self, name: str, step: Callable[[], None]) -> None:
        def logged_step() -> None:
            try:
                step()
            except Exception:
                logger.exception("health step failed")

        super().__init__(name, logged_step, lambda: settings.WORKER_HEALTH_SECONDS)


class ChildWatch(_Loop):
    """In a pool child: ping the renderer, say so in this child's file."""

    def __init__(self, *, role: str) -> None:
        super().__init__("renderer-watch", self.step)
        self.role = role
        self.pid = os.getpid()
        self.replace = False
        self.last: CheckResult | None = None

    def step(self) -> None:
        if self.replace and self.last is not None:
            # Starting a new browser may take many seconds on a busy host: the main process
            # counts silence from the last report, so say this child is alive before it.
            self._report(self.last)
        result = renderer_probe(replace=self.replace)
        self.replace = not result.ok
        self.last = result
        self._report(result)

    def _report(self, result: CheckResult) -> None:
        write_json(
            child_file(self.role, self.pid),
            {"pid": self.pid, "at": time.time(), "renderer": asdict(result)},
        )


class MainBeat(_Loop):
    """In the worker's main process: the readiness checks, the children's renderer reports,
    and the end of a child that stopped reporting."""

    def __init__(self, *, role: str, children: Callable[[], list[int]]) -> None:
        super().__init__("worker-health", self.step)
        self.role = role
        self.children = children
        self.first_seen: dict[int, float] = {}
        self.killed: dict[int, str] = {}  # reported once more after the kill, then dropped
        # A problem stays reported for two beats, so a probe every interval sees it even
        # when the replacement is quick.
        self.renderer_problem = ""
        self.renderer_problem_until = 0.0
        self.launched = not settings.WORKER_RENDERER_LAUNCH_CHECK
        self.launch_detail = ""
        self.beats = 0

    def step(self) -> None:
        # The first beat makes the clients (boto3's takes seconds on a busy host): it may
        # take longer than a probe should; later beats keep the deadline.
        first, self.beats = self.beats == 0, self.beats + 1
        timeout = max(30.0, settings.HEALTH_CHECK_TIMEOUT_SECONDS) if first else None
        results = run_checks(WORKER_CHECKS, timeout=timeout)
        renderer = results["renderer"]
        if not self.launched and renderer.ok:
            results["renderer"] = chromium_launch_check()
            self.launched = results["renderer"].ok
            self.launch_detail = results["renderer"].detail
        elif renderer.ok and self.launch_detail:
            detail = f"{renderer.detail}; at start: {self.launch_detail}"
            results["renderer"] = CheckResult(True, detail, renderer.ms)
        if problems := self._children_problems():
            self.renderer_problem = "; ".join(problems)
            self.renderer_problem_until = time.time() + 2 * settings.WORKER_HEALTH_SECONDS
        if results["renderer"].ok and time.time() < self.renderer_problem_until:
            results["renderer"] = CheckResult(False, self.renderer_problem)
        write_json(
            main_file(self.role),
            {
                "role": self.role,
                "pid": os.getpid(),
                "at": time.time(),
                # Three missed beats (each may wait out the checks' deadline): not alive.
                "stale_after": 3
                * (settings.WORKER_HEALTH_SECONDS + settings.HEALTH_CHECK_TIMEOUT_SECONDS),
                "checks": {name: asdict(result) for name, result in results.items()},
            },
        )

    def _children_problems(self) -> list[str]:
        now = time.time()
        problems = [self.killed.pop(pid) for pid in list(self.killed)]
        pids = set(self.children())
        for pid in list(self.first_seen):
            if pid not in pids:
                del self.first_seen[pid]
                with suppress(OSError):
                    child_file(self.role, pid).unlink()
        for pid in sorted(pids):
            seen = self.first_seen.setdefault(pid, now)
            report = read_json(child_file(self.role, pid)) or {}
            last = float(report.get("at", seen))
            if now - last > settings.WORKER_CHILD_WEDGED_SECONDS:
                with suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)  # works on a stopped process too
                logger.error("pool child %s silent for %.0f s: killed", pid, now - last)
                self.killed[pid] = (
                    f"pool child {pid} silent for {now - last:.0f} s; killed, Celery starts another"
                )
                continue
            renderer = report.get("renderer") or {}
            if renderer.get("ok") is False and now - last <= 2 * settings.WORKER_HEALTH_SECONDS:
                problems.append(f"pool child {pid}: {renderer.get('detail', 'renderer failed')}")
        return problems
