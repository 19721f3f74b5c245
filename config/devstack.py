"""`make run`: migrate, seed the demo, then run web + worker + beat together until Ctrl-C.

Starts the embedded Redis first when REDIS_URL is unset, so the processes share it. Each
process writes to var/log/<process>.log (the console with VERBOSE=1); the console gets a
short summary once everything answers (config/devconsole.py).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import httpx

from config import devconsole, embedded_redis
from core import metrics_dir

BASE_DIR = Path(__file__).resolve().parent.parent
HOST = os.environ.get("HOST", "127.0.0.1")
PORT = os.environ.get("PORT", "8000")


def public_base_url(host: str, port: str) -> str:
    """The address mails and callbacks link to: the one `make run` serves. A wildcard bind
    is reached from elsewhere by this machine's name."""
    if host in ("", "0.0.0.0", "::", "[::]"):  # noqa: S104 - naming the wildcard, not binding
        host = socket.getfqdn()
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 literal
    return f"http://{host}:{port}"


def _manage(*args: str) -> str:
    """Run a management command; its output, or the exit with it shown when it fails."""
    done = subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", *args], cwd=BASE_DIR, capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        devconsole.say(f"manage.py {args[0]} failed with {done.returncode}", error=True)
        raise SystemExit(done.returncode)
    return done.stdout


def celery_args(*args: str) -> list[str]:
    """Arguments after the Python executable that run `celery -A config …`."""
    return ["-m", "celery", "-A", "config", *args]


def worker_args(
    *, queues: str, concurrency: int | str, name: str = "", pool: str = ""
) -> list[str]:
    """A Celery worker of `queues` (named `name@host` when several share a host)."""
    return celery_args(
        "worker",
        "--loglevel=info",
        # Mingle asks the other workers for their revoked task ids and waits a second for
        # answers at every start; nothing here revokes tasks (a cancel is the job's row).
        "--without-mingle",
        f"--queues={queues}",
        f"--concurrency={concurrency}",
        *([f"--pool={pool}"] if pool else []),
        *([f"--hostname={name}@%h"] if name else []),
    )


# Renders run behind the web process on a shared host: a submit then takes the CPU it
# needs the moment it arrives (docs/operations/index.md, "Process layout on one host";
# `make bench` (c)).
RENDERERS = ("worker", "previews")
PR_SET_PDEATHSIG = 1  # prctl(2)


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the devstack dies, even by SIGKILL (Linux), since the
    children sit in process groups of their own, out of reach of the terminal's Ctrl-C."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # not Linux: a killed devstack leaves its children to be stopped by hand


def _renice() -> None:
    _die_with_parent()
    os.nice(int(os.environ.get("WORKER_NICE", "10")))


def _processes(var_dir: Path) -> dict[str, list[str]]:
    python = sys.executable
    processes = {
        # config.web refuses DEBUG or the development key on a non-loopback HOST.
        "web": ["-m", "config.web"],
        "worker": worker_args(
            queues="pdf,maintenance", concurrency=os.environ.get("WORKER_CONCURRENCY", "2")
        ),
        # Callbacks wait on tenants' servers: threads of their own, not render children.
        "callbacks": worker_args(
            queues="callbacks", concurrency=8, name="callbacks", pool="threads"
        ),
        # The owner's mail waits on the mail server: threads of their own too.
        "mail": worker_args(queues="mail", concurrency=2, name="mail", pool="threads"),
        "previews": worker_args(queues="previews", concurrency=1, name="previews"),
        "beat": celery_args(
            "beat", "--loglevel=info", f"--schedule={var_dir / 'celerybeat-schedule'}"
        ),
    }
    if os.environ.get("FLOWER_PORT"):  # optional: `FLOWER_PORT=5555 make run`; Flower reads it
        processes["flower"] = celery_args("flower", f"--address={HOST}")
    return {name: [python, *args] for name, args in processes.items()}


# What each Celery process logs once it serves (the web is asked over HTTP instead).
READY = {
    "worker": re.compile(r"@\S+ ready\."),
    "callbacks": re.compile(r"@\S+ ready\."),
    "mail": re.compile(r"@\S+ ready\."),
    "previews": re.compile(r"@\S+ ready\."),
    "beat": re.compile(r"beat: Starting"),
    "flower": re.compile(r"Visit me at|Registered tasks"),
}
# Stop waiting for everything to answer after this long; the summary says so.
READY_TIMEOUT_SECONDS = 120
STOP_TIMEOUT_SECONDS = 10
_DEMO_USER = re.compile(r"^Demo user: (?P<username>\S+) / password (?P<password>\S+)$", re.M)


def _web_url() -> str:
    host = "127.0.0.1" if HOST in ("", "0.0.0.0", "::", "[::]") else HOST  # noqa: S104
    return public_base_url(host, PORT) + "/"


def _all_answer(
    children: dict[str, subprocess.Popen[bytes]], logs: dict[str, Path], deadline: float
) -> bool:
    """Wait until the web answers and each Celery process says it is ready; False if the
    deadline passes first or a process exits (the main loop reports that one)."""
    waiting = set(children)
    while waiting and time.monotonic() < deadline:
        if any(child.poll() is not None for child in children.values()):
            return False
        for name in sorted(waiting):
            if name == "web":
                try:
                    if httpx.get(f"{_web_url()}livez", timeout=1).status_code == 200:
                        waiting.discard(name)
                except httpx.HTTPError:
                    pass
            elif name not in logs or not READY.get(name):
                waiting.discard(name)  # VERBOSE: nothing to read; the web check is enough
            elif READY[name].search(logs[name].read_text(errors="replace")):
                waiting.discard(name)
        time.sleep(0.3)
    return not waiting


