"""`make run`: migrate, seed the demo, then run web + worker + beat together until Ctrl-C.

Starts the embedded Redis first when REDIS_URL is unset, so the three processes share it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from config import embedded_redis
from core import metrics_dir

BASE_DIR = Path(__file__).resolve().parent.parent
HOST = os.environ.get("HOST", "127.0.0.1")
PORT = os.environ.get("PORT", "8000")


def _manage(*args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR, check=True)  # noqa: S603


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
        f"--queues={queues}",
        f"--concurrency={concurrency}",
        *([f"--pool={pool}"] if pool else []),
        *([f"--hostname={name}@%h"] if name else []),
    )


# Renders run behind the web process on a shared host: a submit then takes the CPU it
# needs the moment it arrives (docs/operations/index.md, "Process layout on one host";
# `make bench` (c)).
RENDERERS = ("worker", "previews")


def _renice() -> None:
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
        "previews": worker_args(queues="previews", concurrency=1, name="previews"),
        "beat": celery_args(
            "beat", "--loglevel=info", f"--schedule={var_dir / 'celerybeat-schedule'}"
        ),
    }
    if os.environ.get("FLOWER_PORT"):  # optional: `FLOWER_PORT=5555 make run`; Flower reads it
        processes["flower"] = celery_args("flower", f"--address={HOST}")
    return {name: [python, *args] for name, args in processes.items()}


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    var_dir = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))
    var_dir.mkdir(parents=True, exist_ok=True)
    if not os.environ.get("REDIS_URL"):
        url = embedded_redis.start(var_dir / "redis")
        print(f"devstack: embedded Redis at {url}", flush=True)
    # One metrics directory for web, worker and beat, empty at each start.
    metrics_dir.metrics_dir_prepare(default=var_dir / "prometheus", wipe_default=True)
    _manage("migrate", "--noinput", "-v", "0")
    _manage("seed_demo")

    # SIGTERM soft-shuts a worker down: running renders get WORKER_SOFT_SHUTDOWN_SECONDS,
    # then their messages go back to the broker for another worker.
    env = {**os.environ, "REMAP_SIGTERM": "SIGQUIT"}
    children = {
        name: subprocess.Popen(  # noqa: S603
            cmd, cwd=BASE_DIR, env=env, preexec_fn=_renice if name in RENDERERS else None
        )
        for name, cmd in _processes(var_dir).items()
    }
    print(f"devstack: web, workers and beat running; open http://{HOST}:{PORT}/", flush=True)
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    exit_code = 0
    while not stopping:
        for name, child in children.items():
            if child.poll() is not None:
                print(f"devstack: {name} exited with {child.returncode}; stopping", flush=True)
                exit_code, stopping = child.returncode or 1, True
                break
        time.sleep(0.5)
    for child in children.values():
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 15
    for child in children.values():
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
    embedded_redis.stop()
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
