"""The image's entrypoint: every Procfile role by name, manage.py by `manage`, and a
HEALTHCHECK that answers for the container's role without starting Django."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from config.entrypoint import ROLES, procfile_roles

pytestmark = pytest.mark.process


ROOT = Path(__file__).resolve().parents[2]


def entrypoint(*args: str, var: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "config.entrypoint", *args],
        cwd=ROOT,
        env={**os.environ, "VAR_DIR": str(var), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_every_role_the_image_names_is_a_procfile_role():
    assert set(ROLES) <= set(procfile_roles())


def test_an_unknown_role_is_refused_with_the_list(tmp_path):
    result = entrypoint("wrker", var=tmp_path, DJANGO_SETTINGS_MODULE="config.settings.test")
    assert result.returncode == 64
    assert "unknown role 'wrker'; one of: web, worker" in result.stderr


def test_manage_runs_manage_py(tmp_path):
    result = entrypoint(
        "manage", "check", var=tmp_path, DJANGO_SETTINGS_MODULE="config.settings.test"
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def _report(path: Path, *, age: float, ok: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    checks = {
        "database": {"ok": True, "detail": "", "ms": 1},
        "renderer": {"ok": ok, "detail": "x", "ms": 1},
    }
    path.write_text(
        json.dumps({"role": "worker", "at": time.time() - age, "stale_after": 30, "checks": checks})
    )


@pytest.mark.parametrize(
    ("age", "ok", "args", "code"),
    [
        (1, True, [], 0),  # fresh and passing: ready
        (1, False, [], 1),  # a failing check: not ready...
        (1, False, ["--live"], 0),  # ...but alive
        (60, True, [], 1),  # the main process stopped writing: neither
        (60, True, ["--live"], 1),
    ],
)
def test_the_healthcheck_reads_the_workers_file(tmp_path, age, ok, args, code):
    (tmp_path / "role").write_text("worker")
    _report(tmp_path / "health" / "worker.json", age=age, ok=ok)
    started = time.monotonic()
    result = entrypoint("health", *args, var=tmp_path)
    assert result.returncode == code, result.stdout
    if not args:
        assert json.loads(result.stdout)["status"] == ("ok" if code == 0 else "unavailable")
    assert time.monotonic() - started < 5  # no Django start-up in a probe


def test_the_healthcheck_of_a_worker_that_never_wrote_is_not_ready(tmp_path):
    (tmp_path / "role").write_text("previews")
    result = entrypoint("health", var=tmp_path)
    assert result.returncode == 1
    assert "previews.json" in json.loads(result.stdout)["detail"]


def test_the_web_healthcheck_asks_the_web_process(tmp_path, live_server):
    (tmp_path / "role").write_text("web")
    port = live_server.url.rsplit(":", 1)[1]
    result = entrypoint("health", var=tmp_path, PORT=port, DJANGO_ALLOWED_HOSTS="testserver")
    assert result.returncode == 0, result.stdout
    assert set(json.loads(result.stdout)["checks"]) == {
        "database",
        "broker",
        "redis",
        "storage",
        "renderer",
    }
    down = entrypoint("health", var=tmp_path, PORT="9")
    assert down.returncode == 1
    assert "web does not answer" in json.loads(down.stdout)["detail"]