def _tail(path: Path, lines: int = 15) -> str:
    text = path.read_text(errors="replace").splitlines() if path.exists() else []
    return "\n".join(f"    {line}" for line in text[-lines:])


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    # Set before any process starts, so web, workers and beat all link to this address.
    os.environ.setdefault("PUBLIC_BASE_URL", public_base_url(HOST, PORT))
    # Before anything starts: a taken port is one line naming the variable to change.
    ports = [("PORT", HOST, PORT)]
    if os.environ.get("FLOWER_PORT"):
        ports.append(("FLOWER_PORT", HOST, os.environ["FLOWER_PORT"]))
    for variable, host, port in ports:
        if not port.isdigit():
            devconsole.say(f"{variable}={port!r} is not a port number", error=True)
            return 2
        if (problem := devconsole.port_problem(host, int(port), variable)) is not None:
            devconsole.say(problem, error=True)
            return 2
    verbose = os.environ.get("VERBOSE", "") not in ("", "0")
    var_dir = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))
    log_dir = var_dir / "log"
    log_dir.mkdir(parents=True, exist_ok=True)
    if not os.environ.get("REDIS_URL"):
        url = embedded_redis.start(var_dir / "redis")
        devconsole.say(f"embedded Redis at {url}")
    # One metrics directory for web, worker and beat, empty at each start.
    metrics_dir.metrics_dir_prepare(default=var_dir / "prometheus", wipe_default=True)
    devconsole.say("migrating the database, seeding the demo user and the samples")
    _manage("migrate", "--noinput", "-v", "0")
    seeded = _manage("seed_demo")
    (log_dir / "setup.log").write_text(seeded)

    # SIGTERM shuts a worker down cold: running renders get WORKER_SOFT_SHUTDOWN_SECONDS
    # (0 under make run), then their messages go back to the broker.
    env = {**os.environ, "REMAP_SIGTERM": "SIGQUIT", "PYTHONUNBUFFERED": "1"}
    processes = _processes(var_dir)
    logs = {} if verbose else {name: log_dir / f"{name}.log" for name in processes}
    files: list[IO[bytes]] = []
    children = {}
    devconsole.say(f"starting {', '.join(processes)}")
    for name, cmd in processes.items():
        output: IO[bytes] | None = None
        if name in logs:
            output = logs[name].open("wb")  # each start begins its logs afresh
            files.append(output)
        children[name] = subprocess.Popen(  # noqa: S603
            cmd,
            cwd=BASE_DIR,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT if output else None,
            preexec_fn=_renice if name in RENDERERS else _die_with_parent,
            # Out of the terminal's process group: Ctrl-C reaches the devstack alone, which
            # then stops each child once (a worker that got SIGINT and then SIGTERM could
            # hang between warm and cold shutdown).
            process_group=0,
        )
    signals = 0

    def stop(*_: object) -> None:
        nonlocal signals
        signals += 1
        if signals > 1:  # a second Ctrl-C: no more waiting
            for child in children.values():
                if child.poll() is None:
                    child.kill()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    ready = _all_answer(children, logs, time.monotonic() + READY_TIMEOUT_SECONDS)
    if not signals and all(child.poll() is None for child in children.values()):
        user = _DEMO_USER.search(seeded)
        key_file = var_dir / "demo-api-key"
        summary = devconsole.Summary(
            url=_web_url(),
            username=user["username"] if user else "demo",
            password=user["password"] if user else "demo",
            api_key=key_file.read_text().strip() if key_file.exists() else "(none)",
            key_file=key_file,
            log_dir=log_dir,
            mail_dir=Path(os.environ.get("EMAIL_FILE_PATH", var_dir / "mail")),
            processes=tuple(processes),
            verbose=verbose,
        )
        for line in summary.lines(colour=devconsole.use_colour(sys.stdout)):
            print(line, flush=True)
        if not ready:
            devconsole.say(f"not everything answered within {READY_TIMEOUT_SECONDS} s yet")
    # The gallery's thumbnails, rendered on the previews worker before anyone asks (once per
    # sample version: later starts find them cached). A helper, not a service: not watched.
    helpers: list[subprocess.Popen[bytes]] = []
    if not signals:
        warm_log = (log_dir / "thumbnails.log").open("wb")
        files.append(warm_log)
        helpers.append(
            subprocess.Popen(
                [sys.executable, "manage.py", "warm_thumbnails"],
                cwd=BASE_DIR,
                env=env,
                stdout=warm_log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
                process_group=0,
            )
        )
    exit_code = 0
    while not signals:
        for name, child in children.items():
            if child.poll() is not None:
                devconsole.say(f"{name} exited with {child.returncode}; stopping", error=True)
                if name in logs:
                    print(f"  last lines of {logs[name]}:\n{_tail(logs[name])}", file=sys.stderr)
                exit_code, signals = child.returncode or 1, 1
                break
        time.sleep(0.2)
    started = time.monotonic()
    for child in [*children.values(), *helpers]:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    for helper in helpers:
        helper.wait()
    deadline = started + STOP_TIMEOUT_SECONDS
    killed = []
    for name, child in children.items():
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            killed.append(name)
    embedded_redis.stop()
    for file in files:
        file.close()
    late = f" (killed {', '.join(killed)} after {STOP_TIMEOUT_SECONDS} s)" if killed else ""
    devconsole.say(f"stopped in {time.monotonic() - started:.1f} s{late}")
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
