"""`make bench` (runs part): 1,000 one-page invoices as one run against the same 1,000 as
separate submits, on one uvicorn and one Celery worker with two children (embedded Redis,
SQLite unless BENCH_DATABASE_URL). Prints, as ratios in one run:

- records/s end to end (POST to the last PDF) of the run and of the separate submits,
- how long the run's POST takes (1,000 jobs made in bulk) against 1,000 submits,
- the ZIP's first byte after the run completed, and its whole download,
- the web process's memory (RSS) before and at most while the ZIP streams,
- another tenant's one job while the run renders, against the same job alone.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psutil

from tests.bench.fairness import _finish, _manage, _stack

RECORDS = int(os.environ.get("BENCH_RUN_RECORDS", "1000"))
TEMPLATE = {
    "slug": "bench-invoice",
    "name": "Bench invoice",
    "engine": "handlebars",
    "html": "<h1>Invoice {{number}}</h1><p>For {{customer}}</p><p>Total {{total}}</p>",
    "schema": {
        "type": "object",
        "required": ["number", "customer"],
        "properties": {"number": {"type": "integer"}, "customer": {"type": "string"}},
    },
}


def _records(offset: int) -> list[dict[str, object]]:
    # Different numbers each round: nothing comes from the result cache.
    return [
        {"number": offset + n, "customer": f"Client {n}", "total": n * 3} for n in range(RECORDS)
    ]


def _wait_idle(client: httpx.Client) -> None:
    """Until the workspace has no job queued or processing."""
    while True:
        busy = sum(
            client.get("/api/v1/jobs", params={"status": s, "limit": 1}).json()["count"]
            for s in ("queued", "processing")
        )
        if not busy:
            return
        time.sleep(0.2)


def _separate(client: httpx.Client) -> tuple[float, float]:
    """(seconds to submit all, seconds to the last PDF)."""
    started = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        list(
            pool.map(
                lambda data: client.post(
                    "/api/v1/generate-pdf-async", json={"template": "bench-invoice", "data": data}
                ).raise_for_status(),
                _records(0),
            )
        )
    submitted = time.perf_counter() - started
    _wait_idle(client)
    return submitted, time.perf_counter() - started


def _single(client: httpx.Client) -> float:
    started = time.perf_counter()
    body = client.post(
        "/api/v1/generate-pdf-async",
        json={"template": "bench-invoice", "data": {"number": 1, "customer": "B"}},
    ).json()
    _finish(client, body["status_url"])
    return time.perf_counter() - started


def _run(client: httpx.Client, other: httpx.Client) -> dict[str, float]:
    started = time.perf_counter()
    answer = client.post(
        "/api/v1/runs",
        json={"template": "bench-invoice", "records": _records(100_000), "output": "zip"},
        timeout=120,
    )
    answer.raise_for_status()
    accepted = time.perf_counter() - started
    time.sleep(2)  # the run's jobs are queued: B's one job arrives behind them
    behind = _single(other)
    url = answer.json()["status_url"]
    while (state := client.get(url, params={"records_offset": RECORDS}).json())[
        "status"
    ] == "running":
        time.sleep(0.1)
    finished = time.perf_counter()
    return {
        "accepted": accepted,
        "total": finished - started,
        "behind": behind,
        "download_url": state["download_url"],
        "completed_at": finished,
    }


def _zip(url: str, web_pid: int) -> tuple[float, float, int, int, int]:
    """(first byte after asking, whole download, bytes, RSS before, highest RSS during)."""
    process = psutil.Process(web_pid)
    before = process.memory_info().rss
    highest = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            highest[0] = max(highest[0], process.memory_info().rss)
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    size = 0
    first = 0.0
    with httpx.stream("GET", url, timeout=300) as download:
        for chunk in download.iter_bytes():
            if not first:
                first = time.perf_counter() - started
            size += len(chunk)
    whole = time.perf_counter() - started
    done.set()
    sampler.join()
    return first, whole, size, before, highest[0]


def main() -> int:
    from config import embedded_redis
    from tests.processes import stop

    var = Path(tempfile.mkdtemp(prefix="bench-runs-"))
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DJANGO_DEBUG="false",
        VAR_DIR=str(var),
        DATABASE_URL=os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{var / 'db.sqlite3'}"),
        PDF_MAX_JOBS_IN_FLIGHT=str(RECORDS * 2),
        RUN_MAX_RECORDS=str(RECORDS),
        RUN_STATUS_MAX_RECORDS="10",
        API_RATE_SUBMIT="1000000/min",
        API_RATE_STATUS_READ="1000000/min",
    )
    env["REDIS_URL"] = embedded_redis.start(var / "redis")
    try:
        _manage(env, "migrate", "-v", "0")
        key_a = _manage(env, "create_api_key", "tenant-a")
        key_b = _manage(env, "create_api_key", "tenant-b")
        web, worker, base = _stack(env, var, fair=True)
        try:
            time.sleep(3)  # the worker connects
            with (
                httpx.Client(base_url=base, headers={"X-API-Key": key_a}, timeout=60) as a,
                httpx.Client(base_url=base, headers={"X-API-Key": key_b}, timeout=60) as b,
            ):
                a.post("/api/v1/templates", json=TEMPLATE).raise_for_status()
                b.post("/api/v1/templates", json=TEMPLATE).raise_for_status()
                alone = statistics.median(_single(b) for _ in range(3))
                submitted, separate = _separate(a)
                run = _run(a, b)
                first, whole, size, rss_before, rss_most = _zip(
                    str(run["download_url"]),
                    web.pid,  # type: ignore[attr-defined]
                )
        finally:
            stop(worker)
            stop(web)
    finally:
        embedded_redis.stop()
    run_rate, separate_rate = RECORDS / run["total"], RECORDS / separate
    print(f"Runs: {RECORDS} one-page invoices, one worker with two children")
    print(
        f"  separate submits  {separate_rate:6.1f} records/s  ({submitted:5.2f} s to submit,"
        f" {separate:6.1f} s to the last PDF)"
    )
    print(
        f"  one run           {run_rate:6.1f} records/s  ({run['accepted']:5.2f} s for the POST,"
        f" {run['total']:6.1f} s to the last PDF)"
    )
    print(f"  = run / separate: {run_rate / separate_rate:4.2f}x records/s;")
    print(f"    the POST of the run takes {run['accepted'] / submitted:4.2f}x the 1,000 submits")
    print(f"  ZIP: first byte {first * 1000:5.0f} ms after asking, {size / 1e6:5.1f} MB in")
    print(f"    {whole:5.2f} s; web RSS {rss_before / 1e6:5.1f} MB before,")
    print(f"    {rss_most / 1e6:5.1f} MB at most while streaming ({rss_most / rss_before:4.2f}x)")
    print(
        f"  tenant B's one job: {alone:5.2f} s alone, {run['behind']:5.2f} s behind A's run"
        f" ({run['behind'] / alone:4.1f}x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
