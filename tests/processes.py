"""Starting and stopping the real processes that end-to-end and chaos tests run."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from celery import Celery

from config import devstack

BASE_DIR = Path(__file__).resolve().parents[1]
# Test workers serve every queue; production runs callbacks and mail on processes of
# their own.
ALL_QUEUES = "pdf,maintenance,callbacks,mail,previews"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def database_url_for_tests() -> str:
    """The URL of the test database, for processes the tests start."""
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def tail(path: Path, lines: int = 60) -> str:
    if not path.exists():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def start(args: list[str], *, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """Start a process in its own session, so it and its children can be killed together."""
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=BASE_DIR,
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def web_args(port: int) -> list[str]:
    return [
        "-m",
        "uvicorn",
        "config.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]


def worker_args(*, name: str, concurrency: int = 1, queues: str = ALL_QUEUES) -> list[str]:
    # `make run`'s worker, without the start-up chatter between test workers.
    worker = devstack.worker_args(queues=queues, concurrency=concurrency, name=name)
    return [*worker, "--without-gossip", "--without-mingle"]


def wait_for_worker(
    app: Celery, name: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"worker {name} exited:\n{tail(log)}")
        replies = app.control.ping(timeout=0.5)
        if any(name in host for reply in replies for host in reply):
            return
    raise RuntimeError(f"worker {name} did not start:\n{tail(log)}")


def stop(proc: subprocess.Popen[bytes], *, sig: int = signal.SIGTERM, timeout: float = 20) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL a process and every child it started (a whole Celery worker)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=10)
