"""Starting and stopping the real processes that end-to-end and chaos tests run."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import ephemeral_port_reserve
import pytest
import redis
from celery import Celery
from kombu import Connection

from config import devstack
from tests.redis_plugin import amqp_url_with_vhost_suffix

BASE_DIR = Path(__file__).resolve().parents[1]
# Test workers serve every queue; production runs callbacks and mail on processes of
# their own.
ALL_QUEUES = "pdf,maintenance,callbacks,mail,previews"


def service_missing(message: str) -> NoReturn:
    """A test that needs what this machine lacks: in CI (`CI` set) a failure, since CI has
    everything; elsewhere a skip whose reason says what is missing and how to get it."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def free_port() -> int:
    """A loopback port for a server a test starts, kept from every other process's bind
    to port 0 for a minute: it is left in TIME_WAIT, which servers binding with
    SO_REUSEADDR (uvicorn, redis, werkzeug, socat's reuseaddr) pass and port-0 binds do
    not. A port merely found free and closed was once handed to another test process in
    between, whose server then answered a test's requests (a submit met "Server
    disconnected without sending a response", and the test's own uvicorn had not
    written a line)."""
    return int(ephemeral_port_reserve.reserve("127.0.0.1"))


def python_answer(code: str, *, env: dict[str, str] | None = None) -> Any:
    """Run `code` in a Python of its own, from the repository, and return the last line it
    printed read as JSON: what a fresh process imports, freezes or configures, which this
    test process (which imported everything long ago) cannot show."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=BASE_DIR,
        env=os.environ.copy() if env is None else env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


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


# Where each process start() made began in its log: what it writes is after that. Kept by
# the process object, not its pid, which a later process may reuse.
_log_starts: weakref.WeakKeyDictionary[subprocess.Popen[bytes], int] = weakref.WeakKeyDictionary()


def start(
    args: list[str], *, env: dict[str, str], log: Path, prefix: Sequence[str] = ()
) -> subprocess.Popen[bytes]:
    """Start a process in its own session, so it and its children can be killed together.
    `prefix` runs the Python through another command (`ip netns exec <host>`, `unshare`)."""
    output = log.open("ab")
    proc = subprocess.Popen(
        [*prefix, sys.executable, *args],
        cwd=BASE_DIR,
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    _log_starts[proc] = output.tell()
    return proc


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


def log_start(proc: subprocess.Popen[bytes]) -> int | None:
    """Where `proc` began writing in its log, for a process start() made."""
    return _log_starts.get(proc)


def worker_args(*, name: str, concurrency: int = 1, queues: str = ALL_QUEUES) -> list[str]:
    # `make run`'s worker, without the start-up chatter between test workers.
    worker = devstack.worker_args(queues=queues, concurrency=concurrency, name=name)
    return [*worker, "--without-gossip", "--without-mingle"]


def wait_for_worker(
    app: Celery, name: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60
) -> None:
    deadline = time.monotonic() + timeout
    node = name if "@" in name else f"{name}@{socket.gethostname()}"
    # A ping sent before the worker consumes is never answered and waits out its whole
    # timeout (2 s), so for a worker start() made, its own "ready." line in its log (text
    # or JSON) comes first, for half the time at most. One started otherwise is pinged from
    # the start.
    logged_from = _log_starts.pop(proc, None)
    read_until = time.monotonic() + timeout / 2
    while logged_from is not None and time.monotonic() < read_until:
        if f"{node} ready." in read_from(log, logged_from):
            break
        if proc.poll() is not None:
            raise RuntimeError(f"worker {name} exited:\n{tail(log)}")
        time.sleep(0.05)
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"worker {name} exited:\n{tail(log)}")
        # Asked by name, a reply ends the wait at once; RabbitMQ can take over 0.5 s to
        # carry one, so the timeout is generous.
        try:
            replies = app.control.ping(destination=[node], limit=1, timeout=2)
        except (ConnectionError, OSError, redis.exceptions.ConnectionError):
            # A broker of the test's own that is still starting (or just restarted) may
            # close the first connection: not yet an answer either way, ask again.
            time.sleep(0.2)
            continue
        if any(name in host for reply in replies for host in reply):
            return
    raise RuntimeError(f"worker {name} did not start:\n{tail(log)}")


def read_from(log: Path, offset: int) -> str:
    try:
        with log.open("rb") as lines:
            lines.seek(offset)
            return lines.read().decode(errors="replace")
    except FileNotFoundError:
        return ""


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


def broker_url_for_tests(redis_url: str) -> str:
    """The broker of the processes a test starts on its own Redis: CELERY_BROKER_URL when
    the run names an AMQP one (CI reruns the end-to-end tests on RabbitMQ), else that
    Redis. On RabbitMQ the test gets a vhost apart from the session's (`<vhost>_own`), so
    the live stack's worker, which stays up all session, never takes its messages."""
    url = os.environ.get("CELERY_BROKER_URL") or ""
    if not url or url.startswith("redis"):
        return redis_url
    return amqp_url_with_vhost_suffix(url, "own")


def messages_waiting(broker_url: str, queue: str) -> list[dict[str, Any]]:
    """The headers of the messages waiting in a queue, oldest first, left where they are:
    a Redis list read, or on AMQP each message taken unacknowledged and then returned."""
    if broker_url.startswith("redis"):
        import redis

        client = redis.Redis.from_url(broker_url)
        try:
            raw = client.lrange(queue, 0, -1)
        finally:
            client.close()
        return [json.loads(item)["headers"] for item in reversed(raw)]
    with Connection(broker_url, connect_timeout=2) as connection:
        channel = connection.channel()
        headers = []
        while (message := channel.basic_get(queue, no_ack=False)) is not None:
            headers.append(dict(message.headers or {}))
        channel.close()  # unacknowledged: RabbitMQ puts every one back
    return headers
