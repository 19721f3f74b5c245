"""Several hosts on one machine: a web host and two worker hosts, each a network namespace
joined to the root namespace by a veth pair, with no shared disk (reports on S3).

The data services run in the root namespace: PostgreSQL (the machine's), a Redis server
and moto_server of the test's own. Each host reaches each service through a forwarder
(socat) on its own veth address, so a test can cut one host off from one service, cut a
host's link altogether, or close the store for every host. Needs root (ip netns)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from celery import Celery
from django.db import connection

from tests.chaos.conftest import (
    CHAOS_SETTINGS,
    PrivateRedis,
    chaos,  # noqa: F401 - a Redis and workers of a test's own
)
from tests.processes import (
    free_port,
    service_missing,
    start,
    tail,
    wait_for_worker,
    worker_args,
)
from tests.redis_plugin import xdist_worker_number
from tests.s3server import S3Server

# `make test-multihost` runs three tests at a time (pytest -n 3): each test process makes
# hosts of its own, with its own names and subnets, and removes only its own.
_PROCESS = xdist_worker_number() or 0
PREFIX = f"pdfm{_PROCESS}-"  # every namespace and interface this harness makes starts with it
# host -> its /30 subnet 10.231.<n>.0
HOSTS = {host: n + 3 * _PROCESS for host, n in {"web": 1, "w1": 2, "w2": 3}.items()}


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def gateway(host: str) -> str:
    """The root namespace's end of the host's link: where the host finds the services."""
    return f"10.231.{HOSTS[host]}.1"


def address(host: str) -> str:
    return f"10.231.{HOSTS[host]}.2"


def namespaces_remove() -> None:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    for line in listed.splitlines():
        name = line.split()[0] if line.strip() else ""
        if name.startswith(PREFIX):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
    for host in HOSTS:
        subprocess.run(["ip", "link", "del", f"{PREFIX}{host}-r"], capture_output=True)


def namespaces_make() -> None:
    namespaces_remove()  # an earlier run that was killed before its finalizer
    for host, n in HOSTS.items():
        ns, root_end, host_end = f"{PREFIX}{host}", f"{PREFIX}{host}-r", f"{PREFIX}{host}-n"
        _ip("netns", "add", ns)
        _ip("link", "add", root_end, "type", "veth", "peer", "name", host_end)
        _ip("link", "set", host_end, "netns", ns)
        _ip("addr", "add", f"10.231.{n}.1/30", "dev", root_end)
        _ip("link", "set", root_end, "up")
        _ip("-n", ns, "addr", "add", f"10.231.{n}.2/30", "dev", host_end)
        _ip("-n", ns, "link", "set", host_end, "up")
        _ip("-n", ns, "link", "set", "lo", "up")
        # Root's own addresses (the webhook receiver's) through the link; nothing beyond.
        _ip("-n", ns, "route", "add", "default", "via", f"10.231.{n}.1")


def link_set(host: str, *, up: bool) -> None:
    _ip("link", "set", f"{PREFIX}{host}-r", "up" if up else "down")


class Forwarder:
    """socat from a host's gateway address to a service on the root's loopback."""

    def __init__(self, bind: str, port: int, target: int) -> None:
        self.bind, self.port, self.target = bind, port, target
        self.proc: subprocess.Popen[bytes] | None = None

    def open(self) -> None:
        self.proc = subprocess.Popen(
            [
                shutil.which("socat") or "socat",
                f"TCP-LISTEN:{self.port},bind={self.bind},reuseaddr,fork",
                f"TCP:127.0.0.1:{self.target}",
            ],
            start_new_session=True,
        )
        time.sleep(0.1)

    def close(self) -> None:
        """Refuse new connections and cut the open ones."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None


