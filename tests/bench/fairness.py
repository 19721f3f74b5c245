"""`make bench` (fairness part): tenant B's single job behind tenant A's 500-job burst.

Starts its own embedded Redis, SQLite database, one uvicorn and one Celery worker with
two children, on loopback. Measures B's submit-to-completion time alone, then with A's
burst queued just before it, with fair dispatch on (the default) and off (FIFO).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

BASE_DIR = Path(__file__).resolve().parents[2]
BURST = int(os.environ.get("BENCH_BURST", "500"))
JOB = {
    "html_template": "<h1>{{title}}</h1>{{#each rows}}<p>Row {{this}}</p>{{/each}}",
    "data": {"title": "fairness", "rows": list(range(30))},
}


def _manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def _finish(client: httpx.Client, status_url: str, timeout: float = 900) -> None:
    ends = time.monotonic() + timeout
    while time.monotonic() < ends:
        status = client.get(status_url).json()["status"]
        if status == "completed":
            return
        if status in ("failed", "cancelled"):
            raise RuntimeError(f"bench job ended {status}")
        time.sleep(0.05)
    raise RuntimeError("bench job did not finish")


def _single(client: httpx.Client) -> float:
    started = time.perf_counter()
    body = client.post("/api/v1/generate-pdf-async", json=JOB).json()
    _finish(client, body["status_url"])
    return time.perf_counter() - started


def _round(base: str, keys: dict[str, str]) -> tuple[float, float, int]:
    """(B alone, B behind A's burst, A's jobs still queued when B finished)."""
    with (
        httpx.Client(base_url=base, headers={"X-API-Key": keys["a"]}, timeout=60) as a,
        httpx.Client(base_url=base, headers={"X-API-Key": keys["b"]}, timeout=60) as b,
    ):
        alone = statistics.median(_single(b) for _ in range(5))
        with ThreadPoolExecutor(8) as pool:
            urls = list(
                pool.map(
                    lambda _: a.post("/api/v1/generate-pdf-async", json=JOB).json()["status_url"],
                    range(BURST),
                )
            )
        behind = _single(b)
        waiting = a.get("/api/v1/jobs", params={"status": "queued", "limit": 1})
        queued = int(waiting.json().get("count", 0))
        for url in urls:  # let the burst drain before the next round
            _finish(a, url)
        return alone, behind, queued


def _stack(env: dict[str, str], var: Path, fair: bool) -> tuple[object, object, str]:
    from tests.processes import free_port, start, worker_args

    env = {**env, "PDF_FAIR_DISPATCH": "true" if fair else "false"}
    port = free_port()
    web = start(
        ["-m", "uvicorn", "config.asgi:application", "--port", str(port), "--log-level", "warning"],
        env=env,
        log=var / "web.log",
    )
    worker = start(worker_args(name=f"fair-{port}", concurrency=2), env=env, log=var / "worker.log")
    base = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            httpx.get(f"{base}/livez", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.2)
    return web, worker, base


def main() -> int:
    from config import embedded_redis
    from tests.processes import stop

    var = Path(tempfile.mkdtemp(prefix="bench-fair-"))
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DJANGO_DEBUG="false",
        VAR_DIR=str(var),
        DATABASE_URL=os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{var / 'db.sqlite3'}"),
        PDF_MAX_JOBS_IN_FLIGHT=str(BURST * 2),
        API_RATE_SUBMIT="1000000/min",
        API_RATE_STATUS_READ="1000000/min",
    )
    env["REDIS_URL"] = embedded_redis.start(var / "redis")
    try:
        _manage(env, "migrate", "-v", "0")
        keys = {"a": _manage(env, "create_api_key", "tenant-a")}
        keys["b"] = _manage(env, "create_api_key", "tenant-b")
        print(f"Fair dispatch: tenant B's one job behind tenant A's {BURST} queued jobs")
        print("(one worker, two children; submit to completed, seconds)")
        for fair in (True, False):
            web, worker, base = _stack(env, var, fair)
            try:
                time.sleep(3)  # the worker connects
                alone, behind, queued = _round(base, keys)
            finally:
                stop(worker)
                stop(web)
            label = "fair dispatch (default)" if fair else "FIFO (PDF_FAIR_DISPATCH=false)"
            print(
                f"  {label:32} alone {alone:5.2f}   behind the burst {behind:6.2f}"
                f"   = {behind / alone:5.1f} render times   ({queued} of A's still queued)"
            )
    finally:
        embedded_redis.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
