"""Fan-out benchmark (`make bench-push`): N WebSocket, then N SSE subscribers of one job on
one uvicorn process; latency from each transition to its delivery at every subscriber, and
the web process's memory. Loopback only, bounded in time; starts everything it needs."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(BASE_DIR))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _raise_fd_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))
    return ordered[index]


class Deliveries:
    """Receive times per event seq, shared by all subscribers of one run."""

    def __init__(self) -> None:
        self.times: dict[int, list[float]] = {}
        self.errors = 0
        self.first_error = ""

    def fail(self, error: BaseException) -> None:
        self.errors += 1
        self.first_error = self.first_error or repr(error)

    def record(self, payload: dict[str, Any]) -> None:
        self.times.setdefault(payload["seq"], []).append(time.perf_counter())

    def count(self, seq: int) -> int:
        return len(self.times.get(seq, []))


async def _ws_subscriber(url: str, key: str, deliveries: Deliveries, ready: asyncio.Event) -> None:
    from websockets.asyncio.client import connect

    try:
        async with connect(
            url, additional_headers={"X-API-Key": key}, open_timeout=60, ping_interval=None
        ) as ws:
            first = json.loads(await ws.recv())
            deliveries.record(first)
            ready.set()
            async for message in ws:
                payload = json.loads(message)
                if "seq" in payload:
                    deliveries.record(payload)
    except Exception as error:
        deliveries.fail(error)
        ready.set()


async def _sse_subscriber(
    port: int, path: str, key: str, deliveries: Deliveries, ready: asyncio.Event
) -> None:
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 60)
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-API-Key: {key}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        first = True
        while line := await reader.readline():
            # Chunked framing lines are ignored: each event arrives inside one chunk.
            if line.startswith(b"data: "):
                deliveries.record(json.loads(line[6:]))
                if first:
                    ready.set()
                    first = False
        writer.close()
    except Exception as error:
        deliveries.fail(error)
        ready.set()


def _fire(job_id: str, step: int, steps: int) -> tuple[float, int]:
    """Make one transition; return when it started and the seq it published."""
    from jobs import transitions

    started = time.perf_counter()
    if step == 0:
        job = transitions.job_claim(job_id=job_id, worker="bench")
    elif step == steps - 1:
        job = transitions.job_complete(
            job_id=job_id, pdf_file="bench.pdf", page_count=1, size_bytes=1, warnings=[]
        )
    else:
        job = transitions.job_progress(job_id=job_id, stage="laying_out", progress=5 + step)
    assert job is not None, "transition refused"
    return started, job.event_seq


async def _run(
    kind: str, *, port: int, pid: int, key: str, job_id: str, subscribers: int, events: int
) -> dict[str, Any]:
    deliveries = Deliveries()
    readies = [asyncio.Event() for _ in range(subscribers)]
    rss_idle = _rss_mib(pid)
    connect_started = time.perf_counter()
    tasks = []
    for index, ready in enumerate(readies):
        if kind == "websocket":
            url = f"ws://127.0.0.1:{port}/ws/jobs/{job_id}/"
            coro = _ws_subscriber(url, key, deliveries, ready)
        else:
            coro = _sse_subscriber(port, f"/api/v1/jobs/{job_id}/events", key, deliveries, ready)
        tasks.append(asyncio.create_task(coro))
        if index % 100 == 99:  # connect in waves, as browsers arriving would
            await asyncio.gather(*(r.wait() for r in readies[: index + 1]))
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 120)
    connect_seconds = time.perf_counter() - connect_started
    connected = subscribers - deliveries.errors
    rss_connected = _rss_mib(pid)
    rss_peak = rss_connected

    latencies: list[float] = []
    before_terminal: list[float] = []
    last_arrivals: list[float] = []
    for step in range(events):
        started, seq = await asyncio.to_thread(_fire, job_id, step, events)
        deadline = time.perf_counter() + 10
        while deliveries.count(seq) < connected and time.perf_counter() < deadline:
            await asyncio.sleep(0.005)
        arrivals = [t - started for t in deliveries.times.get(seq, [])]
        latencies.extend(arrivals)
        if step < events - 1:
            before_terminal.extend(arrivals)
        last_arrivals.append(max(arrivals) if arrivals else float("nan"))
        rss_peak = max(rss_peak, _rss_mib(pid))
        await asyncio.sleep(0.2)
    await asyncio.wait(tasks, timeout=20)
    for task in tasks:
        task.cancel()
    expected = connected * events
    return {
        "transport": kind,
        "subscribers": subscribers,
        "connected": connected,
        "first_error": deliveries.first_error,
        "connect_seconds": round(connect_seconds, 2),
        "events": events,
        "deliveries": len(latencies),
        "missed": expected - len(latencies),
        "p50_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
        "p99_ms": round(_percentile(latencies, 99) * 1000, 1) if latencies else None,
        "max_ms": round(max(latencies) * 1000, 1) if latencies else None,
        # The last event completes the job: every subscriber then also closes its stream.
        "p50_progress_ms": round(statistics.median(before_terminal) * 1000, 1),
        "p99_progress_ms": round(_percentile(before_terminal, 99) * 1000, 1),
        "terminal_last_ms": round(last_arrivals[-1] * 1000, 1),
        "last_subscriber_median_ms": round(statistics.median(last_arrivals) * 1000, 1),
        "last_subscriber_ms_per_event": [round(value * 1000) for value in last_arrivals],
        "rss_idle_mib": round(rss_idle, 1),
        "rss_connected_mib": round(rss_connected, 1),
        "rss_peak_mib": round(rss_peak, 1),
    }


def _table(results: list[dict[str, Any]]) -> str:
    head = (
        "| transport | subscribers | events | deliveries (missed) | p50 | p99 "
        "| p50 / p99 without the final event | all delivered: median event, final event "
        "| web RSS idle → connected → peak |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
    )
    rows = "".join(
        f"| {r['transport']} | {r['connected']}/{r['subscribers']} | {r['events']} "
        f"| {r['deliveries']} ({r['missed']}) | {r['p50_ms']} ms | {r['p99_ms']} ms "
        f"| {r['p50_progress_ms']} / {r['p99_progress_ms']} ms "
        f"| {r['last_subscriber_median_ms']} ms, {r['terminal_last_ms']} ms "
        f"| {r['rss_idle_mib']} → {r['rss_connected_mib']} → {r['rss_peak_mib']} MiB |\n"
        for r in results
    )
    return head + rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--subscribers", type=int, default=1000)
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--transports", default="websocket,sse")
    parser.add_argument("--time-limit", type=float, default=600, help="seconds for everything")
    args = parser.parse_args()
    _raise_fd_limit(args.subscribers * 3 + 1024)  # client + server sockets, Redis, files

    workdir = Path(tempfile.mkdtemp(prefix="bench-push-"))
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings.local",
            "DJANGO_DEBUG": "false",  # DEBUG keeps every SQL query in memory
            "VAR_DIR": str(workdir),
            "LOG_LEVEL": "WARNING",
            # One tenant follows with every subscriber: lift its cap to the process's.
            "STREAMS_MAX_PER_TENANT": str(args.subscribers * 2 + 10),
        }
    )
    os.environ.pop("REDIS_URL", None)  # never the machine's shared Redis
    os.environ.pop("DATABASE_URL", None)
    from config import embedded_redis

    embedded_redis.start(workdir / "redis")
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=BASE_DIR, check=True)
    import django

    django.setup()
    from accounts.services import api_key_create, user_get_or_create
    from jobs.models import PdfJob

    user = user_get_or_create(username="bench")
    key = api_key_create(user=user, name="bench")[1]

    port = _free_port()
    out_dir = BASE_DIR / "var" / "bench"
    out_dir.mkdir(parents=True, exist_ok=True)
    server = ["uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port)]
    web = subprocess.Popen(
        [sys.executable, "-m", *server, "--log-level", "warning", "--backlog", "4096"],
        cwd=BASE_DIR,
        stdout=(out_dir / "push-fanout-web.log").open("wb"),
        stderr=subprocess.STDOUT,
    )
    results: list[dict[str, Any]] = []
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        for kind in args.transports.split(","):
            job = PdfJob.objects.create(owner=user, engine="raw", html_template="<p>bench</p>")
            run = _run(
                kind,
                port=port,
                pid=web.pid,
                key=key,
                job_id=str(job.job_id),
                subscribers=args.subscribers,
                events=args.events,
            )
            phase = time.monotonic()
            results.append(asyncio.run(asyncio.wait_for(run, args.time_limit)))
            results[-1]["phase_seconds"] = round(time.monotonic() - phase, 1)
            print(json.dumps(results[-1]), flush=True)
    finally:
        web.terminate()
        web.wait(timeout=15)
        embedded_redis.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    (out_dir / "push-fanout.json").write_text(json.dumps(results, indent=2))
    print()
    print(_table(results))
    print(f"web server log: {out_dir / 'push-fanout-web.log'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