@dataclass
class Hosts:
    redis: PrivateRedis
    s3: S3Server
    logs: Path
    env: dict[str, str]
    app: Celery
    forwarders: dict[tuple[str, str], Forwarder]
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def host_env(self, host: str, **extra: str) -> dict[str, str]:
        via = gateway(host)
        db = connection.settings_dict
        return {
            **self.env,
            "DATABASE_URL": f"postgres://{db['USER']}@{via}:{self.port('pg')}/{db['NAME']}",
            "REDIS_URL": f"redis://{via}:{self.port('redis')}/0",
            "CELERY_BROKER_URL": f"redis://{via}:{self.port('redis')}/0",
            "AWS_S3_ENDPOINT_URL": f"http://{via}:{self.port('s3')}",
            # No shared disk: each host's media directory is its own.
            "MEDIA_ROOT": str(self.logs / f"media-{host}"),
            **extra,
        }

    def port(self, service: str) -> int:
        return self.forwarders[("web", service)].port

    def run(self, name: str, host: str, args: list[str], **extra: str) -> subprocess.Popen[bytes]:
        proc = start(
            args,
            env=self.host_env(host, **extra),
            log=self.logs / f"{name}.log",
            prefix=["ip", "netns", "exec", f"{PREFIX}{host}"],
        )
        self.procs[name] = proc
        return proc

    def worker(self, name: str, host: str, *, concurrency: int = 2) -> subprocess.Popen[bytes]:
        return self.workers(name, on=host, concurrency=concurrency)[0]

    def workers(
        self, *names: str, on: str | None = None, concurrency: int = 2
    ) -> list[subprocess.Popen[bytes]]:
        """Start each worker (on the host of its name unless `on` says), then wait for all:
        they start side by side, as a deploy's hosts do."""
        procs = [
            self.run(name, on or name, worker_args(name=name, concurrency=concurrency))
            for name in names
        ]
        for name, proc in zip(names, procs, strict=True):
            wait_for_worker(self.app, name, proc, self.logs / f"{name}.log")
        return procs

    def beat(self) -> subprocess.Popen[bytes]:
        schedule = self.logs / "beat" / "celerybeat-schedule"
        return self.run(
            "beat", "web", ["-m", "celery", "-A", "config", "beat", f"--schedule={schedule}"]
        )

    def web(self) -> str:
        port = free_port()
        args = [
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            address("web"),
            "--port",
            str(port),
        ]
        self.run("web", "web", [*args, "--log-level", "warning"])
        base = f"http://{address('web')}:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/api/v1/schema", timeout=1).status_code == 200:
                    return base
            except httpx.HTTPError:
                pass
            assert self.procs["web"].poll() is None, tail(self.logs / "web.log")
            assert time.monotonic() < deadline, tail(self.logs / "web.log")
            time.sleep(0.3)

    def stop(self, name: str, sig: int = signal.SIGTERM, timeout: float = 30) -> None:
        proc = self.procs.pop(name)
        if proc.poll() is None:
            proc.send_signal(sig)  # the main process: a warm shutdown hands back its jobs
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)

    def stop_all(self) -> None:
        for name in list(self.procs):
            self.stop(name, sig=signal.SIGKILL)

    def logs_tail(self) -> str:
        return "\n".join(f"== {p.name}\n{tail(p, 25)}" for p in sorted(self.logs.glob("*.log")))


@pytest.fixture
def hosts(transactional_db, tmp_path: Path) -> Iterator[Hosts]:
    if os.geteuid() != 0:
        service_missing("the multi-host tests need root (ip netns): run them as root")
    if connection.vendor != "postgresql":
        service_missing(
            "the multi-host tests need PostgreSQL, which each host reaches over its own link: "
            "set DATABASE_URL=postgres://postgres@127.0.0.1:5432/pdfreports (Debian: apt-get "
            "install postgresql; .ci/run starts it)"
        )
    namespaces_make()
    logs = tmp_path / "logs"
    logs.mkdir()
    (tmp_path / "redis").mkdir()
    redis = PrivateRedis(tmp_path / "redis")
    redis.start()
    s3 = S3Server(logs / "moto.log")
    s3.start()
    s3.gate_close()  # the hosts reach the store through their own forwarders
    targets = {
        "pg": int(connection.settings_dict["PORT"] or 5432),
        "redis": redis.port,
        "s3": s3.port,
    }
    ports = {service: free_port() for service in targets}
    forwarders = {
        (host, service): Forwarder(gateway(host), ports[service], target)
        for host in HOSTS
        for service, target in targets.items()
    }
    for forwarder in forwarders.values():
        forwarder.open()
    env = {
        **os.environ,
        **CHAOS_SETTINGS,
        **{k: v for k, v in s3.env().items() if k != "AWS_S3_ENDPOINT_URL"},
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "PYTHONUNBUFFERED": "1",
        "WORKER_PRESENCE_SECONDS": "1",
        # Renders of a few seconds, held open on purpose, stay inside the time limits.
        "PDF_SOFT_TIME_LIMIT": "20",
        "PDF_HARD_TIME_LIMIT": "25",
        "PDF_STORAGE_RETRY_MAX_SECONDS": "3",
        "PDF_CHUNK_MIN_TAGS": "100",
    }
    app = Celery("multihost", broker=redis.url, set_as_current=False)
    # Celery prefers a CELERY_BROKER_URL in the environment to broker= and broker_url;
    # the read and write URLs it does not.
    app.conf.update(
        broker_read_url=redis.url,
        broker_write_url=redis.url,
        task_default_queue="pdf",
        broker_connection_retry_on_startup=True,
    )
    harness = Hosts(redis=redis, s3=s3, logs=logs, env=env, app=app, forwarders=forwarders)
    try:
        yield harness
    finally:
        harness.stop_all()
        app.close()
        for forwarder in forwarders.values():
            forwarder.close()
        s3.stop()
        redis.stop()
        namespaces_remove()
